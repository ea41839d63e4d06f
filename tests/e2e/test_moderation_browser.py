"""Moderation in real browsers against a Daphne live server (websockets included).

Two players chat at a live table; one reports the other from the game; a moderator opens the
queue, opens the report, bans the reported player, and resolves the report. The ban ends the game
on both players' tables without a reload, the banned player can no longer log in, and the log
shows every step. Screenshots of the chat, the queue, the report page and the log land in
test-artifacts/.
"""

from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from game.models import Game
from game.services.starting import game_create_seek, game_join
from moderation import services
from tests.e2e import helpers
from tests.e2e.helpers import LIVE, PASSWORD, in_a_thread, log_in, wait_for_socket


def set_up_players_and_game() -> Game:
    """anna and boris at a table, and mila the moderator."""
    users = get_user_model().objects
    anna, boris, mila = (
        users.create_user(name, password=PASSWORD) for name in ("anna", "boris", "mila")
    )
    services.moderator_grant(user=mila)
    seek = game_create_seek(user=anna, trump="S")
    return game_join(game_id=seek.pk, user=boris, trump="H")


class ModerationTests(helpers.BrowserTestCase):
    def test_a_moderator_works_through_a_report_from_the_queue_to_a_ban(self) -> None:
        game = in_a_thread(set_up_players_and_game)
        base = self.live_server_url
        table = f"{base}/games/{game.pk}/"

        # Two players at the table; boris is rude in the chat, and anna sees it live.
        anna_page, boris_page = self.new_page(), self.new_page()
        for page, name in ((anna_page, "anna"), (boris_page, "boris")):
            log_in(page, base, name)
            page.goto(table)
            wait_for_socket(page)
        anna_page.fill("#chat-input", "good luck!")
        anna_page.press("#chat-input", "Enter")
        boris_page.fill("#chat-input", "you play like a fool")
        boris_page.press("#chat-input", "Enter")
        expect(anna_page.locator("#chat-log")).to_contain_text("you play like a fool", timeout=LIVE)
        expect(boris_page.locator("#chat-input")).to_have_value("")
        expect(boris_page.locator("#chat-input")).to_be_focused()  # ready for the next line
        boris_page.keyboard.type("and you will lose")  # the form came back: it still sends
        boris_page.keyboard.press("Enter")
        expect(anna_page.locator("#chat-log li").last).to_have_text(
            "boris and you will lose", timeout=LIVE
        )
        assert boris_page.url == table  # sent over the socket, not as a page load
        anna_page.screenshot(path=self.artifacts / "chat-anna.png", full_page=True)

        # Anna reports boris from the game.
        anna_page.click("text=Report boris")
        anna_page.select_option("#id_reason", "abuse")
        anna_page.fill("#id_text", "He insults me in the chat.")
        anna_page.click("main button[type=submit]")
        anna_page.wait_for_url(f"**/games/{game.pk}/")
        expect(anna_page.locator(".notice")).to_contain_text("the moderators will look")
        wait_for_socket(anna_page)

        # The moderator opens the queue and the report.
        mod_page = self.new_page()
        log_in(mod_page, base, "mila")
        mod_page.click("nav >> text=Moderation")
        queue = mod_page.locator(".report-card")
        expect(queue).to_have_count(1)
        expect(queue).to_contain_text("boris: abuse")
        expect(queue).to_contain_text("you play like a fool")  # his recent chat
        expect(queue).to_contain_text(f"#{game.pk}")  # his recent games
        mod_page.screenshot(path=self.artifacts / "moderation-queue.png", full_page=True)
        queue.get_by_role("link", name="Open the report").click()
        expect(mod_page.get_by_role("heading", level=1)).to_contain_text("about boris")
        mod_page.screenshot(path=self.artifacts / "moderation-report.png", full_page=True)

        # The ban: a reason, then the button.
        ban = mod_page.locator("form[action$='/ban/']")
        ban.locator("textarea").fill("Insults in chat after a warning elsewhere.")
        ban.get_by_role("button", name="Ban").click()
        expect(mod_page.locator(".notice").first).to_contain_text("boris is banned.")
        expect(mod_page.locator(".badge--danger")).to_have_text("banned")

        # The game ends at once on both tables, as a loss by ban.
        for page in (anna_page, boris_page):
            expect(page.locator(".result h2")).to_have_text("anna wins", timeout=LIVE)
            expect(page.locator(".result")).to_contain_text("A moderator's decision")

        # The moderator resolves the report; the queue is empty; the log has both steps.
        close = mod_page.locator("form.mod-close")
        close.locator("textarea").fill("Banned for insults.")
        close.get_by_role("button", name="Resolve").click()
        mod_page.wait_for_url("**/moderation/")
        expect(mod_page.locator("main")).to_contain_text("No open reports")
        mod_page.click(".mod-nav >> text=Log")
        rows = mod_page.locator(".log-entry")
        expect(rows).to_have_count(2)
        expect(mod_page.locator(".log-entry--ban")).to_contain_text("boris")
        expect(mod_page.locator(".log-entry--resolve_report")).to_contain_text(
            "Banned for insults."
        )
        mod_page.screenshot(path=self.artifacts / "moderation-log.png", full_page=True)
        mod_page.click(f".log-entry--resolve_report >> text=#{game.pk}")
        expect(mod_page.locator(".game-status")).to_contain_text("a moderator's decision")
        expect(mod_page.locator(".chat-lines")).to_contain_text("you play like a fool")
        mod_page.screenshot(path=self.artifacts / "moderation-game.png", full_page=True)

        # Boris is logged out on his next request and cannot log in again.
        boris_page.goto(f"{base}/accounts/login/")
        boris_page.fill("#id_username", "boris")
        boris_page.fill("#id_password", PASSWORD)
        boris_page.click("main button[type=submit]")
        expect(boris_page.locator(".notice--error")).to_contain_text(
            "This account has been banned by the moderators."
        )
