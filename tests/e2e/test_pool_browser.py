"""Quick pairing in the browser: two players click the same time control in their lobbies and
both land at the same new table; one who cancels leaves the pool. Screenshots at 360 and 1280 px
go to test-artifacts/."""

from playwright.sync_api import Page

from game.models import Game, PoolEntry
from tests.e2e import helpers
from tests.e2e.helpers import LIVE, in_a_thread


class PoolTests(helpers.BrowserTestCase):
    def lobby(self, name: str, width: int = 1280) -> Page:
        context = self.browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        helpers.log_in(page, self.live_server_url, name)
        page.wait_for_selector("#pool [data-clock='3+2']:enabled", timeout=LIVE)  # pool.js ran
        return page

    def test_two_players_clicking_the_same_time_control_land_at_the_same_table(self) -> None:
        helpers.users("alice", "bob")
        alice, bob = self.lobby("alice", 360), self.lobby("bob")
        alice.screenshot(path=self.artifacts / "pool-lobby-360.png", full_page=True)
        alice.click("#pool [data-clock='3+2']")
        status = alice.locator(".pool__status")
        status.filter(has_text="Looking for an opponent rated 1400 to 1600").wait_for(timeout=LIVE)
        assert alice.locator(".pool__cancel").is_visible()
        assert alice.locator("#pool [data-clock='3+2']").get_attribute("aria-pressed") == "true"
        alice.screenshot(path=self.artifacts / "pool-waiting-360.png", full_page=True)
        bob.screenshot(path=self.artifacts / "pool-lobby-1280.png", full_page=True)
        bob.click("#pool [data-clock='3+2']")
        for page in (alice, bob):
            page.wait_for_url("**/games/*/", timeout=LIVE)
        assert alice.url == bob.url
        game = in_a_thread(lambda: Game.objects.select_related("seat0", "seat1").get())
        assert alice.url.endswith(game.get_absolute_url())
        assert {game.seat0.username, game.seat1.username} == {"alice", "bob"}
        assert (game.clock_initial, game.clock_increment, game.rated) == (180, 2, True)
        bob.screenshot(path=self.artifacts / "pool-paired-table-1280.png", full_page=True)

    def test_cancel_leaves_the_pool_and_brings_the_buttons_back(self) -> None:
        helpers.users("carol")
        carol = self.lobby("carol")
        carol.click("#pool [data-clock='1+1']")
        # The server's answer says the range (the page says "Looking for an opponent…" at once).
        carol.locator(".pool__status").filter(has_text="rated 1400 to").wait_for(timeout=LIVE)
        assert in_a_thread(lambda: PoolEntry.objects.count()) == 1
        carol.keyboard.press("Enter")  # the focus is on Cancel
        carol.wait_for_selector("#pool [data-clock='1+1']:enabled", timeout=LIVE)
        assert carol.locator(".pool__waiting").is_hidden()
        for _ in range(100):
            if in_a_thread(lambda: PoolEntry.objects.count()) == 0:
                break
            carol.wait_for_timeout(50)
        assert in_a_thread(lambda: PoolEntry.objects.count()) == 0
