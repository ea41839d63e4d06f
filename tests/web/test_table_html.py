"""The table's HTML against golden copies: each state a table shows (a seek, the deal's lead, a
beat's second cards, a forced take, a last card, draws offered and declined, a repetition, a
silent opponent, the clocks, the computer, the results), for each seat and for spectators, in
English and in Hebrew, with the cards other pages draw through the same markup (a replay's step,
the rules' card chips).

The copies in ``tests/web/tables/`` were written by the table's markup
(``game/table_markup.py``) and held while it was tried as Jinja2 templates (issue 45,
docs/serving.md); ``WRITE_GOLDEN_TABLES=1`` writes them afresh after a change made on purpose.
The game's id, its invite link and the CSRF token vary from run to run and are written as
placeholders. Escaped quotes are compared as the characters they stand for (``&#39;`` or
``&#x27;``, ``&#34;`` or ``&quot;``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.template import Context, Template
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone, translation

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


CASES = {
    "seek-creator": Case(seek, "alice", "request"),
    "seek-creator-he": Case(seek, "alice", "request", "he"),
    "seek-creator-socket": Case(seek, "alice"),
    "seek-joiner": Case(seek, "carol", "request"),
    "seek-anonymous": Case(seek, None, "request"),
    "seek-private": Case(lambda p: seek(p, private=True), "carol", "request"),
    "seek-cancelled": Case(cancelled, "carol"),
    "seek-stopped-he": Case(stopped, None, language="he"),
    "lead-mover": Case(lambda p: settled(played(p, 0)), "alice", "request"),
    "lead-mover-he": Case(lambda p: settled(played(p, 0)), "alice", language="he"),
    "lead-waiting": Case(lambda p: settled(played(p, 0)), "bob"),
    "lead-spectator": Case(lambda p: settled(played(p, 0)), None),
    "beat-mover": Case(lambda p: settled(played(p, 1)), "bob"),
    "beat-mover-he": Case(lambda p: settled(played(p, 1)), "bob", language="he"),
    "beat-mover-refused": Case(
        lambda p: settled(played(p, 1)), "bob", "request", error="It is not your turn <now>."
    ),
    "beat-waiting": Case(lambda p: settled(played(p, 1)), "alice"),
    "beat-spectator": Case(lambda p: settled(played(p, 1)), "carol"),
    "must-take": Case(lambda p: settled(played(p, 6)), "alice"),
    "many-beats": Case(lambda p: settled(played(p, 22)), "alice", "request"),
    "many-beats-he": Case(lambda p: settled(played(p, 22)), "alice", language="he"),
    "two-cards-left": Case(lambda p: settled(played(p, 48)), "alice"),
    "last-card": Case(lambda p: settled(played(p, 20, seed=14)), "alice"),
    "draw-offered-by-me": Case(draw_offered, "alice", "request"),
    "draw-offered-to-me": Case(draw_offered, "bob", "request"),
    "draw-offered-to-me-he": Case(draw_offered, "bob", language="he"),
    "draw-offered-spectator": Case(draw_offered, "carol"),
    "draw-declined": Case(draw_declined, "alice"),
    "draw-declined-he": Case(draw_declined, "bob", language="he"),
    "repetition": Case(repeated, "alice"),
    "repetition-he": Case(repeated, None, language="he"),
    "abandoned": Case(lambda p: silent(p, 600), "alice", "request"),
    "abandoned-he": Case(lambda p: silent(p, 600), "alice", language="he"),
    "claim-soon": Case(lambda p: silent(p, 100), "alice"),
    "computer": Case(computer, "alice"),
    "timed-mover": Case(timed, "bob"),
    "timed-waiting": Case(timed, "alice", "request"),
    "timed-spectator-he": Case(timed, None, language="he"),
    "won-winner": Case(lambda p: played(p, None), "alice", "request"),
    "won-loser": Case(lambda p: played(p, None), "bob"),
    "won-spectator": Case(lambda p: played(p, None), None),
    "won-winner-he": Case(lambda p: played(p, None), "alice", language="he"),
    "rematch-asked-of-me": Case(rematch_asked, "alice", "request"),
    "rematch-asked-by-me-he": Case(rematch_asked, "bob", language="he"),
    "drawn": Case(lambda p: played(p, None, seed=14), "alice"),
    "resigned": Case(resigned, "bob"),
    "aborted-he": Case(aborted, "alice", language="he"),
    "annulled": Case(annulled, "carol"),
}


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
    if os.environ.get("WRITE_GOLDEN_TABLES") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(html, encoding="utf-8")
    # markupsafe's spelling of the two escaped quotes, read as Django's.
    html = html.replace("&#39;", "&#x27;").replace("&#34;", "&quot;")
    assert html == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", CASES)
def test_the_table_is_written_as_its_golden_copy(name: str, players: Players) -> None:
    same_as_golden(name, render(CASES[name], players))


@pytest.mark.parametrize("language", ["en", "he"])
def test_a_replay_step_draws_its_seats_and_pile_as_its_golden_copy(
    language: str, players: Players
) -> None:
    same_as_golden(f"replay-{language}", replay_step(players, language))


def test_the_card_chips_are_written_as_their_golden_copy() -> None:
    same_as_golden("chips", chips())


def test_the_golden_copies_show_what_their_names_say() -> None:
    """The cases reach the states they are named for (a change of the deal or of the turns'
    seed would otherwise quietly compare other tables)."""
    read = {path.stem: path.read_text(encoding="utf-8") for path in GOLDEN.glob("*.html")}

    assert set(read) == {*CASES, "replay-en", "replay-he", "chips"}
    assert "Cancel the game" in read["seek-creator"]
    assert "Join the game" in read["seek-joiner"]
    assert "Log in to join." in read["seek-anonymous"]
    assert "Game cancelled" in read["seek-cancelled"]
    assert read["lead-mover"].count("data-turn") == 12
    assert 'class="second-cards"' in read["beat-mover"] and "button--take" in read["beat-mover"]
    assert "It is not your turn &lt;now&gt;." in read["beat-mover-refused"]
    assert 'class="second-cards"' not in read["must-take"] and "button--take" in read["must-take"]
    # Many beating cards, one set of second cards that each of them shows.
    assert read["many-beats"].count("data-beater=") > 5
    assert read["many-beats"].count('id="seconds"') == 1
    assert "Beat with your last card" in read["last-card"]
    assert "You offered a draw" in read["draw-offered-by-me"]
    assert "Accept the draw" in read["draw-offered-to-me"]
    assert "The draw offer was declined." in read["draw-declined"]
    assert "arisen for the second time" in read["repetition"]
    assert "Claim the game" in read["abandoned"]
    assert 'hx-trigger="load delay:200s"' in read["claim-soon"]
    assert "Computer (" in read["computer"] and "Offer a draw" not in read["computer"]
    assert ">0:09.4</span>" in read["timed-mover"] and "data-claim" in read["timed-mover"]
    assert "<bdi>alice</bdi> wins" in read["won-winner"] and "Rematch" in read["won-winner"]
    assert "asks for a rematch" in read["rematch-asked-of-me"]
    assert "<h2>Draw</h2>" in read["drawn"]
    assert 'class="pile"' in read["replay-en"] and 'class="seat' in read["replay-he"]
    assert "&lt;b&gt;&amp;" in read["beat-mover"]  # seat 1's name, escaped
