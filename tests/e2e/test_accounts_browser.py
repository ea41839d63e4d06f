"""A forgotten password reset by email, and an account closed, in a real browser in each of the
site's languages (the browser's language: Accept-Language, as tests/e2e/test_languages_browser.py
sets it). The translations come after the wording, so the pages are checked by their structure:
the forms' fields by name, the addresses, the page's language and direction; English words only
in the English run. Screenshots land in test-artifacts/accounts-<lang>-<step>.png.
"""

import re

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from accounts import services, verification
from game.services.endings import game_resign
from tests.e2e import helpers
from tests.e2e.helpers import LIVE, PASSWORD, in_a_thread

LANGUAGES = ("en", "gl", "he", "hy")
NEW_PASSWORD = "a-new-pass-for-real-77"


def with_verified_address(name: str, address: str) -> None:
    """``name``'s account, with ``address`` verified (as following its link would)."""

    def make() -> None:
        user = get_user_model().objects.create_user(name, password=PASSWORD)
        services.email_change(user=user, email=address, site_url="http://localhost")
        services.email_verify(token=verification.make_token(user, address))

    in_a_thread(make)


class AccountTests(helpers.MailingBrowserTestCase):
    def page_in(self, language: str) -> Page:
        context = self.browser.new_context(locale=language, viewport={"width": 1280, "height": 900})
        return context.new_page()

    def looks_right(self, page: Page, language: str, step: str) -> None:
        """The page is the site's, in ``language`` and its direction; a screenshot of it."""
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("html")).to_have_attribute("dir", "rtl" if language == "he" else "ltr")
        page.screenshot(path=self.artifacts / f"accounts-{language}-{step}.png", full_page=True)

    def log_in(self, page: Page, name: str, password: str) -> None:
        page.goto(f"{self.live_server_url}/accounts/login/")
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", password)
        page.click("main button[type=submit]")

    def reset_password(self, language: str) -> None:
        name, address = f"reader-{language}", f"reader-{language}@example.org"
        with_verified_address(name, address)
        page = self.page_in(language)
        page.goto(f"{self.live_server_url}/accounts/login/")
        page.click("main a[href='/accounts/password/reset/']")  # "Forgot your password?"
        page.wait_for_url("**/accounts/password/reset/")
        self.looks_right(page, language, "reset")
        page.fill("input[name=email]", address)
        page.click("main button[type=submit]")
        page.wait_for_url("**/accounts/password/reset/sent/")
        self.looks_right(page, language, "reset-sent")

        link = re.search(r"http://\S+/accounts/password/reset/\S+/", self.mail_to(address))
        assert link, "the mail holds the reset link"
        page.goto(link[0])  # Django keeps the token in the session: .../set-password/
        page.wait_for_url("**/accounts/password/reset/*/set-password/")
        self.looks_right(page, language, "reset-confirm")
        page.fill("input[name=new_password1]", NEW_PASSWORD)
        page.fill("input[name=new_password2]", NEW_PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url("**/accounts/password/reset/done/")
        self.looks_right(page, language, "reset-done")
        if language == "en":
            expect(page.locator("h1")).to_have_text("Password changed")

        page.click("main a[href='/accounts/login/']")
        page.wait_for_url("**/accounts/login/")
        self.log_in(page, name, NEW_PASSWORD)
        page.wait_for_url("**/play/", timeout=LIVE)
        page.context.close()

    def test_password_reset_in_every_language(self) -> None:
        for language in LANGUAGES:
            self.reset_password(language)

    def close_account(self, language: str) -> None:
        leaving, staying = f"leaving-{language}", f"staying-{language}"
        quitter, opponent = helpers.users(leaving, staying)
        game = helpers.game_between(quitter, opponent)
        in_a_thread(lambda: game_resign(game_id=game.pk, user=opponent))
        base = self.live_server_url

        page = self.page_in(language)
        self.log_in(page, leaving, PASSWORD)
        page.wait_for_url("**/play/")
        page.click(f"header a[href='/accounts/players/{leaving}/']")  # one's own profile
        page.click("main a[href='/accounts/settings/']")
        page.wait_for_url("**/accounts/settings/")
        self.looks_right(page, language, "settings")
        close = page.locator("form[action='/accounts/settings/close/']")
        close.locator("input[name=password]").fill("not-the-password")
        close.locator("button[type=submit]").click()
        expect(
            page.locator("form[action='/accounts/settings/close/'] .field__error")
        ).to_be_visible()
        self.looks_right(page, language, "close-refused")
        close = page.locator("form[action='/accounts/settings/close/']")
        close.locator("input[name=password]").fill(PASSWORD)
        close.locator("button[type=submit]").click()
        page.wait_for_url(f"{base}/")
        expect(page.locator("main .notice[role=alert]")).to_be_visible()
        expect(page.locator(f"header a[href='/accounts/players/{leaving}/']")).to_have_count(0)
        self.looks_right(page, language, "closed")

        self.log_in(page, leaving, PASSWORD)  # refused, and told so
        expect(page.locator("main .notice--error[role=alert]")).to_be_visible()
        assert page.url == f"{base}/accounts/login/"
        self.looks_right(page, language, "closed-login")
        if language == "en":
            expect(page.locator("main .notice--error")).to_contain_text("closed by its owner")
        page.context.close()

        other = self.page_in(language)
        self.log_in(other, staying, PASSWORD)
        other.wait_for_url("**/play/")
        for path in ("/games/", f"/games/{game.pk}/replay/", f"/accounts/players/{staying}/"):
            other.goto(base + path)
            expect(other.locator("main")).to_contain_text(staying)
            expect(other.locator("main")).not_to_contain_text(leaving)
            if language == "en":
                expect(other.locator("main")).to_contain_text("Closed account")
        self.looks_right(other, language, "closed-opponent")
        other.context.close()

    def test_closing_an_account_in_every_language(self) -> None:
        for language in LANGUAGES:
            self.close_account(language)
