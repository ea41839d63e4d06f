"""The table as players expect it, in a real browser against a Daphne live server: the lobby's
two forms, a waiting page turned game page, rematches and draw offers that both players hear of,
focus that follows the next action, a move log that follows the game and shows whole names and
whole turns in English and Hebrew, a deal commitment that stays open as turns arrive, the
opponent's turn in words and in the tab's title, a banned player told, the games list, the
replay's keys, records' endings in words, the site's icon and the analysis' estimate explained."""

import re

from playwright.sync_api import Page, expect

from archive import services as archive_services
from archive.models import Analysis
from archive.replays import replay_of_game
from game import engine
from game.models import Game
from game.selectors import history_of
from game.services.endings import game_resign
from game.services.play import game_play_computer_move, game_play_move
from game.services.starting import game_create_seek, game_create_vs_computer, game_join
from moderation import services as moderation
from tests.e2e import helpers
from tests.e2e.helpers import (
    LIVE,
    game_between,
    in_a_thread,
    log_in,
    open_table,
    play_turns,
    post,
    to_move,
    users,
    wait_for_socket,
)
from tests.games import LEGACY_DEAL

FOCUS_AT_A_CARD = re.compile(r"card--play|button--take")

#: Each line of the move log: its mover's name, whether the whole name shows (nothing clipped or
#: cut off by an ellipsis), its turn, and on how many lines the turn's text lies.
READ_MOVE_LOG = """() => [...document.querySelectorAll(".move-log__turn")].map(li => {
  const who = li.querySelector(".move-log__who"), turn = li.querySelector(".notation");
  const rects = e => { const r = document.createRange(); r.selectNodeContents(e);
    return [...r.getClientRects()]; };
  const box = who.getBoundingClientRect();
  const whole = who.scrollWidth <= who.clientWidth && rects(who).every(
    r => r.left >= box.left - 0.5 && r.right <= box.right + 0.5);
  const lines = new Set(rects(turn).map(r => Math.round(r.top))).size;
  return [who.textContent, whole, turn.textContent, lines];
})"""


def beats_first(position: dict[str, object], *_: object, **__: object) -> str:
    """A turn that lays two cards if there is one (the longest notation), else the first."""
    return max(engine.legal_moves(position), key=len)


def against_the_computer_with_beats(name: str, turns: int) -> Game:
    """``name`` against the beginner computer, ``turns`` turns played, two-card beats first."""

    def play() -> Game:
        game = game_create_vs_computer(user=user, level="beginner", trump="S")
        for _ in range(turns):
            history = history_of(game)
            if history.position.to_move == 1:
                game_play_computer_move(game_id=game.pk, choose=beats_first)
            else:
                move = beats_first(engine.position_to_json(history.position))
                game_play_move(game_id=game.pk, user=user, notation=move, expected_ply=history.ply)
        return game

    (user,) = users(name)
    return in_a_thread(play)


class TableTests(helpers.BrowserTestCase):
    def player(self, name: str, game: Game | None = None) -> Page:
        page = self.new_page()
        log_in(page, self.live_server_url, name)
        if game is not None:
            open_table(page, self.live_server_url, game)
        return page

    def test_each_lobby_form_ticks_its_own_boxes(self) -> None:
        users("anna")
        page = self.player("anna")
        computer = page.locator("form[action='/play/computer/']")
        seek = page.locator("form[action='/play/seek/']")
        for label in ("Must beat", "Sixes to owner"):
            computer.locator("label", has_text=label).click()
            expect(computer.get_by_label(label)).to_be_checked()
            expect(seek.get_by_label(label)).not_to_be_checked()
        repeated = page.evaluate(
            "() => { const ids = [...document.querySelectorAll('[id]')].map(e => e.id);"
            " return ids.filter((id, i) => ids.indexOf(id) !== i); }"
        )
        assert repeated == []

    def test_the_creator_gets_the_chat_and_report_link_when_someone_joins(self) -> None:
        anna, _ = users("anna", "boris")
        seek = in_a_thread(lambda: game_create_seek(user=anna, trump="S"))
        page = self.player("anna", seek)
        expect(page.get_by_role("heading", name="Waiting for an opponent")).to_be_visible()
        other = self.player("boris")
        post(other, f"/games/{seek.pk}/join/", {"trump": "H"})
        expect(page.locator("#chat-input")).to_be_visible(timeout=LIVE)
        expect(page.get_by_role("link", name="Report boris")).to_be_visible()
        wait_for_socket(page)
        open_table(other, self.live_server_url, seek)
        other.fill("#chat-input", "good luck, anna")
        other.press("#chat-input", "Enter")
        expect(page.locator("#chat-log")).to_contain_text("good luck, anna", timeout=LIVE)

    def test_chat_lines_break_no_content_security_policy(self) -> None:
        game = game_between(*users("anna", "boris"))
        page = self.player("anna", game)
        refused: list[str] = []
        page.on("console", lambda m: "Security Policy" in m.text and refused.append(m.text))
        # Whatever styles the box in the page (a password manager, an extension) leaves a style
        # attribute, which htmx would copy to the swapped-in box, inline.
        page.evaluate("() => { document.getElementById('chat-input').style.outlineOffset = '3px' }")
        for line in ("hello", "good luck", "have fun"):
            page.fill("#chat-input", line)
            page.press("#chat-input", "Enter")
            expect(page.locator("#chat-log")).to_contain_text(line, timeout=LIVE)
            expect(page.locator("#chat-input")).to_have_value("")
        page.evaluate("() => new Promise(requestAnimationFrame)")  # the console has spoken
        assert refused == []

    def test_a_rematch_waits_for_the_opponent_then_takes_both_to_it(self) -> None:
        anna, boris = users("anna", "boris")
        game = game_between(anna, boris)
        in_a_thread(lambda: game_resign(game_id=game.pk, user=anna))
        asking, asked = self.player("anna", game), self.player("boris", game)
        asking.get_by_role("button", name="Rematch").click()
        expect(asking.locator(".result")).to_contain_text("waiting for your opponent")
        expect(asked.locator(".result")).to_contain_text("anna asks for a rematch", timeout=LIVE)
        assert not in_a_thread(lambda: Game.objects.filter(rematch_of=game).exists())
        asked.get_by_role("button", name="Accept the rematch").click()
        asked.wait_for_url(re.compile(rf"/games/(?!{game.pk}/)\d+/$"), timeout=LIVE)
        rematch = in_a_thread(lambda: Game.objects.get(rematch_of=game))
        for page in (asked, asking):
            page.wait_for_url(f"**/games/{rematch.pk}/", timeout=LIVE)
            expect(page.locator(".board")).to_be_visible()

    def test_focus_goes_to_the_next_action_after_every_turn(self) -> None:
        game = game_between(*users("anna", "boris"))
        players = {0: self.player("anna"), 1: self.player("boris")}
        # The one not to move watches the other lead, then beats by keyboard alone.
        page = players[1 - to_move(game)]
        open_table(page, self.live_server_url, game)
        play_turns(game, players, 1)
        expect(page.locator(":focus")).to_have_class(FOCUS_AT_A_CARD, timeout=LIVE)
        beater = page.locator(":focus")
        if "button--take" not in (beater.get_attribute("class") or ""):
            page.keyboard.press("Enter")  # picks the beating card
            expect(page.locator(":focus")).to_have_accessible_name(
                re.compile(r"^Second card"), timeout=LIVE
            )
        page.keyboard.press("Enter")  # the second card (or the take): the turn is played
        expect(page.locator("#table")).to_have_attribute("data-ply", "2", timeout=LIVE)
        expect(page.locator(":focus")).not_to_have_count(0)
        assert page.evaluate("() => document.activeElement !== document.body")
        play_turns(game, players, 1)
        expect(page.locator(":focus")).to_have_class(FOCUS_AT_A_CARD, timeout=LIVE)

    def test_escape_puts_a_picked_beating_card_back_as_its_cancel_does(self) -> None:
        anna, boris = users("anna", "boris")

        def dealt() -> Game:
            seek = game_create_seek(user=anna, trump="S")
            Game.objects.filter(pk=seek.pk).update(**LEGACY_DEAL)  # boris leads, anna may beat
            return game_join(game_id=seek.pk, user=boris, trump="H")

        game = in_a_thread(dealt)
        players = {0: self.player("anna", game), 1: self.player("boris")}
        play_turns(game, players, 1)
        page = players[0]
        beater = page.locator("#table [data-beater]").first
        expect(beater).to_be_visible(timeout=LIVE)
        beater.click()
        expect(beater).to_have_attribute("aria-pressed", "true")
        expect(page.get_by_role("button", name="Cancel")).to_be_visible()
        expect(page.locator(":focus")).to_have_accessible_name(re.compile(r"^Second card"))
        page.keyboard.press("Escape")
        expect(beater).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#table .second-cards:not([hidden])")).to_have_count(0)
        expect(beater).to_be_focused()

    def test_every_action_on_the_table_is_reached_by_tab_and_shows_its_focus(self) -> None:
        game = game_between(*users("anna", "boris"))
        page = self.player(("anna", "boris")[to_move(game)], game)
        actions = page.locator(
            "#table button, #table a[href], #chat button, #chat input:not([type=hidden])"
        )
        wanted = actions.count()
        assert wanted > 10  # the hand's cards, the draw offer, abort, resign, the chat
        reached = set()
        for _ in range(wanted + 30):
            page.keyboard.press("Tab")
            seen = page.evaluate(
                "() => { const e = document.activeElement, s = getComputedStyle(e);"
                " return [e.outerHTML.slice(0, 120), s.outlineStyle !== 'none'"
                " && parseFloat(s.outlineWidth) >= 2]; }"
            )
            if page.evaluate(
                "() => !!document.activeElement.closest('#table, #chat')"
                " && document.activeElement.matches('button, a[href], input')"
            ):
                assert seen[1], f"no visible focus on {seen[0]}"
                reached.add(seen[0])
        assert len(reached) == wanted

    def test_the_move_log_follows_the_game_and_the_last_turn_is_marked_and_spoken(self) -> None:
        game = game_between(*users("anna", "boris"))
        players = {0: self.player("anna"), 1: self.player("boris")}
        play_turns(game, players, 13)
        # The player not to move watches the other's fourteenth turn arrive.
        mover = ("anna", "boris")[to_move(game)]
        page = players[1 - to_move(game)]
        open_table(page, self.live_server_url, game)
        play_turns(game, players, 1)
        expect(page.locator("#table")).to_have_attribute("data-ply", "14", timeout=LIVE)
        turns = page.locator(".move-log__list li")
        expect(turns).to_have_count(14)
        expect(turns.last).to_contain_text(f"14. {mover}")
        expect(turns.last).to_have_attribute("aria-current", "step")
        expect(turns.last).to_be_in_viewport()  # the list scrolled to the newest turn
        log = page.locator(".move-log__list").bounding_box()
        number = turns.nth(9).locator(".move-log__n").bounding_box()
        assert log is not None and number is not None
        assert number["x"] >= log["x"], "turn 10's number is clipped"
        expect(page.locator("#table-announcer")).to_have_text(
            re.compile(rf"^{mover} (led|beat|took) "), timeout=LIVE
        )
        expect(page).to_have_title(re.compile(r"^● Your turn · Game \d+"))
        if page.locator(".pile__card").count():
            expect(page.locator(".pile .card--moved").first).to_be_visible()
        page.screenshot(path=self.artifacts / "table-move-log.png", full_page=True)

    def test_a_board_built_by_turn_updates_is_the_board_a_reload_draws(self) -> None:
        # Each turn's update swaps only the pieces it changed: after many of them, every
        # viewer's board must still be the one the server draws whole.
        game = game_between(*users("anna", "boris"))
        players = {0: self.player("anna", game), 1: self.player("boris", game)}
        watcher = self.new_page()
        open_table(watcher, self.live_server_url, game)
        play_turns(game, players, 24)
        pieces = "#seat-head-0, #seat-head-1, #hand-0, #hand-1, #pile, #table-notes, #controls"

        def board(page: Page) -> list[str]:
            expect(page.locator("#table")).to_have_attribute("data-ply", "24", timeout=LIVE)
            drawn = page.locator(pieces).evaluate_all("all => all.map(e => e.outerHTML)")
            log = page.locator(".move-log__list li").all_inner_texts()
            spoken = page.locator("#table-turn").inner_text()
            # A page's own forms carry its token; the socket's do not (table.js sends it).
            ignored = r' tabindex="-1"|<input type="hidden" name="csrfmiddlewaretoken"[^>]*>'
            return [re.sub(ignored, "", html) for html in drawn] + log + [spoken]

        for page in (*players.values(), watcher):
            updated = board(page)
            page.reload()
            wait_for_socket(page)
            assert board(page) == updated
        players[to_move(game)].screenshot(
            path=self.artifacts / "table-after-updates.png", full_page=True
        )

    def test_the_deal_commitment_a_player_opened_stays_open_as_turns_arrive(self) -> None:
        game = game_between(*users("anna", "boris"))
        players = {0: self.player("anna"), 1: self.player("boris")}
        page = players[0]
        open_table(page, self.live_server_url, game)
        full = page.locator("details.commitment .commitment__full")
        page.locator("details.commitment summary").click()
        expect(full).to_be_visible()
        play_turns(game, players, 2)  # two new tables swapped in
        expect(page.locator("#table")).to_have_attribute("data-ply", "2", timeout=LIVE)
        expect(full).to_be_visible()
        page.screenshot(path=self.artifacts / "table-commitment-open.png", full_page=True)
        page.locator("details.commitment summary").click()  # closed, it stays closed
        expect(full).to_be_hidden()
        play_turns(game, players, 1)
        expect(page.locator("#table")).to_have_attribute("data-ply", "3", timeout=LIVE)
        expect(full).to_be_hidden()

    def test_the_move_log_shows_whole_names_and_each_turn_on_one_line(self) -> None:
        game = against_the_computer_with_beats("anna", 12)
        for language, computer in (("en", "Computer (beginner)"), ("he", "מחשב (מתחילים)")):
            context = self.browser.new_context(
                locale=language, viewport={"width": 1280, "height": 800}
            )
            page = context.new_page()
            log_in(page, self.live_server_url, "anna")
            open_table(page, self.live_server_url, game)
            lines = page.evaluate(READ_MOVE_LOG)
            page.screenshot(path=self.artifacts / f"table-move-log-{language}.png")
            context.close()
            assert len(lines) == 12
            assert any("-" in turn for _, _, turn, _ in lines)  # two-card turns, as "TC-9D"
            assert {name for name, *_ in lines} == {"anna", computer}
            assert [(name, whole) for name, whole, *_ in lines if not whole] == [], language
            assert [turn for _, _, turn, count in lines if count != 1] == [], language

    def test_a_draw_offer_is_shown_to_its_offerer_and_a_decline_is_told(self) -> None:
        anna, boris = users("anna", "boris")
        game = game_between(anna, boris)
        offering, offered = self.player("anna", game), self.player("boris", game)
        offering.get_by_role("button", name="Offer a draw").click()
        expect(offering.locator(".actions")).to_contain_text("You offered a draw")
        expect(offered.locator(".actions")).to_contain_text("Your opponent offers a draw.")
        offered.get_by_role("button", name="Decline").click()
        for page in (offering, offered):
            expect(page.locator(".actions")).to_contain_text(
                "The draw offer was declined.", timeout=LIVE
            )
        offering.get_by_role("button", name="Offer a draw").click()
        offering.get_by_role("button", name="Withdraw the offer").click()
        expect(offered.get_by_role("button", name="Accept the draw")).to_have_count(0)
        expect(offering.get_by_role("button", name="Offer a draw")).to_be_visible()

    def test_a_banned_players_open_page_is_told(self) -> None:
        anna, boris, mila = users("anna", "boris", "mila")
        in_a_thread(lambda: moderation.moderator_grant(user=mila))
        game = game_between(anna, boris)
        page = self.player("boris", game)
        post(self.player("mila"), "/moderation/users/boris/ban/", {"ban-reason": "abuse"})
        expect(page.locator("#socket-refused .notice")).to_be_visible(timeout=LIVE)
        expect(page.locator("#socket-refused")).to_contain_text("has been banned")

    def test_the_games_list_address_and_filters_agree_at_every_step(self) -> None:
        page = self.new_page()
        page.goto(f"{self.live_server_url}/games/")
        page.select_option("#id_deck", "24")
        expect(page).to_have_url(re.compile(r"deck=24"))
        page.focus("#id_must_beat")
        page.select_option("#id_must_beat", "yes")
        expect(page).to_have_url(re.compile(r"deck=24.*must_beat=yes"))
        expect(page.locator("#id_must_beat")).to_be_focused()  # the swap keeps one's place
        page.go_back()
        expect(page).to_have_url(re.compile(r"deck=24&must_beat=&"))
        expect(page.locator("#id_deck")).to_have_value("24")
        expect(page.locator("#id_must_beat")).to_have_value("")

    def test_quick_arrow_presses_in_the_replay_all_count(self) -> None:
        anna, boris = users("anna", "boris")
        game = game_between(anna, boris)
        play_turns(game, {0: self.player("anna"), 1: self.player("boris")}, 12)
        in_a_thread(lambda: game_resign(game_id=game.pk, user=anna))
        page = self.new_page()
        page.goto(f"{self.live_server_url}/games/{game.pk}/replay/?ply=0")
        for _ in range(7):
            page.keyboard.press("ArrowRight")
        expect(page.locator("#replay")).to_have_attribute("data-ply", "7", timeout=LIVE)
        expect(page).to_have_url(re.compile(r"\?ply=7$"))
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")
        expect(page.locator("#replay")).to_have_attribute("data-ply", "5", timeout=LIVE)

    def test_an_imported_records_analysis_reads_in_words_marks_slips_and_draws_its_values(
        self,
    ) -> None:
        anna, boris = users("anna", "boris")
        game = game_between(anna, boris)
        play_turns(game, {0: self.player("anna"), 1: self.player("boris")}, 4)
        in_a_thread(lambda: game_resign(game_id=game.pk, user=anna))

        def import_and_analyse() -> int:
            text = replay_of_game(Game.objects.get(pk=game.pk)).record.to_text()
            imported = archive_services.imported_game_create(
                text=text.replace("resignation", "last_card"), user=None
            )
            # Estimates for the player to move: the third turn drops its player's from +0.2 to
            # -0.2, a mistake; the others lose too little to grade.
            values = [0.1, -0.1, 0.2, 0.2, -0.2]
            Analysis.objects.create(
                imported=imported,
                status=Analysis.Status.DONE,
                seconds=1,
                positions=[
                    {"value": v, "best": [], "exact": False, "depth": 3, "method": "search"}
                    for v in values
                ],
                done=5,
                total=5,
            )
            return imported.pk

        pk = in_a_thread(import_and_analyse)
        page = self.new_page()
        page.goto(f"{self.live_server_url}/records/{pk}/?ply=3")
        expect(page.locator(".replay-head__result")).to_contain_text("beat with the last card")
        expect(page.locator(".replay-head__result")).not_to_contain_text("last_card")
        expect(page.locator(".analysis__value")).to_contain_text("+0.20")
        expect(page.locator(".analysis")).to_contain_text("a sure loss")  # the scale, explained
        expect(page.locator(".analysis__played")).to_contain_text(
            "Mistake ? the value fell from +0.20 to -0.20."
        )
        marks = page.locator(".move-log__list--replay .mark")
        expect(marks).to_have_count(1)
        expect(page.locator(".move-log__list--replay li").nth(3)).to_contain_text("3. ")
        expect(page.locator(".move-log__list--replay li").nth(3).locator(".mark")).to_have_text("?")
        chart = page.locator(".value-chart svg")
        expect(chart).to_be_visible()
        assert (page.locator(".value-chart__line").get_attribute("points") or "").count(",") == 5
        page.screenshot(path=self.artifacts / "replay-analysis.png", full_page=True)

    def test_games_being_played_are_listed_to_watch(self) -> None:
        game_between(*users("anna", "boris"))
        page = self.new_page()
        page.goto(self.live_server_url)
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Watch").click()
        expect(page.get_by_role("heading", name="Games being played")).to_be_visible()
        page.get_by_role("link", name=re.compile(r"^Watch anna . boris$")).click()
        expect(page.locator(".controls")).to_contain_text("You are watching.")

    def test_the_site_has_an_icon(self) -> None:
        page = self.new_page()
        response = page.request.get(f"{self.live_server_url}/favicon.ico")
        assert response.ok
        assert response.headers["content-type"].startswith("image/")
