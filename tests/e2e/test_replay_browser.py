"""The replay viewer in a real browser: stepping with the keyboard, the slider and the move list.

A finished, analysed game is stored first; a visitor (no account needed) opens its replay, steps
with ← → Home End, jumps from the move list, shares a ply's URL, and browses the archive.
Screenshots land in test-artifacts/.
"""

import re
import threading

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from archive import analysis, services
from tests.e2e import helpers
from tests.games import finished_game

STEP_TIMEOUT = 20_000  # ms: generous, for a busy machine


def shown_ply(page: Page) -> int:
    return int(page.locator("#replay").get_attribute("data-ply") or -1)


def wait_for_ply(page: Page, value: int) -> None:
    expect(page.locator("#replay")).to_have_attribute("data-ply", str(value), timeout=STEP_TIMEOUT)


def wait_for_address(page: Page, value: int) -> None:
    """Wait for a step's position and then its address, which htmx pushes just after the swap."""
    wait_for_ply(page, value)
    expect(page).to_have_url(re.compile(rf"\?ply={value}$"), timeout=STEP_TIMEOUT)


class ReplayTests(helpers.BrowserTestCase):

    def setUp(self) -> None:
        super().setUp()
        # The services tell the channel layer through async_to_sync, which refuses the thread
        # where Playwright's event loop runs: store the game from a thread of its own.
        worker = threading.Thread(target=self._store_an_analysed_game)
        worker.start()
        worker.join()
        self.turns = self.game.moves.count()

    def _store_an_analysed_game(self) -> None:
        users = get_user_model().objects
        self.game = finished_game(
            users.create_user("alice", password="pw-alice-123"),
            users.create_user("bob", password="pw-bob-123"),
        )
        found, _ = services.analysis_request(
            user=self.game.seat0, game_id=self.game.pk, seconds=0.05
        )
        analysis.run(found.pk)

    def test_a_visitor_steps_through_a_replay_with_the_keyboard(self) -> None:
        page = self.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        url = f"{self.live_server_url}/games/{self.game.pk}/replay/"
        page.goto(f"{url}?ply=0")
        expect(page.get_by_role("heading", name="alice \u2013 bob")).to_be_visible()
        assert shown_ply(page) == 0
        page.screenshot(path=self.artifacts / "replay-deal.png", full_page=True)

        for expected in (1, 2, 3):
            page.keyboard.press("ArrowRight")
            wait_for_address(page, expected)  # every step has its own address
        page.keyboard.press("ArrowLeft")
        wait_for_ply(page, 2)
        expect(page.locator(".card--moved").first).to_be_visible()  # the turn just played
        page.keyboard.press("End")
        wait_for_ply(page, self.turns)
        expect(page.locator("#replay")).to_contain_text("The game is over.")
        expect(page.locator(".summary")).to_contain_text("Blunders by alice")
        page.keyboard.press("Home")
        wait_for_ply(page, 0)

        # The move list jumps; the shared address opens the same position in a new visit.
        page.locator(".move-log__list--replay a", has_text="10.").click()
        wait_for_address(page, 10)
        expect(page.locator(".analysis")).to_contain_text("to move")
        page.screenshot(path=self.artifacts / "replay-ply-10.png", full_page=True)
        shared = page.url
        other = self.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        other.goto(shared)
        assert shown_ply(other) == 10

        # The browser's Back button returns to the previous step.
        page.go_back()
        wait_for_ply(page, 0)

    def test_enter_on_a_step_button_steps_again_and_keeps_the_focus(self) -> None:
        page = self.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        url = f"{self.live_server_url}/games/{self.game.pk}/replay/"
        page.goto(f"{url}?ply=0")
        next_turn = page.get_by_role("button", name="Next turn")
        next_turn.focus()
        for expected in (1, 2, 3):
            page.keyboard.press("Enter")
            wait_for_ply(page, expected)
            expect(next_turn).to_be_focused()

        # At the end "Next" is disabled: the focus stays in the controls, on "Previous".
        page.goto(f"{url}?ply={self.turns - 1}")
        next_turn.focus()
        page.keyboard.press("Enter")
        wait_for_ply(page, self.turns)
        expect(page.get_by_role("button", name="Previous turn")).to_be_focused()
        page.keyboard.press("Enter")
        wait_for_ply(page, self.turns - 1)

    def test_the_archive_filters_and_links_to_replays(self) -> None:
        page = self.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"{self.live_server_url}/games/?player=alice&result=win")
        expect(page.locator("#archive")).to_contain_text("alice \u2013 bob")
        page.screenshot(path=self.artifacts / "archive.png", full_page=True)
        page.select_option("#id_result", "loss")
        expect(page.locator("#archive")).to_contain_text("No finished games match.")
        page.select_option("#id_result", "win")
        page.locator("#archive a", has_text=f"#{self.game.pk}").click()
        page.wait_for_url(f"**/games/{self.game.pk}/replay/")
        assert shown_ply(page) == self.turns

    def test_every_way_of_filtering_the_archive_reaches_the_address_and_back(self) -> None:
        page = self.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"{self.live_server_url}/games/")
        page.fill("#id_player", "alice")
        page.press("#id_player", "Enter")
        expect(page).to_have_url(re.compile(r"\?player=alice&"), timeout=STEP_TIMEOUT)
        page.fill("#id_player", "bob")
        page.get_by_role("button", name="Show games").click()
        expect(page).to_have_url(re.compile(r"\?player=bob&"), timeout=STEP_TIMEOUT)
        expect(page.locator("#archive")).to_contain_text("alice \u2013 bob")

        # Two selects changed in the same instant: the last state wins, both choices in it.
        page.evaluate(
            """() => [["id_reason", "resignation"], ["id_deck", "24"]].forEach(([id, value]) => {
                const select = document.getElementById(id);
                select.value = value;
                select.dispatchEvent(new Event("change", { bubbles: true }));
            })"""
        )
        expect(page).to_have_url(re.compile(r"reason=resignation.*deck=24"), timeout=STEP_TIMEOUT)
        expect(page.locator("#id_reason")).to_have_value("resignation")
        expect(page.locator("#id_deck")).to_have_value("24")
        expect(page.locator("#archive")).to_contain_text("No finished games match.")

        # Back shows the filters before, in the address and in the form.
        page.go_back()
        expect(page).to_have_url(re.compile(r"\?player=bob&result=&reason=&"), timeout=STEP_TIMEOUT)
        expect(page.locator("#id_player")).to_have_value("bob")
        expect(page.locator("#id_reason")).to_have_value("")
        expect(page.locator("#id_deck")).to_have_value("")
        page.go_back()
        expect(page).to_have_url(re.compile(r"\?player=alice&"), timeout=STEP_TIMEOUT)
        expect(page.locator("#id_player")).to_have_value("alice")

    def test_a_record_is_downloaded_and_imported_back(self) -> None:
        page = self.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        base = self.live_server_url
        record = page.request.get(f"{base}/games/{self.game.pk}/replay/record.txt").text()
        header, turns = record.split("\n\n", 1)
        first_turn_line = header.count("\n") + 3  # the header's lines, the blank line, then turns

        page.goto(f"{base}/games/import/")
        page.fill("#id_text", header + "\n\nQQ\n" + turns)
        page.get_by_role("button", name="Open in the viewer").click()
        expect(page.locator(".notice--error")).to_contain_text(f"Line {first_turn_line}:")
        page.screenshot(path=self.artifacts / "import-refused.png", full_page=True)

        page.fill("#id_text", record)
        page.get_by_role("button", name="Open in the viewer").click()
        page.wait_for_url("**/records/*/")
        assert shown_ply(page) == self.turns
        expect(page.locator(".replay-head")).to_contain_text("Imported record")
