"""The screenshot of `cad view` in docs/usage.md: the demo's page in headless Chromium (Debian's package,
driven by Playwright from the test extras), both systems side by side, the last *it* pinned.

    python docs/view_screenshot.py models/baseline/demo.view.html docs/view-demo.png
"""

import argparse
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page", help="a page written by cad view")
    ap.add_argument("png", help="the screenshot to write")
    ap.add_argument("--pronoun", default="0:1:7", help="the pronoun to pin, doc:sentence:token (default: %(default)s)")
    ap.add_argument("--size", default="1280x640", help="the window, WIDTHxHEIGHT (default: %(default)s)")
    a = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 1
    width, height = (int(x) for x in a.size.split("x"))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": width, "height": height})
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
        page.goto(Path(a.page).resolve().as_uri())
        page.wait_for_selector("body[data-ready]")
        page.check("#side")
        page.locator(f'[data-pron="{a.pronoun}"]').click()
        page.screenshot(path=a.png)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
