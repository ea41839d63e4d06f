"""A deal anyone can check, in a real browser: a game against the computer created from the lobby
(its script sends the player's part of the deal), resigned at once, and its deal page saying
"Verified"; the same without JavaScript, where the server draws the player's part. Screenshots of
the deal page at 360 and 1280 px land in test-artifacts/."""

from playwright.sync_api import Page, expect

from game.engine import fairness
from game.models import Game
from tests.e2e import helpers
from tests.e2e.conftest import DaphneServingTasks
from tests.e2e.helpers import LIVE, in_a_thread, log_in, sign_up


class FairDealTests(helpers.BrowserTestCase):
    ProtocolServerProcess = DaphneServingTasks

    def play_the_computer_and_resign(self, page: Page) -> Game:
        form = "form[action='/play/computer/']"
        page.select_option(f"{form} select[name=deck]", "24")
        page.click(f"{form} button[type=submit]")
        page.wait_for_url("**/games/*/", timeout=LIVE)
        commitment = page.locator("details.commitment")
        expect(commitment.locator("summary")).to_contain_text("Deal commitment")
        commitment.locator("summary").click()  # opens to the whole hash (a summary, no script)
        expect(commitment.locator(".commitment__full")).to_be_visible()
        page.screenshot(path=self.artifacts / "deal-commitment-table.png", full_page=True)
        page.on("dialog", lambda dialog: dialog.accept())  # "Resign this game?"
        page.get_by_role("button", name="Resign").click()
        expect(page.locator(".result")).to_be_visible(timeout=LIVE)
        return in_a_thread(lambda: Game.objects.latest("pk"))

    def test_the_deal_of_a_game_over_is_verified_from_the_browsers_part(self) -> None:
        page = self.new_page()
        sign_up(page, self.live_server_url, "carla")
        game = self.play_the_computer_and_resign(page)
        assert fairness.is_part(game.part0) and game.part0_from_browser
        assert not game.part1_from_browser  # the computer's
        page.get_by_role("link", name="Check this deal").click()
        page.wait_for_url(f"**/games/{game.pk}/deal/")
        expect(page.locator(".deal-check__verdict")).to_contain_text("Verified")
        expect(page.locator(".deal-check__parts")).to_contain_text(game.secret)
        expect(page.locator(".deal-check__parts")).to_contain_text("from their browser")
        expect(page.locator(".deal-check__hands .card")).to_have_count(24)
        page.screenshot(path=self.artifacts / "deal-1280.png", full_page=True)
        page.set_viewport_size({"width": 360, "height": 780})
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"the deal page is {width} px wide on a 360 px screen"
        page.screenshot(path=self.artifacts / "deal-360.png", full_page=True)
        # Anyone may deal again from other parts: one changed, the deal no longer verified.
        page.fill("#id_part1", "0c" * 32)
        page.get_by_role("button", name="Deal", exact=True).click()
        expect(page.locator(".deal-check__verdict")).to_contain_text("Not verified")

    def test_without_javascript_the_server_draws_the_players_part(self) -> None:
        helpers.users("dmitri")
        context = self.browser.new_context(
            java_script_enabled=False, viewport={"width": 1280, "height": 900}
        )
        page = context.new_page()
        log_in(page, self.live_server_url, "dmitri")
        game = self.play_the_computer_and_resign(page)
        assert fairness.is_part(game.part0) and not game.part0_from_browser
        page.goto(f"{self.live_server_url}/games/{game.pk}/deal/")
        expect(page.locator(".deal-check__verdict")).to_contain_text("Verified")
        expect(page.locator(".deal-check__parts")).not_to_contain_text("from their browser")
