"""The one service that plays a turn (DESIGN.md, "The move, end to end"): a person's
(:func:`game_play_move`, from the table's socket or its POST) and the computer's
(:func:`game_play_computer_move`, from a task worker), each checked on the stored current
position and saved with the new ``Move`` row; and the clock's flag, which ends a game on time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from game import ai, engine
from game.live import LIVE_GAMES, Progress
from game.models import Game, Move
from game.selectors import history_of, start_position, stored_state
from game.services import GameError
from game.services.saving import CLOCK_FIELDS, END_FIELDS, Stale, finish, locked, save

#: ``ai.choose_move``'s shape: position, level, seconds, and the earlier positions.
Chooser = Callable[..., str]


_OUTCOME_REASONS = {
    engine.Termination.EMPTY_HAND: Game.Reason.EMPTY_HAND,
    engine.Termination.LAST_CARD: Game.Reason.LAST_CARD,
    engine.Termination.REPETITION: Game.Reason.REPETITION,
}


def _record_move(game: Game, seat: int, notation: str, expected_ply: int) -> Progress | None:
    """Check and store one turn, inside the caller's transaction: on a locked game row, or on
    the game as last committed (its save raises :class:`Stale` if the row moved on).

    Returns ``None`` when the mover's clock had already run out: the game is
    then finished on time instead, and the caller says so once that is committed.
    """
    if game.status != Game.Status.ACTIVE:
        raise GameError(_("The game is not in play."))
    state = stored_state(game)
    if expected_ply != state.ply:
        raise GameError(_("The game has moved on: your view was out of date."))
    if state.position.to_move != seat:
        raise GameError(_("It is not your turn."))
    now = timezone.now()
    if flag(game, seat, now):
        return None
    try:
        move = engine.Move.parse(notation)
        after = state.play(move)
    except engine.EngineError as error:
        raise GameError(_("That turn is not allowed: %(reason)s") % {"reason": error}) from None
    after = after.counted(_arisen_before(game, after) + 1)
    spent = _elapsed_ms(game, now)
    if game.is_timed:
        field = "clock0_ms" if seat == 0 else "clock1_ms"
        setattr(game, field, getattr(game, field) - spent + game.clock_increment * 1000)
    stored = Move(
        game=game,
        ply=expected_ply,
        player=seat,
        notation=str(move),
        time_spent_ms=spent,
        created_at=now,
        key=after.key,
    )
    game.turn_started_at = now
    if game.draw_offer != seat:  # a turn answers the opponent's offer; one's own stands
        game.draw_offer = None
    outcome = after.outcome
    if outcome is not None:
        finish(game, now, _OUTCOME_REASONS[outcome.termination], outcome.winner)
    return save(game, [*CLOCK_FIELDS, *END_FIELDS, "turn_started_at"], after, stored)


def _arisen_before(game: Game, state: engine.GameState) -> int:
    """How many times ``state``'s position arose earlier in ``game``: after a turn of its log
    (one indexed count), or as the deal (only a position with an empty pile can be the deal)."""
    key = state.key
    times = Move.objects.filter(game_id=game.pk, key=key).count()
    if not state.position.pile and start_position(game).key == state.position.key:
        times += 1
    return times


def _elapsed_ms(game: Game, now: datetime) -> int:
    assert game.turn_started_at is not None
    return max(0, int((now - game.turn_started_at).total_seconds() * 1000))


def flag(game: Game, seat: int, now: datetime) -> bool:
    """If ``seat`` (to move) has run out of time, finish the game on time and save it."""
    if not game.is_timed:
        return False
    field = "clock0_ms" if seat == 0 else "clock1_ms"
    if getattr(game, field) - _elapsed_ms(game, now) > 0:
        return False
    setattr(game, field, 0)
    finish(game, now, Game.Reason.TIMEOUT, 1 - seat)
    save(game, [*CLOCK_FIELDS, *END_FIELDS])
    return True


def _moved(result: Progress | None) -> Progress:
    if result is None:
        raise GameError(_("Time ran out: the game is over."))
    return result


def game_play_move(*, game_id: int, user: object, notation: str, expected_ply: int) -> Progress:
    """A person's turn. ``expected_ply`` is the ply their page showed: a stale one is refused.

    Checked first on the game as this process last committed or read it, with no read: a turn
    played here after the opponent's turn played here (most turns) then costs two writes. When
    the row has moved on, or that game refuses the turn (it may be behind the row), the row read
    locked decides."""
    # A request's user is read when first used (its session, then its row): read it here, not
    # under the write lock, which on SQLite every other writer waits for meanwhile.
    getattr(user, "pk", None)
    kept = LIVE_GAMES.latest(game_id)
    if kept is not None:
        try:  # checked with no transaction open: only its save writes (``saving.save``)
            result = _person_turn(kept, user, notation, expected_ply)
        except (Stale, GameError):
            pass
        else:
            return _moved(result)
    with transaction.atomic():
        result = _person_turn(locked(game_id), user, notation, expected_ply)
    return _moved(result)


def _person_turn(game: Game, user: object, notation: str, expected_ply: int) -> Progress | None:
    """``user``'s turn on ``game``, read locked or as kept: only a player of it may move."""
    seat = game.seat_of(user)
    if seat is None:
        raise GameError(_("Only the players of this game can move."))
    return _record_move(game, seat, notation, expected_ply)


def game_play_computer_move(
    *, game_id: int, seconds: float | None = None, choose: Chooser = ai.choose_move
) -> Progress | None:
    """The computer's turn, if it is the computer's to play; ``None`` otherwise.

    The search (``choose``, by default in this process) runs before the
    transaction, with no lock held: it is CPU work, so call this from a worker,
    never on the event loop. The turn is then recorded like a person's, so if
    the game moved on meanwhile it is refused.
    """
    game = Game.objects.get(pk=game_id)
    if not game.ai_level or game.status != Game.Status.ACTIVE:
        return None
    history = history_of(game)  # the search needs the earlier positions, for repetition
    if history.position.to_move != 1 or history.outcome is not None:
        return None
    move = choose(
        engine.position_to_json(history.position),
        game.ai_level,
        seconds,
        history=[engine.position_to_json(p) for p in history.positions[:-1]],
    )
    with transaction.atomic():
        result = _record_move(locked(game_id), 1, move, history.ply)
    return _moved(result)
