"""Live play in real browsers against a Daphne live server (websockets included).

Two people sign up in two browser contexts, one creates a seek, the other joins, and they play
turns, each seeing the other's move arrive without reloading. One person plays the beginner
computer to the end of the game. Screenshots of the table land in test-artifacts/.
"""

import re

from playwright.sync_api import Page, expect

from tests.e2e import helpers
from tests.e2e.conftest import DaphneServingTasks
from tests.e2e.helpers import sign_up, wait_for_ply

TURN_TIMEOUT = 20_000  # ms: a reply, a push over the websocket


def ply(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-ply") or 0)


def my_turn(page: Page) -> bool:
    return page.locator(".seat button.card--play, button.button--take").count() > 0


def play_a_turn(page: Page) -> None:
    """Play a legal turn by clicking, as a person would: a lead, a two-click beat, or a take."""
    cards = page.locator(".seat button.card--play")
    if not cards.count():
        page.locator("button.button--take").first.click()
        return
    first = cards.first
    starts_a_beat = first.get_attribute("data-beater") is not None
    first.click()
    if starts_a_beat:  # the second click: a card to play on top of the beating card
        second = page.locator(".seconds button.card--play:not([hidden])").first
        second.wait_for(timeout=TURN_TIMEOUT)
        second.click()


class LivePlayTests(helpers.BrowserTestCase):
    ProtocolServerProcess = DaphneServingTasks

    def test_two_people_play_live_and_see_each_others_moves(self) -> None:
        base = self.live_server_url
        anna, boris = self.new_page(), self.new_page()
        sign_up(anna, base, "anna")
        sign_up(boris, base, "boris")

        anna.select_option("form[action='/play/seek/'] select[name=trump]", "S")
        anna.click("form[action='/play/seek/'] button[type=submit]")
        anna.wait_for_url("**/games/*/")
        expect(anna.get_by_role("heading", name="Waiting for an opponent")).to_be_visible()

        # The seek reaches the other lobby live.
        expect(boris.locator("#seeks")).to_contain_text("anna", timeout=TURN_TIMEOUT)
        boris.locator("#seeks a.button").first.click()
        boris.select_option("select[name=trump]", "H")
        boris.click("form[action$='/join/'] button[type=submit]")
        boris.wait_for_url("**/games/*/")
        # Anna's waiting page turns into the table without a reload.
        expect(anna.locator(".board")).to_be_visible(timeout=TURN_TIMEOUT)
        for page in (anna, boris):
            page.wait_for_selector("body[data-ws='open']", state="attached", timeout=TURN_TIMEOUT)

        for turn in range(6):
            mover = next(p for p in (anna, boris) if my_turn(p))
            other = boris if mover is anna else anna
            before = ply(mover)
            play_a_turn(mover)
            wait_for_ply(mover, before + 1)
            wait_for_ply(other, before + 1)  # arrived over the websocket, no reload
            if turn == 1:
                anna.screenshot(path=self.artifacts / "table-anna.png", full_page=True)
                boris.screenshot(path=self.artifacts / "table-boris.png", full_page=True)
        assert ply(anna) == ply(boris) >= 6
        assert anna.locator(".move-log li").count() == ply(anna)

    def test_a_seek_cancelled_says_so_and_a_joined_one_takes_its_creator_to_the_table(
        self,
    ) -> None:
        base = self.live_server_url
        anna, boris = self.new_page(), self.new_page()
        sign_up(anna, base, "anna")
        sign_up(boris, base, "boris")
        create = "form[action='/play/seek/'] button[type=submit]"
        anna.click(create)
        anna.wait_for_url("**/games/*/")
        anna.get_by_role("button", name="Cancel the game").click()
        expect(anna.get_by_role("heading", name="Game cancelled")).to_be_visible()
        anna.reload()  # the page stays whole
        expect(anna.get_by_role("heading", name="Game cancelled")).to_be_visible()
        anna.screenshot(path=self.artifacts / "seek-cancelled.png", full_page=True)
        expect(boris.locator("#seeks")).not_to_contain_text("anna", timeout=TURN_TIMEOUT)

        anna.goto(f"{base}/play/")
        anna.click(create)
        anna.wait_for_url("**/games/*/")
        table = anna.url
        anna.goto(f"{base}/play/")  # and waits in the lobby
        anna.wait_for_selector("body[data-ws='open']", state="attached", timeout=TURN_TIMEOUT)
        expect(boris.locator("#seeks")).to_contain_text("anna", timeout=TURN_TIMEOUT)
        boris.locator("#seeks a.button").first.click()
        boris.select_option("select[name=trump]", "H")
        boris.click("form[action$='/join/'] button[type=submit]")
        anna.wait_for_url(table, timeout=TURN_TIMEOUT)  # taken to the table, no click
        expect(anna.locator(".board")).to_be_visible()

    def test_a_person_plays_the_beginner_computer_to_the_end(self) -> None:
        page = self.new_page()
        sign_up(page, self.live_server_url, "carla")
        form = "form[action='/play/computer/']"
        page.select_option(f"{form} select[name=level]", "beginner")
        page.select_option(f"{form} select[name=deck]", "24")
        page.click(f"{form} button[type=submit]")
        page.wait_for_url("**/games/*/")
        page.wait_for_selector("body[data-ws='open']", state="attached", timeout=TURN_TIMEOUT)
        for _ in range(2000):
            if page.locator(".result").count():
                break
            if my_turn(page):
                before = ply(page)
                play_a_turn(page)
                wait_for_ply(page, before + 1)
            else:
                page.wait_for_timeout(100)  # the computer is thinking
        expect(page.locator(".result")).to_be_visible()
        expect(page.locator(".result h2")).to_have_text(
            re.compile(r"carla wins|Computer .* wins|Draw")
        )
        expect(page.locator(".result p")).not_to_be_empty()  # why it ended
        page.screenshot(path=self.artifacts / "table-vs-computer-finished.png", full_page=True)
        turns = ply(page)
        page.get_by_role("link", name="Replay and analysis").click()  # the finished game's replay
        page.wait_for_url("**/replay/")
        expect(page.locator("#replay")).to_have_attribute("data-ply", str(turns))
