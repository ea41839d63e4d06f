"""Reads that several views, consumers and services share."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q, QuerySet
from django.utils import timezone

from chat.rooms import Room
from game import engine
from game.models import Challenge, Game, Move


def start_position(game: Game) -> engine.Position:
    """The deal of ``game``: its seed, trumps and rules, and the stored starting seat."""
    first = game.first_player
    return engine.deal(game.seed, game.trumps, game.rules, first=first)


def chat_room(game: Game) -> Room:
    """``game``'s chat as the chat app sees it: the people at the table (the computer is not
    one) and whether a line was ever written. ``game`` comes with its seats read."""
    seats = (game.seat0, None if game.against_computer else game.seat1)
    return Room(
        game_id=game.pk,
        players=tuple(player for player in seats if player is not None),
        started=game.chat_started,
    )


def version_of(game_id: int) -> tuple[int, bool] | None:
    """The game's version and whether its chat has started, or ``None`` if there is no such game:
    all that a socket arriving at a game this process keeps needs to read (``game.consumers``)."""
    row = Game.objects.filter(pk=game_id).values_list("version", "chat_started").first()
    return None if row is None else (row[0], bool(row[1]))


def game_with_players(game_id: int) -> Game | None:
    """The game with both its players, or ``None`` if there is no such game: what a socket
    arriving at a game this process does not keep reads (``game.consumers``)."""
    return Game.objects.select_related("seat0", "seat1").filter(pk=game_id).first()


def notations_of(game_id: int) -> tuple[str, ...]:
    """The notations of the game's turns in ply order (its move log, as text)."""
    notations = Move.objects.filter(game_id=game_id).order_by("ply")
    return tuple(notations.values_list("notation", flat=True))


def history_of(game: Game) -> engine.Game:
    """The engine's game: the deal replayed through the stored move log, in ply order.

    The truth, but it costs the whole game: live play reads :func:`stored_state`.
    """
    notations = game.moves.order_by("ply").values_list("notation", flat=True)
    return engine.Game.replay(start_position(game), notations)


def stored_state(game: Game) -> engine.GameState:
    """The dealt game as it stands, kept with the row (see ``Game.state``).

    Read once per ``game.state`` value and kept on the instance (:func:`set_state`): a turn's
    check and its tables read the state of the same game, and reading it checks every position
    the game has counted, hundreds in a long game."""
    kept = game.__dict__.get(_STATE_READ)
    if kept is not None and kept[0] is game.state:
        return kept[1]
    state = engine.GameState.from_json(game.state)
    game.__dict__[_STATE_READ] = (game.state, state)
    return state


def set_state(game: Game, state: engine.GameState) -> None:
    """Give ``game`` the new ``state`` to store, already read for :func:`stored_state`."""
    game.state = state.to_json()
    game.__dict__[_STATE_READ] = (game.state, state)


#: Where an instance keeps its state as read: the JSON it was read from, and the state.
_STATE_READ = "_state_read"


def check_state(game: Game) -> bool:
    """Whether the stored state is what replaying the move log gives (it must always be)."""
    replayed = history_of(game).state
    return stored_state(game) == replayed.counted(replayed.repetitions())


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


def games_being_played(limit: int = 50) -> QuerySet[Game]:
    """Games under way, for anyone to watch: the latest started first."""
    return (
        Game.objects.filter(status=Game.Status.ACTIVE)
        .select_related("seat0", "seat1")
        .order_by("-started_at")[:limit]
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


def next_flag_check(game: Game, now: datetime) -> datetime | None:
    """The earliest moment a flag of ``game`` can fall, as things stand at ``now``; ``None`` for
    a game not in play on the clock. The player to move runs out at their deadline; the other
    cannot before ``now`` plus their time, however soon the turn comes."""
    if game.status != Game.Status.ACTIVE or not game.is_timed or game.turn_started_at is None:
        return None
    mover = stored_state(game).position.to_move
    clocks = (game.clock0_ms or 0, game.clock1_ms or 0)
    deadline = game.turn_started_at + timedelta(milliseconds=clocks[mover])
    return min(deadline, now + timedelta(milliseconds=clocks[1 - mover]))


def open_seeks() -> QuerySet[Game]:
    """Public seeks waiting for an opponent, oldest first (first come, first served)."""
    return (
        Game.objects.filter(status=Game.Status.SEEKING, private=False)
        .select_related("seat0")
        .order_by("created_at")
    )


#: The seeks the lobby lists: the oldest first, as they are served. A crowd's hundreds of seeks
#: made every lobby page and push render all of them (50 ms a page at 300); the rest are counted.
LOBBY_SEEKS = 30


def lobby_seeks() -> tuple[list[Game], int]:
    """The public seeks the lobby shows (at most :data:`LOBBY_SEEKS`, oldest first), and how
    many more are waiting."""
    seeks = list(open_seeks()[:LOBBY_SEEKS])
    more = open_seeks().count() - len(seeks) if len(seeks) == LOBBY_SEEKS else 0
    return seeks, more


# --- Challenges ---------------------------------------------------------------------------------


def challenges_waiting(user: object, now: datetime) -> tuple[list[Challenge], list[Challenge]]:
    """The unexpired challenges waiting for an answer to or from ``user``, read in one query
    (every page of theirs shows them): those to them, from players who may still play, and
    theirs; each oldest first."""
    user_id = getattr(user, "pk", None)
    waiting = (
        Challenge.objects.filter(Q(challenged_id=user_id) | Q(challenger_id=user_id))
        .filter(status=Challenge.Status.PENDING, expires_at__gt=now)
        .select_related("challenger", "challenged")
        .order_by("created_at", "pk")
    )
    incoming, outgoing = [], []
    for challenge in waiting:
        if challenge.challenger_id == user_id:
            outgoing.append(challenge)
        elif challenge.challenger.is_active:
            incoming.append(challenge)
    return incoming, outgoing


def challenges_answered(user: object, limit: int = 20) -> list[Challenge]:
    """The latest of ``user``'s challenges, made or received, that are no longer waiting (an
    expired one is shown so even if no one marked it), newest first."""
    user_id = getattr(user, "pk", None)
    mine = Challenge.objects.filter(Q(challenger_id=user_id) | Q(challenged_id=user_id))
    over = mine.exclude(status=Challenge.Status.PENDING, expires_at__gt=timezone.now())
    return list(over.select_related("challenger", "challenged", "game")[:limit])


def challenge_with_players(challenge_id: int) -> Challenge | None:
    return (
        Challenge.objects.select_related("challenger", "challenged", "game")
        .filter(pk=challenge_id)
        .first()
    )
