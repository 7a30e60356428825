"""The screenshot of `cad serve`'s page in docs/usage.md: the server started on a configuration
(`make`'s by default), the demo text typed into the page in headless Chromium (Debian's package,
driven by Playwright from the test extras), its translation awaited, a pronoun pinned.

    python docs/serve_screenshot.py [--config moses_configs/baseline.feature.ini] docs/serve-page.png
"""

import argparse
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "cad" / "data" / "demo" / "seed004.en"


def start(config: str) -> tuple[subprocess.Popen, str]:
    err = tempfile.NamedTemporaryFile("w+", prefix="cad-serve-shot-", delete=False)
    proc = subprocess.Popen([sys.executable, "-m", "cad", "serve", "--config", config, "--port", "0", "--raw"],
                            stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, cwd=REPO)
    deadline = time.time() + 600
    while time.time() < deadline:
        m = re.search(r"listening on (http://\S+/)", Path(err.name).read_text())
        if m:
            return proc, m.group(1)
        if proc.poll() is not None:
            sys.exit(f"cad serve exited with {proc.returncode}:\n{Path(err.name).read_text()}")
        time.sleep(0.1)
    proc.kill()
    sys.exit("cad serve did not listen within 10 min")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("png", help="the screenshot to write")
    ap.add_argument("--config", default="moses_configs/baseline.feature.ini",
                    help="the configuration served (default: %(default)s)")
    ap.add_argument("--pronoun", type=int, default=-1,
                    help="which marked pronoun to pin, by its order in the text (default: %(default)s, the last)")
    ap.add_argument("--size", default="1280x900", help="the window, WIDTHxHEIGHT (default: %(default)s)")
    a = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 1
    config = str(Path(a.config).resolve())
    width, height = (int(x) for x in a.size.split("x"))
    proc, url = start(config)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url)
            page.wait_for_selector("body[data-ready]")
            page.fill("#src", " ".join(DEMO.read_text(encoding="utf-8").split("\n")).strip())
            page.wait_for_selector("#out li .fr", timeout=120_000)
            view = page.frame_locator("#view")
            view.locator("body[data-ready]").wait_for()
            marks = view.locator("[data-pron]")
            marks.nth(a.pronoun if a.pronoun >= 0 else marks.count() + a.pronoun).click()
            page.evaluate("() => window.scrollTo(0, 0)")
            page.screenshot(path=a.png)
            browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
