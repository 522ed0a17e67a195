"""The real browser the tests look through: Debian's chromium, driven directly or by Playwright."""
import contextlib
import shutil

import pytest


def chromium():
    """The chromium binary, or None (`.ci/run` installs Debian's chromium when it is missing)."""
    return next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
                None)


def launch(playwright):
    """A headless Playwright browser on the system chromium (Playwright's own download is not
    available here); skips the test when there is no chromium."""
    exe = chromium()
    if exe is None:
        pytest.skip("no chromium binary (apt-get install -y chromium) to look through")
    # --no-sandbox: CI runs as root, where chromium's own sandbox refuses to start.
    return playwright.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])


@contextlib.contextmanager
def headless_browser():
    """Playwright's headless chromium (see `launch`) for as long as the block lasts: a module's
    `browser` fixture."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser
        finally:
            browser.close()
