from pathlib import Path

from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer


def test_home_page_shows_the_rules_in_a_real_browser(
    page: Page, live_server: LiveServer, artifacts_dir: Path
) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url)

    expect(page).to_have_title("Rules of the game · Your Trumps")
    expect(page.get_by_role("heading", name="What beats what")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    # The stylesheet and htmx came from our own static files.
    assert page.evaluate("getComputedStyle(document.body).display") == "flex"
    assert page.evaluate("typeof window.htmx") == "object"

    page.screenshot(path=artifacts_dir / "home.png", full_page=True)
