"""The harness itself: Chromium opens a report the tool wrote, and a click changes the page."""

import browser


class HarnessTests(browser.BrowserTestCase):
    def test_chromium_opensAFileAndTheTitleIsRead(self):
        page = self.path("page.html")
        with open(page, "w") as file:
            file.write("<title>t</title><button id=b onclick=\"this.textContent='clicked'\">x</button>")
        self.open(page)
        self.browser.find_element("id", "b").click()
        self.assertEqual(self.wait_until(lambda b: b.find_element("id", "b").text == "clicked" and b.title), "t")
