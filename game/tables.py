"""The live table's view model: what the table partial shows to one viewer, and its rendering.

A :class:`Table` is read off the game's stored state (never a replay of the
log). Its rendering depends only on the game's version, the viewer's seat (or
a spectator's, logged in or not) and the moment, so consumers render it once
per version and viewer and send the same bytes to every socket of that viewer
(:class:`TableCache`); the tables of one version for all the game's viewers are
rendered together, from one read of the game.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from django.urls import reverse
from django.utils import timezone

from accounts.ratings import is_provisional, shown, signed
from accounts.selectors import game_rating_changes
from game import engine
from game.live import Moved
from game.models import Game
from game.selectors import ABANDON_AFTER, abandoned, stored_state
from game.turns import Turn, moved_cards, spoken, turn_at


@dataclass(frozen=True)
class Seat:
    """One side of the table as a viewer sees it."""

    index: int
    name: str
    trump: engine.Suit
    hand: list[engine.Card]
    clock_ms: int | None
    to_move: bool
    #: The holder's rating as a rated game began (``1500?``); empty when no rating is at stake.
    rating: str = ""


@dataclass(frozen=True)
class RatingChanged:
    """What a rated game did to one seat's rating, as its result shows it."""

    name: str
    #: The rating after the game, as shown (``1512``, ``1488?``).
    rating: str
    #: The change, signed (:func:`accounts.ratings.signed`).
    change: str
    #: ``up``, ``down`` or ``same``: the change's colour.
    direction: str


@dataclass(frozen=True)
class Table:
    """Everything the table partial shows to one viewer."""

    game: Game
    #: The viewer's seat, or ``None`` for a spectator (who sees seat 0 at the bottom).
    viewer: int | None
    #: The game as it stands; ``None`` while a seek waits for its opponent (nothing is dealt).
    state: engine.GameState | None = None
    #: The turns played, in notation: all of them for a whole table, the last one alone for a
    #: turn's update (:func:`game.table_markup.render_turn`).
    moves: tuple[str, ...] = ()
    bottom: Seat | None = None
    top: Seat | None = None
    #: What the tables of one version draw alike (the seats as shown, their heads and hands, the
    #: pile, the notes), rendered once for them all and dropped with them
    #: (:func:`game.table_markup.render_turn`).
    drawn: dict[Hashable, str] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def rating_changes(self) -> tuple[RatingChanged, ...]:
        """A rated game over: each seat's new rating and its change, seat 0's first; none for a
        casual game, or once annulled (the changes are taken back). Read when the result is."""
        game = self.game
        if not game.rated or game.status != Game.Status.FINISHED:
            return ()
        changes = game_rating_changes(game.pk)
        shown_changes = []
        for seat, user_id in enumerate((game.seat0_id, game.seat1_id)):
            change = changes.get(user_id) if user_id is not None else None
            if change is None:
                return ()
            after = shown(change.rating_after, is_provisional(change.deviation_after))
            direction = "up" if change.change > 0 else "down" if change.change < 0 else "same"
            name = game.seat_name(seat)
            shown_changes.append(RatingChanged(name, after, signed(change.change), direction))
        return tuple(shown_changes)

    @cached_property
    def last_turn(self) -> Turn | None:
        """The last turn with its mover (read several times a render: kept)."""
        if not self.moves or not self.ply:
            return None
        seat = ((self.game.first_player or 0) + self.ply - 1) % 2
        return Turn(self.ply, seat, self.game.seat_name(seat), self.moves[-1])

    @property
    def turns(self) -> list[Turn]:
        """The move log's turns with their movers, first to last (a whole table's)."""
        first, game = self.game.first_player or 0, self.game
        names = (game.seat_name(0), game.seat_name(1))
        return [turn_at(self.moves, ply, first, names) for ply in range(len(self.moves))]

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

    @cached_property
    def legal(self) -> tuple[engine.Move, ...]:
        """The viewer's legal turns now (none unless it is their turn); read by several parts."""
        return tuple(self.position.legal_moves()) if self.my_turn else ()

    @property
    def take_count(self) -> int | None:
        """How many a take would pick up, when taking is legal for the viewer now."""
        return self.position.take_count() if engine.TAKE in self.legal else None

    @property
    def playable(self) -> set[engine.Card]:
        """Cards of the viewer's hand that start a legal turn (a lead, a beat, a last card)."""
        return {m.card for m in self.legal if m.card is not None}

    @property
    def second_cards(self) -> tuple[engine.Card, ...]:
        """The cards of the viewer's hand that may follow a beat, in hand order: any card but the
        beating one may follow it (RULES.md), so the table carries one set for every beating
        card, and picking one asks the server nothing."""
        following = {m.second for m in self.legal if m.second is not None}
        if not following:
            return ()
        assert self.bottom is not None, "a beat is the viewer's, who has a seat"
        return tuple(card for card in self.bottom.hand if card in following)


#: The table's actions (``game:action``), by the names the template reads them under.
_ACTIONS = ("abort", "cancel", "claim-abandoned", "decline-draw", "offer-draw", "resign")


@lru_cache(maxsize=4096)
def game_urls(game_id: int) -> dict[str, str]:
    """The addresses a game's table links and posts to, worked out once per game: a table is
    rendered on every turn, and reversing them each time was a tenth of its cost."""
    urls = {
        name: reverse(f"game:{name}", args=[game_id])
        for name in ("table", "move", "join", "rematch", "claim_timeout")
    }
    urls["replay"] = reverse("archive:replay", args=[game_id])  # once the game is over
    for action in _ACTIONS:
        urls[action.replace("-", "_")] = reverse("game:action", args=[game_id, action])
    return urls


def sorted_hand(position: engine.Position, seat: int) -> list[engine.Card]:
    """A hand ordered by suit, the holder's trumps last, then by rank."""
    trump = position.trumps[seat]
    return sorted(position.hand(seat), key=lambda c: (c.suit == trump, c.suit, c.rank))


def table_for(game: Game, viewer: int | None) -> Table:
    """The table of ``game`` as the holder of seat ``viewer`` (``None``: a spectator) sees it."""
    return tables_for(game, [viewer])[0]


def tables_for(
    game: Game, viewers: Sequence[int | None], notations: Sequence[str] | None = None
) -> list[Table]:
    """The table of ``game`` for each of ``viewers`` (seats, ``None`` for a spectator), from one
    reading of its state and move log (its turns' ``notations``, when the caller has them)."""
    if game.status == Game.Status.SEEKING or not game.trump1:
        return [Table(game, viewer) for viewer in viewers]
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
            rating=game.seat_rating(index),
        )

    seats = [seat(0), seat(1)]
    if notations is None:
        notations = game.moves.order_by("ply").values_list("notation", flat=True)
    moves = tuple(notations)
    tables = []
    drawn: dict[Hashable, str] = {}
    for viewer in viewers:
        bottom = 0 if viewer is None else viewer
        tables.append(Table(game, viewer, state, moves, seats[bottom], seats[1 - bottom], drawn))
    return tables


# --- One rendering per version and viewer -------------------------------------------------------


@dataclass(frozen=True)
class Update:
    """What a viewer is sent at ``version``: a turn's update from the version ``base`` before it
    (:func:`game.table_markup.render_turn`), or the whole table (``base`` is ``None``)."""

    version: int
    html: str
    base: int | None = None


#: Renders one game's updates at ``version`` for the viewers given (each with the user of one of
#: its sockets: what is drawn depends on the viewer alone), a turn's when the change was the
#: ``turn`` given, else whole tables; answers each viewer's update.
RenderAll = Callable[
    [int, int, Mapping[Hashable, object], Moved | None], Awaitable[Mapping[Hashable, Update]]
]


class TableCache:
    """The latest update of each game per viewer, shared by every socket in this process: the
    one cache of the live path.

    ``get`` answers with the update at ``version`` or newer. The first caller renders those of
    every viewer the game's sockets here have (``render_all``: from the game as this process
    keeps it, or read in a thread); the others at the same time await that one rendering.
    """

    def __init__(self, render_all: RenderAll) -> None:
        self.render_all = render_all
        self._latest: dict[int, dict[Hashable, Update]] = {}  # by game, then viewer
        self._pending: dict[int, asyncio.Future[None]] = {}
        self._viewers: dict[int, dict[Hashable, list[Any]]] = {}  # by game: [sockets, a user]

    async def get(
        self, game_id: int, viewer: Hashable, version: int, turn: Moved | None = None
    ) -> Update:
        while True:  # read afresh after each wait: its renderer may have kept the first ones
            updates = self._latest.get(game_id, {})
            latest = updates.get(viewer)
            if latest is not None and latest.version >= version:
                return latest
            pending = self._pending.get(game_id)
            if pending is None:
                break
            await asyncio.shield(pending)
        # This viewer's update, and every other viewer's that is behind ``version``: after a
        # turn, all of them.
        viewers = {
            key: user
            for key, (_, user) in self._viewers.get(game_id, {}).items()
            if key == viewer or key not in updates or updates[key].version < version
        }
        if viewer not in viewers:
            raise LookupError(f"no socket watches game {game_id} as {viewer!r}")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending[game_id] = future
        try:
            rendered = await self.render_all(game_id, version, viewers, turn)
            watching = self._viewers.get(game_id, {})
            kept = self._latest.setdefault(game_id, {}) if watching else {}
            for key, update in rendered.items():
                if key in watching:
                    kept[key] = update
            future.set_result(None)
            return rendered[viewer]
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: awaiting sockets re-raise it themselves
            raise
        finally:
            del self._pending[game_id]

    def clear(self) -> None:
        """Forget every game's updates and viewers (between tests, whose games may share ids)."""
        self._latest.clear()
        self._pending.clear()
        self._viewers.clear()

    def watch(self, game_id: int, viewer: Hashable, user: object) -> None:
        """A socket of this process started watching the game as ``viewer`` (``user``'s)."""
        seen = self._viewers.setdefault(game_id, {}).setdefault(viewer, [0, user])
        seen[0] += 1

    def unwatch(self, game_id: int, viewer: Hashable) -> None:
        """A socket stopped watching; a viewer's update goes with its last socket, the game's
        updates with the game's last socket."""
        viewers = self._viewers.get(game_id, {})
        seen = viewers.get(viewer)
        if seen is not None:
            seen[0] -= 1
            if seen[0] <= 0:
                del viewers[viewer]
                self._latest.get(game_id, {}).pop(viewer, None)
        if not viewers:
            self._viewers.pop(game_id, None)
            self._latest.pop(game_id, None)
