"""`leak-detector analyze --format html`: the heap explorer, walked view by view with real clicks
and key presses in headless Chromium.

The heap, written here as a snapshot:

- the root `global App.shared` holds App.AppState #1, which holds App.Feed #2 (expected dead: a survivor;
  it and its closure #3 are a reachable cycle; Feed.state is weak back to AppState), App.ItemList #30
  (which holds App.Item #40, also pointed at weakly by AppState.current), and 120 Tokens #1000… of
  growing sizes;
- five identical leaked cycles App.Cache #100+i ⇄ App.Entry #200+i, one leak group of 5 instances;
- a leaked Vendor.Pool #20 that holds a 1,024-byte Vendor.Buffer #21.
"""

import json

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import browser

TOKENS = 120
LEAKED_CYCLES = 5


def snapshot():
    objects, references = [], []

    def obj(id, type, size, generation=0, stack=None):
        record = {"id": id, "type": type, "address": hex(0x10000 + id * 0x100), "size": size, "generation": generation}
        if stack:
            record["stack"] = stack
        objects.append(record)

    def ref(source, target, label, ownership="strong"):
        references.append({"from": source, "to": target, "label": label, "ownership": ownership})

    obj(1, "App.AppState", 32)
    obj(2, "App.Feed", 48, generation=2, stack=1)
    obj(3, "closure #1 in App.Feed.load()", 32, generation=2, stack=2)
    obj(30, "App.ItemList", 40)
    obj(40, "App.Item", 64)
    ref(1, 2, "feeds[0]")
    ref(2, 3, "onUpdate")
    ref(3, 2, "capture #0: Feed")
    ref(2, 1, "state", "weak")
    ref(1, 30, "items")
    ref(30, 40, "first")
    ref(1, 40, "current", "weak")
    for index in range(TOKENS):
        obj(1000 + index, "App.Token", 1024 + index)
        ref(1, 1000 + index, f"tokens[{index}]")
    for index in range(LEAKED_CYCLES):
        obj(100 + index, "App.Cache", 64, generation=2, stack=3)
        obj(200 + index, "App.Entry", 40, generation=2, stack=3)
        ref(100 + index, 200 + index, "entries[0]")
        ref(200 + index, 100 + index, "owner")
    obj(20, "Vendor.Pool", 24, generation=2, stack=4)
    obj(21, "Vendor.Buffer", 1024, generation=2, stack=4)
    ref(20, 21, "buffers[0]")
    return {
        "format": "swift-heap-snapshot",
        "version": 1,
        "metadata": {"tool": "browser test", "process": "App"},
        "objects": objects,
        "references": references,
        "roots": [{"object": 1, "kind": "global", "label": "App.shared"}],
        "stacks": [
            {"id": 1, "frames": [{"symbol": "App.Feed.__allocating_init() -> App.Feed", "file": "Sources/App/Feed.swift", "line": 3},
                                 {"symbol": "App.Screen.show() -> ()", "file": "Sources/App/Screen.swift", "line": 14}]},
            {"id": 2, "frames": [{"symbol": "closure #1 in App.Feed.load() -> ()", "file": "Sources/App/Feed.swift", "line": 21}]},
            {"id": 3, "frames": [{"symbol": "App.Screen.cache() -> App.Cache", "file": "Sources/App/Screen.swift", "line": 30}]},
            {"id": 4, "frames": [{"symbol": "Vendor.Pool.make() -> Vendor.Pool", "file": "Pool.swift", "line": 7}]},
        ],
    }


class ExplorerTests(browser.BrowserTestCase):
    def setUp(self):
        super().setUp()
        heap = self.path("heap.json")
        with open(heap, "w") as file:
            json.dump(snapshot(), file)
        self.page = self.path("explorer.html")
        browser.tool("analyze", heap, "--expect-dead-generation", "2", "--format", "html", "--output", self.page)

    # MARK: - Helpers

    def visit(self, fragment=""):
        self.open(self.page, fragment)
        self.wait_until(lambda b: b.execute_script("return document.body.dataset.ready === 'true'"), message="the first view was never drawn")

    def view(self, name):
        return self.browser.find_element(By.ID, "view-" + name)

    def visible_view(self):
        return self.browser.execute_script("return [...document.querySelectorAll('section.view')].find(v => !v.hidden).id")

    def texts(self, selector, root=None):
        return [element.text for element in (root or self.browser).find_elements(By.CSS_SELECTOR, selector)]

    def inspected(self):
        return self.wait_until(lambda b: b.find_elements(By.ID, "inspected") and b.find_element(By.ID, "inspected").text)

    def press(self, *keys):
        body = self.browser.find_element(By.TAG_NAME, "body")
        for key in keys:
            body.send_keys(key)

    # MARK: - Summary

    def test_summary_countsLeaksSurvivorsAndCycles_andASurvivorOpensTheInspector(self):
        self.visit()
        self.assertEqual(self.visible_view(), "view-summary")
        tiles = self.texts("#view-summary .tile")
        self.assertIn("12\nleaked objects in 2 groups", tiles)
        self.assertIn("1\nsurvivors", tiles)
        self.assertIn("6\nretain cycles", tiles, "one reachable, and one per instance of the leak group")
        leaks = self.texts("#summary-leaks tbody tr")
        self.assertEqual(len(leaks), 2)
        self.assertTrue(any(row.startswith("5 App.Cache.entries[0] → App.Entry.owner → App.Cache") for row in leaks), leaks)
        # What holds the memory: the suspect and the retaining paths, from the analysis.
        self.assertEqual(
            self.texts("#summary-suspects li"),
            ["global App.shared: App.AppState retains 99% of the heap (130,236 bytes)\n"
             "most of it in App.AppState.tokens[*] → App.Token: 120 objects, 130,020 bytes"])
        self.assertEqual(
            self.texts("#summary-retainers tbody tr"),
            ["global App.shared: App.AppState.tokens[*] → App.Token 120 130,020 99%",
             "global App.shared: App.AppState.items → App.ItemList 1 104 <1%",
             "global App.shared: App.AppState.feeds[*] → App.Feed\n"
             "allocated at App.Screen.show() (Screen.swift:14): 1 object\n"
             "1 80 <1%"],
            "the app's state passes its memory on to the paths below it, its tokens first")
        self.view("summary").find_element(By.CSS_SELECTOR, "ul.plain a.obj").click()
        self.assertEqual(self.inspected(), "App.Feed #2")

    # MARK: - Types

    def test_types_sortByClickedHeader_andFilterByTypedSearch(self):
        self.visit("#view=types")
        first_column = lambda: [cell.strip("▸ ").strip() for cell in self.texts("#types tbody tr.type-row td:first-child")]
        self.assertEqual(first_column()[0], "App.Token", "largest shallow bytes first: 120 tokens")
        self.view("types").find_element(By.CSS_SELECTOR, "th[data-key=count]").click()
        counts = [int(cell.replace(",", "")) for cell in self.texts("#types tbody tr.type-row td:nth-child(2)")]
        self.assertEqual(counts, sorted(counts, reverse=True))
        self.assertEqual(counts[:2], [TOKENS, LEAKED_CYCLES])
        self.view("types").find_element(By.CSS_SELECTOR, "th[data-key=count]").click()
        counts = [int(cell.replace(",", "")) for cell in self.texts("#types tbody tr.type-row td:nth-child(2)")]
        self.assertEqual(counts, sorted(counts), "a second click sorts the other way")
        self.assertEqual(self.browser.find_element(By.CSS_SELECTOR, "th[data-key=count]").get_attribute("aria-sort"), "ascending")
        self.view("types").find_element(By.CSS_SELECTOR, "th[data-key=retained]").click()
        retained = [int(cell.replace(",", "")) for cell in self.texts("#types tbody tr.type-row td:nth-child(4)")]
        self.assertEqual(retained, sorted(retained, reverse=True))
        self.assertEqual(first_column()[:2], ["App.AppState", "App.Token"], "AppState retains its tokens")
        self.view("types").find_element(By.CSS_SELECTOR, "th[data-key=name]").click()
        names = first_column()
        self.assertEqual(names, sorted(names))

        self.press("/")
        self.browser.switch_to.active_element.send_keys("ENTR")
        self.wait_until(lambda b: first_column() == ["App.Entry"], message="typing filters the types, in any case")
        self.assertIn("1 of 10 types matching", self.browser.find_element(By.ID, "types-status").text)
        # A type's row lists its instances.
        self.view("types").find_element(By.CSS_SELECTOR, "tr.type-row").click()
        instances = self.texts("#types tr.instances li")
        self.assertEqual(len(instances), LEAKED_CYCLES)
        self.assertTrue(all(text.startswith("App.Entry #2") for text in instances), instances)

    def test_search_fromAnotherView_selectsTypes(self):
        self.visit("#view=leaks")
        search = self.browser.find_element(By.ID, "search")
        search.send_keys("vendor")
        self.wait_until(lambda b: self.visible_view() == "view-types")
        self.assertEqual(len(self.texts("#types tbody tr.type-row")), 2)
        self.assertIn("view=types", self.browser.current_url)

    # MARK: - Dominators

    def test_dominators_expandLoadsChildrenLargestFirst_andShowsMore(self):
        self.visit("#view=dominators")
        top = self.texts("#dominator-tree .tree-row")
        self.assertEqual([row.split("\n")[0].strip("▸ ").strip() for row in top], ["App.AppState #1", "Pool #20"] + ["App.Cache #10%d" % i for i in range(LEAKED_CYCLES)])
        self.assertEqual(len(self.browser.find_elements(By.CSS_SELECTOR, "#dominator-tree .tree-row[data-depth='1']")), 0, "children are drawn only when expanded")
        self.view("dominators").find_element(By.CSS_SELECTOR, ".tree-row[data-node] .toggle").click()
        children = self.browser.find_elements(By.CSS_SELECTOR, "#dominator-tree .tree-row[data-depth='1'][data-node]")
        self.assertEqual(len(children), 100, "a page of children")
        retained = [int(row.find_element(By.CSS_SELECTOR, "span.n").text.replace(",", "")) for row in children]
        self.assertEqual(retained, sorted(retained, reverse=True))
        self.assertTrue(children[0].text.startswith("· App.Token #1119"), children[0].text)
        more = self.view("dominators").find_element(By.CSS_SELECTOR, ".tree-row.more button")
        self.assertEqual(more.text, "Show 22 more of 22")
        more.click()
        children = self.browser.find_elements(By.CSS_SELECTOR, "#dominator-tree .tree-row[data-depth='1'][data-node]")
        self.assertEqual(len(children), 122)
        self.assertIn("▸ App.Feed #2", [row.text.split("\n")[0] for row in children[100:]], "Feed holds its closure: it expands")
        # Collapse with the mouse, expand with the keyboard: j selects the first row, l expands it.
        self.view("dominators").find_element(By.CSS_SELECTOR, ".tree-row[data-node] .toggle").click()
        self.assertEqual(len(self.browser.find_elements(By.CSS_SELECTOR, "#dominator-tree .tree-row[data-depth='1']")), 0)
        self.press("j", "l")
        self.assertEqual(len(self.browser.find_elements(By.CSS_SELECTOR, "#dominator-tree .tree-row[data-depth='1'][data-node]")), 100)
        self.press("h")
        self.assertEqual(len(self.browser.find_elements(By.CSS_SELECTOR, "#dominator-tree .tree-row[data-depth='1']")), 0)
        self.press(Keys.ENTER)
        self.assertEqual(self.inspected(), "App.AppState #1")

    # MARK: - Inspector

    def test_inspector_showsFactsFieldsReferrersAndThePathWithoutTheWeakShortcut(self):
        self.visit("#object=40")
        self.assertEqual(self.inspected(), "App.Item #40")
        self.assertEqual(self.browser.find_element(By.ID, "size").text, "64 bytes")
        self.assertEqual(self.texts("#fields li"), [])
        referrers = self.texts("#referrers li")
        self.assertEqual(referrers, ["App.ItemList #30 .first", "WEAK App.AppState #1 .current"])
        # The path goes AppState → ItemList → Item: AppState.current is one step shorter but weak.
        steps = self.texts("#path li.step")
        self.assertEqual(len(steps), 3, steps)
        self.assertTrue(steps[0].startswith("App.AppState #1 .items →"), steps)
        self.assertTrue(steps[1].startswith("App.ItemList #30 .first →"), steps)
        self.assertTrue(steps[2].startswith("App.Item #40"), steps)
        self.assertIn("also weak from App.AppState #1 .current (weak: not taken)", steps[2])
        self.assertEqual(self.texts("#path li.root"), ["root global App.shared"])

        # Fields with labels, weak ones marked; the allocation stack as the text report writes it.
        self.browser.find_element(By.CSS_SELECTOR, "#path li.step a.obj").click()
        self.assertEqual(self.inspected(), "App.AppState #1")
        fields = self.texts("#fields li")
        self.assertEqual(fields[:3], ["feeds[0] → App.Feed #2", "items → App.ItemList #30", "tokens[0] → App.Token #1000"])
        self.assertEqual(len(fields), 100, "a page of its 122 strong and 1 weak fields")
        more = self.browser.find_element(By.CSS_SELECTOR, "#fields button.more-references")
        self.assertEqual(more.text, "Show 23 more of 23")
        more.click()
        fields = self.texts("#fields li")
        self.assertEqual(len(fields), 123)
        self.assertEqual(fields[-1], "WEAK current → App.Item #40", "weak fields after the strong ones")
        self.assertEqual(self.browser.find_elements(By.CSS_SELECTOR, "#fields button.more-references"), [])
        self.browser.find_element(By.CSS_SELECTOR, "#fields li a.obj").click()
        self.assertEqual(self.inspected(), "App.Feed #2")
        self.assertEqual(self.texts("ol.stack li"), ["App.Feed.__allocating_init() (Feed.swift:3)", "App.Screen.show() (Screen.swift:14)"])
        self.assertIn("WEAK state → App.AppState #1", self.texts("#fields li"))

    def test_inspector_leakedObject_hasNoPathButItsDominator(self):
        self.visit("#object=201")
        self.assertEqual(self.inspected(), "App.Entry #201")
        self.assertIn("No root reaches this object over strong references: it leaked, held by App.Cache #101.", self.browser.find_element(By.ID, "path").text)

    # MARK: - Leak groups

    def test_leakGroup_isDrawnOnceWithItsCount_andListsItsInstancesWhenOpened(self):
        self.visit("#view=leaks")
        groups = self.view("leaks").find_elements(By.CSS_SELECTOR, "article.leak-group")
        self.assertEqual(len(groups), 2)
        cycle_group = next(group for group in groups if "Cache" in group.text)
        self.assertEqual(cycle_group.get_attribute("data-instances"), str(LEAKED_CYCLES))
        self.assertTrue(cycle_group.find_element(By.TAG_NAME, "h3").text.startswith("5 × App.Cache.entries[0] → App.Entry.owner → App.Cache"))
        self.assertEqual(len(cycle_group.find_elements(By.TAG_NAME, "svg")), 1, "drawn once, not once per instance")
        self.assertEqual(len(self.browser.find_elements(By.CSS_SELECTOR, "#view-leaks .diagram svg")), 1, "the group's; Feed's cycle is folded")
        self.assertIn("1 more component of dependencies' types still reachable", self.view("leaks").text)
        self.assertEqual(cycle_group.find_elements(By.CSS_SELECTOR, "ol.instances li"), [], "instances are listed on demand")
        cycle_group.find_element(By.TAG_NAME, "summary").click()
        instances = self.wait_until(lambda b: self.texts("ol.instances li", cycle_group))
        self.assertEqual(len(instances), LEAKED_CYCLES)
        self.assertTrue(all(text.startswith("App.Cache #10") for text in instances), instances)
        cycle_group.find_element(By.CSS_SELECTOR, "ol.instances li:nth-child(3) a").click()
        self.assertEqual(self.inspected(), "App.Cache #102")

    # MARK: - Addresses, history and keys

    def test_deepLinks_selectViewsAndObjects_andBackReturns(self):
        self.visit("#object=3")
        self.assertEqual(self.inspected(), "closure #1 in App.Feed.load() #3")
        self.assertEqual(self.visible_view(), "view-inspector")
        self.browser.find_element(By.CSS_SELECTOR, "#referrers a.obj").click()
        self.wait_until(lambda b: self.inspected() == "App.Feed #2")
        self.browser.find_element(By.CSS_SELECTOR, "nav.views a[data-view=types]").click()
        self.wait_until(lambda b: self.visible_view() == "view-types")
        self.browser.back()
        self.wait_until(lambda b: self.visible_view() == "view-inspector" and self.inspected() == "App.Feed #2")
        self.browser.back()
        self.wait_until(lambda b: self.inspected() == "closure #1 in App.Feed.load() #3")
        self.visit("#view=dominators")
        self.assertEqual(self.visible_view(), "view-dominators")
        self.assertEqual(self.browser.find_element(By.CSS_SELECTOR, "nav.views a[aria-current]").text, "Dominators")
        self.visit("#object=999999")
        self.assertIn("No object with that id", self.view("inspector").text)

    def test_keys_switchViewsMoveTheSelectionAndOpen(self):
        self.visit()
        self.press("2")
        self.wait_until(lambda b: self.visible_view() == "view-types")
        self.press("j", "j")
        selected = self.browser.find_elements(By.CSS_SELECTOR, "#view-types .row.selected")
        self.assertEqual(len(selected), 1)
        self.assertEqual(selected[0].get_attribute("data-type"), self.browser.find_elements(By.CSS_SELECTOR, "#types tr.type-row")[1].get_attribute("data-type"))
        self.press("k", Keys.ENTER)
        self.assertEqual(len(self.browser.find_elements(By.CSS_SELECTOR, "#types tr.instances")), 1, "Enter lists the first type's instances")
        self.press("j", Keys.ENTER)
        self.assertEqual(self.inspected(), "App.Token #1119", "the largest token, first of its instances")
        self.press("1")
        self.wait_until(lambda b: self.visible_view() == "view-summary")
        self.press("?")
        self.assertTrue(self.browser.find_element(By.ID, "keys").get_attribute("open"))
        self.assertIn("open the selected object in the inspector", self.browser.find_element(By.ID, "keys").text)

    def test_withoutRoots_theTreeAndThePathSayWhyTheyAreEmpty(self):
        heap = snapshot()
        heap["roots"] = []
        path = self.path("rootless.json")
        with open(path, "w") as file:
            json.dump(heap, file)
        browser.tool("analyze", path, "--format", "html", "--output", self.page)
        self.visit("#view=dominators")
        self.assertIn("Empty: the snapshot lists no roots", self.view("dominators").text)
        self.assertEqual(self.browser.find_elements(By.CSS_SELECTOR, "#dominator-tree .tree-row"), [])
        self.visit("#object=40")
        self.assertEqual(self.browser.find_element(By.ID, "path").text, "The snapshot lists no roots, so there is no path from one.")
        self.assertEqual(self.texts("#referrers li"), ["ItemList #30 .first", "WEAK AppState #1 .current"], "names as the report writes them")
