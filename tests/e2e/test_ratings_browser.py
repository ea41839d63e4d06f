"""A rated game in real browsers: made from the lobby (rated by default), joined, resigned; both
tables show each player's new rating and its change, and the players' profiles their ratings.
Screenshots of the result and of a profile land in test-artifacts/."""

import re

from playwright.sync_api import expect

from tests.e2e import helpers


class RatedGameTests(helpers.BrowserTestCase):
    def test_a_rated_game_resigned_shows_both_rating_changes_on_both_tables(self) -> None:
        base = self.live_server_url
        helpers.users("anna", "boris")
        anna, boris = self.new_page(), self.new_page()
        helpers.log_in(anna, base, "anna")
        helpers.log_in(boris, base, "boris")

        seek = "form[action='/play/seek/']"
        expect(anna.locator(f"{seek} input[name=rated]")).to_be_checked()
        anna.select_option(f"{seek} select[name=clock]", "3+2")
        anna.click(f"{seek} button[type=submit]")
        anna.wait_for_url("**/games/*/")
        expect(boris.locator("#seeks")).to_contain_text("anna 1500?", timeout=helpers.LIVE)
        expect(boris.locator("#seeks")).to_contain_text("rated")
        boris.locator("#seeks a.button").first.click()
        boris.select_option("select[name=trump]", "H")
        boris.click("form[action$='/join/'] button[type=submit]")
        boris.wait_for_url("**/games/*/")
        expect(anna.locator(".board")).to_be_visible(timeout=helpers.LIVE)
        for page in (anna, boris):
            helpers.wait_for_socket(page)
            expect(page.locator(".seat__head .rating")).to_have_text(["1500?", "1500?"])

        boris.once("dialog", lambda dialog: dialog.accept())  # "Resign this game?"
        boris.get_by_role("button", name="Resign").click()

        for page in (anna, boris):  # boris's answer, and anna's over the socket
            changes = page.locator(".result__ratings li")
            expect(changes).to_have_count(2, timeout=helpers.LIVE)
            expect(changes.nth(0)).to_have_text(re.compile(r"^anna 1\d{3}\? \+\d+$"))
            expect(changes.nth(1)).to_have_text(re.compile(r"^boris 1\d{3}\? \u2212\d+$"))
        anna.screenshot(path=self.artifacts / "rated-result-anna.png", full_page=True)

        anna.goto(f"{base}/accounts/players/boris/")
        expect(anna.locator(".ratings tbody tr")).to_have_count(1)
        expect(anna.locator(".ratings tbody tr")).to_contain_text("Blitz")
        expect(anna.locator(".rating-chart polyline")).to_have_count(1)
        anna.screenshot(path=self.artifacts / "rated-profile-boris.png", full_page=True)
