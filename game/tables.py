"""The live table's view model: what the table partial shows to one viewer, and its rendering.

A :class:`Table` is read off the game's stored state (never a replay of the
log). Its rendering depends only on the game's version, the viewer's seat (or
a spectator's, logged in or not) and the moment, so consumers render it once
per version and viewer and send the same bytes to every socket of that viewer
(:class:`TableCache`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from functools import lru_cache

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from game import engine
from game.forms import JoinForm
from game.models import Game
from game.selectors import ABANDON_AFTER, abandoned, stored_state
from game.turns import Turn, moved_cards, spoken, turns_of


@dataclass(frozen=True)
class Seat:
    """One side of the table as a viewer sees it."""

    index: int
    name: str
    trump: engine.Suit
    hand: list[engine.Card]
    clock_ms: int | None
    to_move: bool


@dataclass(frozen=True)
class Table:
    """Everything the table partial shows to one viewer."""

    game: Game
    #: The viewer's seat, or ``None`` for a spectator (who sees seat 0 at the bottom).
    viewer: int | None
    #: The game as it stands; ``None`` while a seek waits for its opponent (nothing is dealt).
    state: engine.GameState | None = None
    #: The turns played, in notation.
    moves: tuple[str, ...] = ()
    bottom: Seat | None = None
    top: Seat | None = None
    #: The beating card the viewer picked and the second cards that may follow it.
    beater: engine.Card | None = None
    seconds: tuple[engine.Card, ...] = ()

    @property
    def turns(self) -> tuple[Turn, ...]:
        """The move log, each turn with its mover."""
        names = (self.game.seat_name(0), self.game.seat_name(1))
        return turns_of(self.moves, self.game.first_player or 0, names)

    @property
    def last_turn(self) -> Turn | None:
        return self.turns[-1] if self.moves else None

    @property
    def moved(self) -> frozenset[engine.Card]:
        """The cards the last turn put on the pile: marked, as in the replay."""
        return moved_cards(self.last_turn)

    @property
    def last_turn_spoken(self) -> str:
        """The last turn in words, for the screen reader's announcement."""
        turn = self.last_turn
        return spoken(turn, self.pile) if turn is not None else ""

    @property
    def repetitions(self) -> int:
        """How many times the position on the table has arisen (the third is a draw)."""
        return self.state.repetitions() if self.state is not None else 1

    @property
    def draw_declined(self) -> bool:
        """A draw offer was declined since the last turn."""
        return self.game.draw_declined_ply == self.ply and self.game.draw_offer is None

    @property
    def position(self) -> engine.Position:
        assert self.state is not None, "a seek has no cards dealt"
        return self.state.position

    @property
    def ply(self) -> int:
        return self.state.ply if self.state is not None else 0

    @property
    def waiting_on_opponent(self) -> bool:
        return (
            self.viewer is not None
            and self.game.status == Game.Status.ACTIVE
            and self.position.to_move != self.viewer
        )

    @property
    def may_claim_abandoned(self) -> bool:
        """The viewer waits in an untimed game for an opponent gone silent too long."""
        return self.waiting_on_opponent and abandoned(self.game)

    @property
    def claim_possible_in(self) -> int | None:
        """Seconds until the viewer may claim an untimed game from a silent opponent."""
        game = self.game
        if not self.waiting_on_opponent or game.is_timed or game.turn_started_at is None:
            return None
        left = (game.turn_started_at + ABANDON_AFTER - timezone.now()).total_seconds()
        return max(1, int(left) + 1) if left > 0 else None

    @property
    def my_turn(self) -> bool:
        return (
            self.viewer is not None
            and self.game.status == Game.Status.ACTIVE
            and self.position.to_move == self.viewer
        )

    @property
    def pile(self) -> tuple[engine.Card, ...]:
        return self.position.pile

    @property
    def urls(self) -> dict[str, str]:
        return game_urls(self.game.pk)

    def _legal(self) -> list[engine.Move]:
        return list(self.position.legal_moves()) if self.my_turn else []

    @property
    def take_count(self) -> int | None:
        """How many a take would pick up, when taking is legal for the viewer now."""
        return self.position.take_count() if engine.TAKE in self._legal() else None

    @property
    def playable(self) -> set[engine.Card]:
        """Cards of the viewer's hand that start a legal turn (a lead, a beat, a last card)."""
        return {m.card for m in self._legal() if m.card is not None}


#: The table's actions (``game:action``), by the names the template reads them under.
_ACTIONS = ("abort", "cancel", "claim-abandoned", "decline-draw", "offer-draw", "resign")


@lru_cache(maxsize=4096)
def game_urls(game_id: int) -> dict[str, str]:
    """The addresses a game's table links and posts to, worked out once per game: a table is
    rendered on every turn, and reversing them each time was a tenth of its cost."""
    urls = {
        name: reverse(f"game:{name}", args=[game_id])
        for name in ("table", "move", "join", "rematch", "replay", "claim_timeout")
    }
    for action in _ACTIONS:
        urls[action.replace("-", "_")] = reverse("game:action", args=[game_id, action])
    return urls


def sorted_hand(position: engine.Position, seat: int) -> list[engine.Card]:
    """A hand ordered by suit, the holder's trumps last, then by rank."""
    trump = position.trumps[seat]
    return sorted(position.hand(seat), key=lambda c: (c.suit == trump, c.suit, c.rank))


def table_for(game: Game, viewer: int | None, beater: str | None = None) -> Table:
    """The table of ``game`` as the holder of seat ``viewer`` (``None``: a spectator) sees it,
    with ``beater`` picked (a beat's first click)."""
    if game.status == Game.Status.SEEKING or not game.trump1:
        return Table(game, viewer)
    state = stored_state(game)
    position = state.position
    clocks = [game.clock0_ms, game.clock1_ms]
    mover = position.to_move
    running = clocks[mover]
    if running is not None and game.status == Game.Status.ACTIVE and game.turn_started_at:
        # The mover's clock has been running since their turn began.
        elapsed = (timezone.now() - game.turn_started_at).total_seconds() * 1000
        clocks[mover] = max(0, int(running - elapsed))

    def seat(index: int) -> Seat:
        return Seat(
            index=index,
            name=game.seat_name(index),
            trump=position.trumps[index],
            hand=sorted_hand(position, index),
            clock_ms=clocks[index],
            to_move=game.status == Game.Status.ACTIVE and position.to_move == index,
        )

    bottom = 0 if viewer is None else viewer
    picked: engine.Card | None = None
    seconds: tuple[engine.Card, ...] = ()
    if beater and viewer == mover and game.status == Game.Status.ACTIVE:
        try:
            card = engine.Card.parse(beater)
        except engine.EngineError:
            card = None
        followers = {m.second for m in position.legal_moves() if m.card == card}
        followers.discard(None)
        if followers:
            picked = card
            seconds = tuple(c for c in sorted_hand(position, mover) if c in followers)
    moves = tuple(game.moves.order_by("ply").values_list("notation", flat=True))
    return Table(game, viewer, state, moves, seat(bottom), seat(1 - bottom), picked, seconds)


def render_table(table: Table, *, request: HttpRequest | None = None, **context: object) -> str:
    """The table partial; ``context`` may add an error message."""
    context = {"table": table, "join_form": JoinForm(), **context}
    return render_to_string("game/_table.html", context, request=request)


# --- One rendering per version and viewer -------------------------------------------------------


@dataclass
class _Rendered:
    version: int
    html: str
    at: float = field(default_factory=time.monotonic)


class TableCache:
    """The latest table of each game per viewer, shared by every socket in this process.

    ``get`` answers with the table at ``version`` or newer: the first caller
    renders it (in a thread: it reads the database), the others at the same
    time await that one rendering. The running clocks in it are read when it is
    rendered, so a copy older than ``max_age`` seconds is not given to a socket
    that just connected.
    """

    def __init__(self, max_age: float = 1.0) -> None:
        self.max_age = max_age
        self._latest: dict[int, dict[Hashable, _Rendered]] = {}  # by game, then viewer
        self._pending: dict[tuple[int, Hashable], asyncio.Future[_Rendered]] = {}
        self._sockets: dict[int, int] = {}

    async def get(
        self,
        game_id: int,
        viewer: Hashable,
        version: int,
        render: Callable[[], Awaitable[tuple[int, str]]],
        *,
        fresh: bool = False,
    ) -> tuple[int, str]:
        key = (game_id, viewer)
        tables = self._latest.setdefault(game_id, {})
        while True:
            latest = tables.get(viewer)
            if (
                latest is not None
                and latest.version >= version
                and (not fresh or time.monotonic() - latest.at <= self.max_age)
            ):
                return latest.version, latest.html
            pending = self._pending.get(key)
            if pending is None:
                break
            await asyncio.shield(pending)
            fresh = False  # what was just rendered is fresh enough
        future: asyncio.Future[_Rendered] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            rendered_version, html = await render()
            rendered = _Rendered(rendered_version, html)
            latest = tables.get(viewer)
            if latest is None or latest.version <= rendered.version:
                tables[viewer] = rendered
            future.set_result(rendered)
            return rendered.version, rendered.html
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: awaiting sockets re-raise it themselves
            raise
        finally:
            del self._pending[key]

    def watch(self, game_id: int) -> None:
        """A socket of this process started watching the game."""
        self._sockets[game_id] = self._sockets.get(game_id, 0) + 1

    def unwatch(self, game_id: int) -> None:
        """A socket stopped watching; the game's tables go with its last socket."""
        left = self._sockets.get(game_id, 0) - 1
        if left > 0:
            self._sockets[game_id] = left
            return
        self._sockets.pop(game_id, None)
        self._latest.pop(game_id, None)
