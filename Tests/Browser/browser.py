"""What every browser test shares: the built tool, a headless Chromium driven through
chromedriver (real clicks and key presses through WebDriver), and waiting for a state the page
reaches rather than for time.

Run all of them with `Tests/Browser/run` (Scripts/test does, after the Swift suites).
"""

import os
import subprocess
import tempfile
import unittest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.environ.get("LEAK_DETECTOR", os.path.join(ROOT, ".build", "debug", "leak-detector"))


def tool(*arguments, check=True):
    """Runs the built `leak-detector` with `arguments`; returns the completed process."""
    result = subprocess.run([TOOL, *arguments], capture_output=True, text=True)
    if check and result.returncode not in (0, 2):
        raise AssertionError(f"leak-detector {' '.join(arguments)} exited {result.returncode}: {result.stderr}")
    return result


def chromium(width=1400, height=1000):
    """A headless Chromium under WebDriver, with a window of `width` × `height`."""
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(argument)
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(options=options, service=service)


class BrowserTestCase(unittest.TestCase):
    """A test case with one browser for the class and a temporary directory per test."""

    @classmethod
    def setUpClass(cls):
        cls.browser = chromium()

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def path(self, name):
        return os.path.join(self.directory.name, name)

    def open(self, file, fragment=""):
        self.browser.get("file://" + file + fragment)

    def wait_until(self, condition, timeout=10, message="the page never reached the state"):
        """Waits until `condition(browser)` is truthy, and returns its value."""
        return WebDriverWait(self.browser, timeout).until(condition, message)
