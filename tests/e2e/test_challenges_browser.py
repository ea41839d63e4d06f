"""Challenges in real browsers: anna challenges boris from his profile; boris, on another page,
sees it come over his own socket and declines it from the keyboard with a reason, which anna is
shown; anna challenges again, boris (now in Hebrew, on a narrow screen) accepts, and both pages
go to the new table. Screenshots at 1280 and 360 px, and in Hebrew, land in test-artifacts/."""

from playwright.sync_api import Page, expect

from game.services.endings import game_resign
from tests.e2e import helpers

NOTICES = "#challenges"


def wait_for_user_socket(page: Page) -> None:
    page.wait_for_selector("body[data-user-ws='open']", state="attached", timeout=helpers.LIVE)


class ChallengeTests(helpers.BrowserTestCase):
    def test_a_challenge_declined_with_a_reason_then_one_accepted(self) -> None:
        base = self.live_server_url
        helpers.users("anna", "boris")
        anna, boris = self.new_page(), self.new_page()
        helpers.log_in(anna, base, "anna")
        helpers.log_in(boris, base, "boris")  # boris stays in the lobby
        wait_for_user_socket(boris)

        anna.goto(f"{base}/accounts/players/boris/")
        wait_for_user_socket(anna)
        anna.get_by_text("Challenge boris").click()  # the form unfolds
        anna.select_option("#challenge_clock", "3+2")
        anna.get_by_role("button", name="Send the challenge").click()
        expect(anna.locator(NOTICES)).to_contain_text("Your challenge to boris waits for an answer")

        incoming = boris.locator(f"{NOTICES} section.challenge")
        expect(incoming).to_contain_text("anna challenges you", timeout=helpers.LIVE)
        expect(incoming).to_contain_text("3+2")
        expect(incoming).to_contain_text("rated")
        boris.screenshot(path=self.artifacts / "challenge-incoming-1280.png")

        # From the keyboard: the reason's list, then the button after it.
        reason = incoming.locator("select[name=reason]")
        reason.focus()
        reason.select_option("too_fast")
        boris.keyboard.press("Tab")
        expect(incoming.get_by_role("button", name="Decline")).to_be_focused()
        boris.keyboard.press("Enter")
        expect(boris.locator(f"{NOTICES} section.challenge")).to_have_count(0, timeout=helpers.LIVE)

        expect(anna.locator(NOTICES)).to_contain_text(
            "boris declined your challenge: “This time control is too fast for me.”",
            timeout=helpers.LIVE,
        )
        expect(anna.locator(NOTICES)).not_to_contain_text("waits for an answer")
        anna.screenshot(path=self.artifacts / "challenge-declined-1280.png")
        anna.locator(NOTICES).get_by_role("button", name="Close").click()
        expect(anna.locator(f"{NOTICES} .challenge")).to_have_count(0)

        # Boris turns to Hebrew on a narrow screen; anna challenges again.
        boris.set_viewport_size({"width": 360, "height": 740})
        boris.click("button[name=language][value=he]")
        boris.wait_for_load_state()
        expect(boris.locator("html")).to_have_attribute("dir", "rtl")
        wait_for_user_socket(boris)
        anna.get_by_role("button", name="Send the challenge").click()

        incoming = boris.locator(f"{NOTICES} section.challenge")
        expect(incoming).to_have_count(1, timeout=helpers.LIVE)
        expect(incoming.locator("h2 bdi")).to_have_text("anna")
        notice_box = incoming.bounding_box()
        assert notice_box is not None and notice_box["width"] <= 360 - 2 * 16 + 1
        assert boris.evaluate("document.documentElement.scrollWidth") <= 360
        boris.screenshot(path=self.artifacts / "challenge-incoming-360-he.png")

        incoming.locator("select[name=trump]").select_option("H")
        incoming.locator("form[action$='/accept/'] button").click()

        boris.wait_for_url("**/games/*/", timeout=helpers.LIVE)
        anna.wait_for_url(boris.url, timeout=helpers.LIVE)
        for page in (anna, boris):
            expect(page.locator(".board")).to_be_visible(timeout=helpers.LIVE)
        expect(boris.locator(".seat__head .rating")).to_have_text(["1500?", "1500?"])
        anna.screenshot(path=self.artifacts / "challenge-accepted-table-1280.png")

    def test_challenge_again_from_a_finished_games_result(self) -> None:
        base = self.live_server_url
        anna_user, boris_user = helpers.users("anna", "boris")
        game = helpers.game_between(anna_user, boris_user)
        helpers.in_a_thread(lambda: game_resign(game_id=game.pk, user=boris_user))
        anna, boris = self.new_page(), self.new_page()
        anna.set_viewport_size({"width": 360, "height": 740})
        helpers.log_in(anna, base, "anna")
        helpers.log_in(boris, base, "boris")
        boris.goto(f"{base}/accounts/players/boris/")
        wait_for_user_socket(boris)

        helpers.open_table(anna, base, game)
        wait_for_user_socket(anna)
        anna.get_by_role("button", name="Challenge again").click()
        expect(anna.locator(NOTICES)).to_contain_text("Your challenge to boris waits for an answer")
        anna.screenshot(path=self.artifacts / "challenge-again-360.png", full_page=True)

        incoming = boris.locator(f"{NOTICES} section.challenge")
        expect(incoming).to_contain_text("anna challenges you", timeout=helpers.LIVE)
        expect(incoming).to_contain_text("trumps ♠ · 36 cards · untimed · casual")
