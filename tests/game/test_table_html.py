"""The table's HTML (``templates/jinja2/game/``): each state a table shows (a seek, the deal's
lead, a beat's second cards, a forced take, a last card, draws offered and declined, a repetition,
a silent opponent, the clocks, the computer, the results), for each seat and for spectators, in
English and in Hebrew, shows what that state says; and a handful of them, with the cards other
pages draw through the same partials (a replay's step), are held against golden copies in
``tests/game/tables/``, which ``WRITE_GOLDEN_TABLES=1`` writes afresh after a change made on
purpose. The game's id, its invite link and the CSRF token vary from run to run and are written
as placeholders. Escaped quotes are compared as the characters they stand for (``&#39;`` or
``&#x27;``, ``&#34;`` or ``&quot;``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from html import unescape
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.template import Context, Template
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext

from game.engine.state import repetition_key
from game.models import Game
from game.selectors import stored_state
from game.services.endings import game_abort, game_decline_draw, game_offer_draw, game_resign
from game.services.moderators import game_abort_by_moderator, game_annul
from game.services.starting import game_cancel_seek, game_create_seek, game_rematch
from game.table_markup import render_table
from game.tables import table_for
from tests.games import dealt_game, play_turns

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).with_name("tables")
#: Seat 1's name needs escaping everywhere it is written.
TRICKY_NAME = 'o\'bob "<b>&"'


@dataclass(frozen=True)
class Players:
    alice: object  # seat 0
    bob: object  # seat 1
    carol: object  # a spectator, logged in

    def __getitem__(self, name: str | None) -> object:
        return AnonymousUser() if name is None else getattr(self, name)


@pytest.fixture
def players() -> Players:
    users = get_user_model().objects
    return Players(
        users.create_user("alice", password="pw-alice-123"),
        users.create_user(TRICKY_NAME, password="pw-bob-123"),
        users.create_user("carol", password="pw-carol-123"),
    )


# --- The games, each brought to the state its tables show -----------------------------------


def seek(p: Players, *, private: bool = False) -> Game:
    return game_create_seek(user=p.alice, trump="S", private=private)


def dealt(p: Players, *, time_control: tuple[int, int] | None = None) -> Game:
    """A 24-card game dealt from :data:`tests.games.DEAL`: seat 0 (alice) leads."""
    return dealt_game(p.alice, p.bob, time_control)


def played(p: Players, turns: int | None, seed: int = 6) -> Game:
    """:func:`dealt`, then ``turns`` seeded turns (``None``: to the end). With seed 6 seat 1
    beats at ply 1 (second cards and a take), seat 0 must take at ply 6, has 19 cards and 144
    second cards at ply 22, two cards at ply 48, and wins at ply 49; seed 14 comes to a beat
    with seat 0's last card at ply 20 and a draw at ply 21."""
    return play_turns(dealt(p), (p.alice, p.bob), seed, turns)


def settled(game: Game, **fields: object) -> Game:
    """The game with no turn under way (the clocks and the claims read the moment otherwise),
    and ``fields`` stored."""
    Game.objects.filter(pk=game.pk).update(**{"turn_started_at": None, **fields})
    return game


def cancelled(p: Players) -> Game:
    return game_cancel_seek(game_id=seek(p).pk, user=p.alice)


def stopped(p: Players) -> Game:
    return game_abort_by_moderator(game_id=seek(p).pk)


def draw_offered(p: Players) -> Game:
    game = settled(played(p, 3))
    return game_offer_draw(game_id=game.pk, user=p.alice)


def draw_declined(p: Players) -> Game:
    game = draw_offered(p)
    return game_decline_draw(game_id=game.pk, user=p.bob)


def repeated(p: Players) -> Game:
    game = settled(played(p, 2))
    game = Game.objects.get(pk=game.pk)
    game.state["seen"][repetition_key(stored_state(game).position.key)] = 2
    game.save(update_fields=["state"])
    return game


def silent(p: Players, seconds: int) -> Game:
    """Seat 0 waits at ply 3 on a seat 1 silent for ``seconds``."""
    game = played(p, 3)
    started = timezone.now() - timedelta(seconds=seconds)
    Game.objects.filter(pk=game.pk).update(turn_started_at=started)
    return game


def computer(p: Players) -> Game:
    """A game against the computer, as stored: no second player, a level."""
    return settled(played(p, 2), seat1=None, ai_level="easy")


def timed(p: Players) -> Game:
    game = play_turns(dealt(p, time_control=(3, 2)), (p.alice, p.bob), 6, 3)
    return settled(game, clock0_ms=172_000, clock1_ms=9_450)


def rematch_asked(p: Players) -> Game:
    game = played(p, None)
    game_rematch(game_id=game.pk, user=p.bob)
    return game


def resigned(p: Players) -> Game:
    return game_resign(game_id=played(p, 4).pk, user=p.alice)


def aborted(p: Players) -> Game:
    return game_abort(game_id=played(p, 1).pk, user=p.alice)


def annulled(p: Players) -> Game:
    return game_annul(game_id=played(p, None).pk)


# --- The cases: a game, a viewer, the way the table is asked for, a language -------------------


@dataclass(frozen=True)
class Case:
    game: Callable[[Players], Game]
    viewer: str | None  # alice or bob (the seats), carol or None (spectators)
    #: "socket": rendered for the user, as a socket's table; "request": for a page's request,
    #: with its CSRF token in every form.
    via: str = "socket"
    language: str = "en"
    error: str | None = None
    #: Messages (in English, looked up in the case's language) and markup the table shows...
    shows: tuple[str, ...] = ()
    #: ...and those it must not.
    hides: tuple[str, ...] = ()


YOUR_LEAD = "Your turn: lead any card."
YOUR_BEAT = "Your turn: beat the top card (pick the beating card), or take."
WAITING, WATCHING = "Waiting for your opponent…", "You are watching."
SECONDS, TAKE = 'id="seconds"', 'value="take"'
PLAYER_ACTIONS = ("Offer a draw", "Resign")

CASES = {
    "seek-creator": Case(seek, "alice", "request", shows=("Cancel the game", "Deal commitment")),
    "seek-creator-he": Case(seek, "alice", "request", "he", shows=("Cancel the game",)),
    "seek-creator-socket": Case(seek, "alice", shows=("Cancel the game",), hides=("CSRF",)),
    "seek-joiner": Case(seek, "carol", "request", shows=("Join the game",)),
    "seek-anonymous": Case(seek, None, "request", shows=("Log in to join.",)),
    "seek-private": Case(
        lambda p: seek(p, private=True), "carol", "request", shows=("invitation only",)
    ),
    "seek-cancelled": Case(cancelled, "carol", shows=("Game cancelled",)),
    "seek-stopped-he": Case(stopped, None, language="he", shows=("Back to the lobby",)),
    "lead-mover": Case(
        lambda p: settled(played(p, 0)), "alice", "request", shows=(YOUR_LEAD, "Lead the")
    ),
    "lead-mover-he": Case(
        lambda p: settled(played(p, 0)), "alice", language="he", shows=(YOUR_LEAD,)
    ),
    "lead-waiting": Case(
        lambda p: settled(played(p, 0)), "bob", shows=(WAITING, *PLAYER_ACTIONS, "Abort")
    ),
    "lead-spectator": Case(
        lambda p: settled(played(p, 0)), None, shows=(WATCHING,), hides=("data-turn", "Resign")
    ),
    "beat-mover": Case(lambda p: settled(played(p, 1)), "bob", shows=(YOUR_BEAT, SECONDS, TAKE)),
    "beat-mover-he": Case(
        lambda p: settled(played(p, 1)), "bob", language="he", shows=(YOUR_BEAT, SECONDS)
    ),
    "beat-mover-refused": Case(
        lambda p: settled(played(p, 1)),
        "bob",
        "request",
        error="It is not your turn <now>.",
        shows=("It is not your turn &lt;now&gt;.",),
    ),
    "beat-waiting": Case(
        lambda p: settled(played(p, 1)), "alice", shows=(WAITING, "alice led"), hides=(SECONDS,)
    ),
    "beat-spectator": Case(lambda p: settled(played(p, 1)), "carol", shows=(WATCHING,)),
    "must-take": Case(lambda p: settled(played(p, 6)), "alice", shows=(TAKE,), hides=(SECONDS,)),
    "many-beats": Case(lambda p: settled(played(p, 22)), "alice", "request", shows=(SECONDS,)),
    "many-beats-he": Case(lambda p: settled(played(p, 22)), "alice", language="he"),
    "two-cards-left": Case(lambda p: settled(played(p, 48)), "alice", shows=(SECONDS, "2 cards")),
    "last-card": Case(
        lambda p: settled(played(p, 20, seed=14)), "alice", shows=("Beat with your last card",)
    ),
    "draw-offered-by-me": Case(
        draw_offered, "alice", "request", shows=("You offered a draw", "Withdraw the offer")
    ),
    "draw-offered-to-me": Case(
        draw_offered, "bob", "request", shows=("Accept the draw", "Decline")
    ),
    "draw-offered-to-me-he": Case(
        draw_offered, "bob", language="he", shows=("Your opponent offers a draw.",)
    ),
    "draw-offered-spectator": Case(
        draw_offered, "carol", shows=(WATCHING,), hides=("Accept the draw",)
    ),
    "draw-declined": Case(draw_declined, "alice", shows=("The draw offer was declined.",)),
    "draw-declined-he": Case(
        draw_declined, "bob", language="he", shows=("The draw offer was declined.",)
    ),
    "repetition": Case(repeated, "alice", shows=("arisen for the second time",)),
    "repetition-he": Case(
        repeated,
        None,
        language="he",
        shows=("This position has arisen for the second time — a third is a draw.",),
    ),
    "abandoned": Case(lambda p: silent(p, 600), "alice", "request", shows=("Claim the game",)),
    "abandoned-he": Case(
        lambda p: silent(p, 600), "alice", language="he", shows=("Claim the game",)
    ),
    "claim-soon": Case(
        lambda p: silent(p, 100),
        "alice",
        shows=('hx-trigger="load delay:200s"',),
        hides=("Claim the game",),
    ),
    "computer": Case(computer, "alice", shows=("Computer (",), hides=("Offer a draw",)),
    "timed-mover": Case(timed, "bob", shows=(">0:09.4</span>", "data-claim", "clock--running")),
    "timed-waiting": Case(timed, "alice", "request", shows=(">2:52</span>",)),
    "timed-spectator-he": Case(timed, None, language="he", shows=(">0:09.4</span>",)),
    "won-winner": Case(
        lambda p: played(p, None), "alice", "request", shows=("<bdi>alice</bdi> wins", "Rematch")
    ),
    "won-loser": Case(lambda p: played(p, None), "bob", shows=("Rematch", "Replay and analysis")),
    "won-spectator": Case(
        lambda p: played(p, None), None, shows=("Replay and analysis",), hides=("Rematch",)
    ),
    "won-winner-he": Case(lambda p: played(p, None), "alice", language="he", shows=("Rematch",)),
    "rematch-asked-of-me": Case(rematch_asked, "alice", "request", shows=("asks for a rematch",)),
    "rematch-asked-by-me-he": Case(rematch_asked, "bob", language="he"),
    "drawn": Case(lambda p: played(p, None, seed=14), "alice", shows=("<h2>Draw</h2>",)),
    "resigned": Case(resigned, "bob", shows=("Resignation",), hides=("data-turn",)),
    "aborted-he": Case(aborted, "alice", language="he", shows=("Game aborted",)),
    "annulled": Case(annulled, "carol", shows=("Annulled by a moderator",)),
}

#: The cases also held against golden copies: the markup of a lead, a beat (its second cards and
#: the take) in Hebrew, a page's forms, clocks, and a result.
GOLDEN_CASES = ("lead-mover", "beat-mover-he", "many-beats", "timed-waiting", "won-winner")


def placeholders(html: str, game: Game) -> str:
    """``html`` with what varies from run to run written as placeholders."""
    html = re.sub(r"/games/\d+/", "/games/ID/", html)
    html = html.replace(game.invite_token, "INVITE")
    if game.commitment:  # the whole, then the short form
        html = html.replace(game.commitment, "COMMITMENT").replace(game.commitment[:12], "COMMIT")
    return re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]+', r"\1CSRF", html)


def render(case: Case, players: Players) -> str:
    """The table of ``case`` as the site renders it: a socket's, or a page's."""
    game = case.game(players)
    game = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
    user = players[case.viewer]
    table = table_for(game, game.seat_of(user))
    with translation.override(case.language):
        if case.via == "request":
            request = RequestFactory().get(reverse("game:table", args=[game.pk]))
            request.user = user
            html = render_table(table, request=request, error=case.error)
        else:
            html = render_table(table, user=user, error=case.error)
    return placeholders(html, game)


def replay_step(players: Players, language: str) -> str:
    """A finished game's replay at ply 9, as a step of the replay viewer (htmx) asks for it."""
    game = played(players, None)
    url = reverse("archive:replay", args=[game.pk]) + "?ply=9"
    answer = Client().get(url, headers={"hx-request": "true", "accept-language": language})
    return placeholders(answer.content.decode(), game)


def chips() -> str:
    """The rules page's card chips (``{% cards %}``)."""
    return Template('{% load cards %}{% cards "9C TS JD AH" %}').render(Context())


def same_as_golden(name: str, html: str) -> None:
    path = GOLDEN / f"{name}.html"
    # markupsafe's spelling of the two escaped quotes, read as Django's.
    html = html.replace("&#39;", "&#x27;").replace("&#34;", "&quot;")
    if os.environ.get("WRITE_GOLDEN_TABLES") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(html, encoding="utf-8")
    assert html == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", CASES)
def test_the_table_shows_what_its_state_says(name: str, players: Players) -> None:
    case = CASES[name]
    html = render(case, players)
    with translation.override(case.language):
        wanted = {text: gettext(text) for text in case.shows}
        unwanted = {text: gettext(text) for text in case.hides}
    text = unescape(html)
    for english, shown in wanted.items():
        assert shown in html or shown in text, f"{name} lacks {english!r}"
    for english, hidden in unwanted.items():
        assert hidden not in html and hidden not in text, f"{name} shows {english!r}"
    # Seat 1's name is escaped wherever it is written.
    assert "<b>&" not in html


@pytest.mark.parametrize("name", GOLDEN_CASES)
def test_the_table_is_written_as_its_golden_copy(name: str, players: Players) -> None:
    same_as_golden(name, render(CASES[name], players))


def test_a_lead_is_one_form_of_the_cards_that_may_lead(players: Players) -> None:
    html = render(CASES["lead-mover"], players)
    hand = html.split('class="hand"')[2]  # the viewer's, at the bottom
    assert html.count("data-turn") == 1
    assert hand.count('name="move"') == 12


def test_a_beat_carries_each_beating_card_and_one_set_of_second_cards(players: Players) -> None:
    html = render(CASES["many-beats"], players)
    assert html.count("data-beater=") > 5
    assert html.count('id="seconds"') == 1
    assert html.count("data-second=") > 5


@pytest.mark.parametrize("language", ["en", "he"])
def test_a_replay_step_draws_its_seats_and_pile_as_its_golden_copy(
    language: str, players: Players
) -> None:
    html = replay_step(players, language)
    if language == "en":
        same_as_golden("replay-en", html)
    assert 'class="pile"' in html and html.count('<section class="seat') == 2
    assert "data-turn" not in html  # a replay plays nothing


def test_the_card_chips_name_each_card() -> None:
    html = chips()
    assert html.count('role="img"') == 4
    assert 'aria-label="ten of spades" title="ten of spades"' in html


def test_there_is_a_golden_copy_for_each_golden_case_and_no_other() -> None:
    assert {path.stem for path in GOLDEN.glob("*.html")} == {*GOLDEN_CASES, "replay-en"}
