"""Reads that several views, consumers and services share."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Q, QuerySet
from django.utils import timezone

from game import engine
from game.models import Game


def start_position(game: Game) -> engine.Position:
    """The deal of ``game``: its seed, trumps and rules, and the stored starting seat."""
    first = game.first_player
    return engine.deal(game.seed, game.trumps, game.rules, first=first)


def replay(game: Game) -> engine.Game:
    """The engine's game: the deal replayed through the stored move log, in ply order."""
    notations = game.moves.order_by("ply").values_list("notation", flat=True)
    return engine.Game.replay(start_position(game), notations)


def recent_games(user: object, limit: int = 20) -> QuerySet[Game]:
    """A player's latest games, either seat, newest first."""
    return (
        Game.objects.filter(Q(seat0=user) | Q(seat1=user))
        .exclude(status=Game.Status.SEEKING)
        .select_related("seat0", "seat1")
        .order_by("-created_at")[:limit]
    )


def games_in_play(user: object) -> QuerySet[Game]:
    """A player's games still going or still waiting for an opponent, newest first."""
    return (
        Game.objects.filter(Q(seat0=user) | Q(seat1=user))
        .filter(status__in=(Game.Status.ACTIVE, Game.Status.SEEKING))
        .select_related("seat0", "seat1")
        .order_by("-created_at")
    )


def player_record(user: object) -> dict[str, int]:
    """Finished games, and the player's wins, draws and losses in them; annulled games count
    for nothing."""
    finished = Game.objects.filter(
        Q(seat0=user) | Q(seat1=user), status=Game.Status.FINISHED, annulled=False
    )
    wins = finished.filter(Q(seat0=user, winner=0) | Q(seat1=user, winner=1, ai_level="")).count()
    draws = finished.filter(winner__isnull=True).count()
    played = finished.count()
    return {"played": played, "wins": wins, "draws": draws, "losses": played - wins - draws}


#: In an untimed game, how long the player to move may be silent before the other may claim
#: the game: someone who leaves does not block their opponent.
ABANDON_AFTER = timedelta(minutes=5)


def abandoned(game: Game) -> bool:
    """Whether the player to move in an untimed game has been silent past :data:`ABANDON_AFTER`."""
    if game.status != Game.Status.ACTIVE or game.is_timed or game.turn_started_at is None:
        return False
    return timezone.now() - game.turn_started_at > ABANDON_AFTER


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
    """Everything the table partial shows to one viewer: a read of the replayed game."""

    game: Game
    #: The viewer's seat, or ``None`` for a spectator (who sees seat 0 at the bottom).
    viewer: int | None
    #: The game so far; ``None`` while a seek waits for its opponent (nothing is dealt yet).
    history: engine.Game | None = None
    bottom: Seat | None = None
    top: Seat | None = None
    #: The beating card the viewer picked and the second cards that may follow it.
    beater: engine.Card | None = None
    seconds: tuple[engine.Card, ...] = ()

    @property
    def dealt(self) -> engine.Game:
        assert self.history is not None, "a seek has no cards dealt"
        return self.history

    @property
    def position(self) -> engine.Position:
        return self.dealt.position

    @property
    def ply(self) -> int:
        return self.history.ply if self.history is not None else 0

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
    def moves(self) -> list[str]:
        return [str(m) for m in self.dealt.moves]

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


def sorted_hand(position: engine.Position, seat: int) -> list[engine.Card]:
    """A hand ordered by suit, the holder's trumps last, then by rank."""
    trump = position.trumps[seat]
    return sorted(position.hand(seat), key=lambda c: (c.suit == trump, c.suit, c.rank))


def table_for(game: Game, user: object, beater: str | None = None) -> Table:
    """The table of ``game`` as ``user`` sees it, with ``beater`` picked (a beat's first click)."""
    viewer = game.seat_of(user)
    if game.status == Game.Status.SEEKING or not game.trump1:
        return Table(game, viewer)
    history = replay(game)
    position = history.position
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
    return Table(game, viewer, history, seat(bottom), seat(1 - bottom), picked, seconds)


def open_seeks() -> QuerySet[Game]:
    """Public seeks waiting for an opponent, oldest first (first come, first served)."""
    return (
        Game.objects.filter(status=Game.Status.SEEKING, private=False)
        .select_related("seat0")
        .order_by("created_at")
    )


def archive(
    *,
    player: str | None = None,
    result: str | None = None,
    reason: str | None = None,
    opponent: str | None = None,
    deck: int | None = None,
    must_beat: bool | None = None,
    sixes_to_owner: bool | None = None,
    since: date | None = None,
    until: date | None = None,
) -> QuerySet[Game]:
    """Finished games, newest first, narrowed by whichever filters are given.

    ``result`` (win / draw / loss) is the named ``player``'s; a draw needs no
    player; annulled games have no result. ``opponent`` is ``"person"``,
    ``"computer"`` or a computer level.
    """
    games = Game.objects.filter(status=Game.Status.FINISHED).select_related("seat0", "seat1")
    if player:
        in_seat0 = Q(seat0__username__iexact=player)
        in_seat1 = Q(seat1__username__iexact=player, ai_level="")
        games = games.filter(in_seat0 | in_seat1)
        if result == "win":
            games = games.filter(Q(in_seat0, winner=0) | Q(in_seat1, winner=1))
        elif result == "loss":
            games = games.filter(Q(in_seat0, winner=1) | Q(in_seat1, winner=0))
    if result == "draw":
        games = games.filter(winner__isnull=True)
    if result:
        games = games.filter(annulled=False)  # an annulled game is kept, but won by no one
    if reason:
        games = games.filter(reason=reason)
    if opponent == "person":
        games = games.filter(ai_level="")
    elif opponent == "computer":
        games = games.exclude(ai_level="")
    elif opponent:
        games = games.filter(ai_level=opponent)
    if deck:
        games = games.filter(deck=deck)
    if must_beat is not None:
        games = games.filter(must_beat=must_beat)
    if sixes_to_owner is not None:
        games = games.filter(sixes_to_owner=sixes_to_owner)
    if since:
        games = games.filter(finished_at__date__gte=since)
    if until:
        games = games.filter(finished_at__date__lte=until)
    return games.order_by("-finished_at", "-pk")
