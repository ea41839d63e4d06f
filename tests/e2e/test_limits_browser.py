"""The abuse limits in a browser: a seek past a player's limit is refused in the lobby's form,
without leaving the lobby, and a sign-up past the address's limit gets the 429 page, on a laptop
and on a phone, in English and in Hebrew. Screenshots land in test-artifacts/limits-*.png."""

import os

from playwright.sync_api import expect

from game.services.starting import game_create_seek
from tests.e2e import helpers

SEEK_FORM = "form[action='/play/seek/']"


class LimitsTests(helpers.BrowserTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        # The live server is spawned and reads its settings afresh: one sign-up an hour.
        cls._signups = os.environ.get("LIMIT_SIGNUPS")
        os.environ["LIMIT_SIGNUPS"] = "1/h"
        super().setUpClass()

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        if cls._signups is None:
            del os.environ["LIMIT_SIGNUPS"]
        else:
            os.environ["LIMIT_SIGNUPS"] = cls._signups

    def test_a_seek_past_the_limit_is_refused_in_the_lobby_s_form(self) -> None:
        (anna,) = helpers.users("anna")
        helpers.in_a_thread(lambda: [game_create_seek(user=anna, trump="S") for _ in range(5)])
        page = self.new_page()
        helpers.log_in(page, self.live_server_url, "anna")
        page.goto(f"{self.live_server_url}/play/")
        page.click(f"{SEEK_FORM} button[type=submit]")
        notice = page.locator("#seek-notices .notice--error")
        expect(notice).to_contain_text("You already have 5 games waiting for an opponent")
        assert page.url.endswith("/play/")  # still in the lobby, the form as it was
        notice.scroll_into_view_if_needed()
        page.screenshot(path=self.artifacts / "limits-refused-seek.png", full_page=True)

    def test_a_sign_up_past_the_limit_gets_the_429_page(self) -> None:
        for language, viewport in (("en", (1280, 800)), ("he", (360, 740))):
            context = self.browser.new_context(
                viewport={"width": viewport[0], "height": viewport[1]}, locale=language
            )
            page = context.new_page()
            for name in (f"first-{language}", f"second-{language}"):
                page.goto(f"{self.live_server_url}/accounts/signup/")
                page.fill("#id_username", name)
                page.fill("#id_password1", helpers.PASSWORD)
                page.fill("#id_password2", helpers.PASSWORD)
                with page.expect_response("**/accounts/signup/") as answer:
                    page.click("main button[type=submit]")
                page.context.clear_cookies()  # logged out again, as a second visitor would be
            assert answer.value.status == 429
            assert 0 < int(answer.value.headers["retry-after"]) <= 3600
            expect(page.locator(".error-page__code")).to_have_text("429")
            if language == "en":
                expect(page.locator("main")).to_contain_text("Too many sign-ups")
                expect(page.locator("main")).to_contain_text("Please try again in")
            else:
                expect(page.locator("html")).to_have_attribute("dir", "rtl")
            page.screenshot(path=self.artifacts / f"limits-429-{language}.png", full_page=True)
            context.close()
