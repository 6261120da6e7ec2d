"""`leak-detector diff A B --format html`: the comparison page's tables sort when a header is
clicked and keep only the matching rows when a filter is typed, and the page names what grew
between two snapshots with its delta."""

import json

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import browser


def snapshot(responses, feeds, session):
    """A server's heap: a global cache with `responses` responses (allocated at Server.swift:12),
    `feeds` feeds held by globals, and a session when `session`."""
    objects = [{"id": 1, "type": "App.Cache", "address": "0x1000", "size": 32}]
    references = []
    roots = [{"object": 1, "kind": "global", "label": "App.Cache.shared"}]
    for index in range(responses):
        identifier = 100 + index
        objects.append({"id": identifier, "type": "App.Response", "address": hex(identifier * 0x100), "size": 48, "stack": 1})
        references.append({"from": 1, "to": identifier, "label": f"entries[{index}]", "ownership": "strong"})
    for index in range(feeds):
        identifier = 200 + index
        objects.append({"id": identifier, "type": "App.Feed", "address": hex(identifier * 0x100), "size": 64})
        roots.append({"object": identifier, "kind": "global", "label": f"App.feeds[{index}]"})
    if session:
        objects.append({"id": 300, "type": "App.Session", "address": "0x30000", "size": 24})
        roots.append({"object": 300, "kind": "global", "label": "App.session"})
    return {
        "format": "swift-heap-snapshot", "version": 1, "objects": objects, "references": references, "roots": roots,
        "stacks": [{"id": 1, "frames": [{"symbol": "App.Server.handle() -> ()", "file": "Server.swift", "line": 12}]}],
    }


class DiffPageTests(browser.BrowserTestCase):
    def setUp(self):
        super().setUp()
        paths = {}
        for name, document in (("before.json", snapshot(1, 2, False)), ("after.json", snapshot(4, 1, True))):
            paths[name] = self.path(name)
            with open(paths[name], "w") as file:
                json.dump(document, file)
        self.page = self.path("diff.html")
        result = browser.tool("diff", paths["before.json"], paths["after.json"], "--format", "html", "--output", self.page)
        self.assertEqual(result.returncode, 2, "something grew: " + result.stderr)
        self.open(self.page)
        self.wait_until(lambda b: b.find_elements(By.CSS_SELECTOR, "#types-table tbody tr"))

    def rows(self, table):
        """The visible rows of `table`, each as its cells' texts."""
        return [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
                for row in self.browser.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr") if row.is_displayed()]

    def column(self, table, index):
        return [row[index] for row in self.rows(table)]

    def header(self, table, key):
        return self.browser.find_element(By.CSS_SELECTOR, f'#{table} th[data-key="{key}"]')

    def test_whatGrew_isNamedWithItsDelta(self):
        types = {row[1]: row for row in self.rows("types-table")}
        self.assertEqual(types["Response"][0], "grown")
        self.assertEqual(types["Response"][2:5], ["1", "4", "+3"])
        self.assertEqual(types["Response"][7], "+144")
        self.assertEqual(types["Session"][0], "new")
        self.assertEqual(types["Feed"][0], "shrunk")
        paths = {row[1]: row for row in self.rows("paths-table")}
        cache = paths["global App.Cache.shared: Cache.entries[*] → Response"]
        self.assertEqual((cache[0], cache[4]), ("grown", "+3"))
        self.assertEqual(self.rows("allocated-types")[0], ["Response", "3", "144"])
        self.assertIn("Server.swift:12", self.rows("allocated-sites")[0][0])
        tile = self.browser.find_element(By.CSS_SELECTOR, 'a.tile[href="#types"] .value').text
        self.assertEqual(tile, "2", "Response and Session have more objects")

    def test_clickingHeaders_sortsTheTypes(self):
        self.assertEqual(self.column("types-table", 1), ["Response", "Session", "Feed"], "the most bytes added first")
        self.header("types-table", "name").click()
        self.wait_until(lambda b: self.header("types-table", "name").get_attribute("aria-sort") == "ascending")
        self.assertEqual(self.column("types-table", 1), ["Feed", "Response", "Session"])
        self.header("types-table", "name").click()
        self.wait_until(lambda b: self.header("types-table", "name").get_attribute("aria-sort") == "descending")
        self.assertEqual(self.column("types-table", 1), ["Session", "Response", "Feed"])
        self.header("types-table", "delta").click()
        self.wait_until(lambda b: self.header("types-table", "delta").get_attribute("aria-sort") == "ascending")
        self.assertEqual(self.column("types-table", 4), ["-1", "+1", "+3"], "numbers sort by value")
        self.assertIn("#sort=types-table:delta:asc", self.browser.current_url)

    def test_typingInAFilter_keepsTheMatchingRows(self):
        self.assertEqual(len(self.rows("paths-table")), 4)
        box = self.browser.find_element(By.CSS_SELECTOR, 'input.filter[data-table="paths-table"]')
        box.send_keys("ENTRIES")
        self.wait_until(lambda b: b.find_element(By.ID, "paths-table").get_attribute("data-shown") == "1")
        self.assertEqual(self.column("paths-table", 1), ["global App.Cache.shared: Cache.entries[*] → Response"])
        self.assertEqual(len(self.rows("types-table")), 3, "a filter keeps to its table")
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.BACKSPACE)
        self.wait_until(lambda b: b.find_element(By.ID, "paths-table").get_attribute("data-shown") == "4")
        box.send_keys("feed")
        self.wait_until(lambda b: b.find_element(By.ID, "paths-table").get_attribute("data-shown") == "1")
        self.assertEqual(self.column("paths-table", 0), ["shrunk"])
        types = self.browser.find_element(By.CSS_SELECTOR, 'input.filter[data-table="types-table"]')
        types.send_keys("nothing like this")
        self.wait_until(lambda b: b.find_element(By.ID, "types-table").get_attribute("data-shown") == "0")
        self.assertEqual(self.rows("types-table"), [])
