"""How a game in play ends before its last turn, at a player's word: resigning, aborting, a draw
offered and agreed (or declined), a flag or an abandoned game claimed, and a player who closes
their account leaving all their games."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from game.models import Game
from game.selectors import abandoned, stored_state
from game.services import GameError
from game.services.play import flag
from game.services.saving import END_FIELDS, finish, locked, save
from game.services.starting import game_cancel_seek


def _player_seat(game: Game, user: object) -> int:
    seat = game.seat_of(user)
    if seat is None:
        raise GameError(_("Only the players of this game can do that."))
    if game.status != Game.Status.ACTIVE:
        raise GameError(_("The game is not in play."))
    return seat


@transaction.atomic
def game_resign(*, game_id: int, user: object) -> Game:
    game = locked(game_id)
    seat = _player_seat(game, user)
    finish(game, timezone.now(), Game.Reason.RESIGNATION, 1 - seat)
    save(game, END_FIELDS)
    return game


@transaction.atomic
def game_abort(*, game_id: int, user: object) -> Game:
    """End with no result, allowed only while fewer than two turns have been played."""
    game = locked(game_id)
    _player_seat(game, user)
    if game.moves.count() >= 2:
        raise GameError(_("Both players have made a turn: the game can no longer be aborted."))
    game.status = Game.Status.ABORTED
    game.reason = Game.Reason.ABORTED
    game.finished_at = timezone.now()
    save(game, ["status", "reason", "finished_at"])
    return game


@transaction.atomic
def game_offer_draw(*, game_id: int, user: object) -> Game:
    """Offer a draw, or accept the opponent's standing offer."""
    game = locked(game_id)
    seat = _player_seat(game, user)
    if game.against_computer:
        raise GameError(_("The computer does not agree to draws."))
    if game.draw_offer == 1 - seat:
        finish(game, timezone.now(), Game.Reason.AGREEMENT, None)
        save(game, END_FIELDS)
    elif game.draw_offer is None:
        game.draw_offer = seat
        save(game, ["draw_offer"])
    return game


@transaction.atomic
def game_decline_draw(*, game_id: int, user: object) -> Game:
    """Decline the opponent's draw offer (both tables say so until the next turn), or withdraw
    one's own."""
    game = locked(game_id)
    seat = _player_seat(game, user)
    if game.draw_offer == 1 - seat:
        game.draw_offer = None
        game.draw_declined_ply = stored_state(game).ply
        save(game, ["draw_offer", "draw_declined_ply"])
    elif game.draw_offer == seat:
        game.draw_offer = None
        save(game, ["draw_offer"])
    return game


@transaction.atomic
def game_claim_timeout(*, game_id: int) -> Game:
    """Finish the game on time if the player to move has run out (anyone may ask)."""
    game = locked(game_id)
    if game.status == Game.Status.ACTIVE:
        flag(game, stored_state(game).position.to_move, timezone.now())
    return game


@transaction.atomic
def game_claim_abandoned(*, game_id: int, user: object) -> Game:
    """The waiting player wins an untimed game whose opponent has gone silent."""
    game = locked(game_id)
    seat = _player_seat(game, user)
    if stored_state(game).position.to_move == seat:
        raise GameError(_("It is your turn: the game waits for you, not for your opponent."))
    if not abandoned(game):
        raise GameError(_("Your opponent may still be thinking: wait a little longer."))
    finish(game, timezone.now(), Game.Reason.ABANDONED, seat)
    save(game, END_FIELDS)
    return game


@transaction.atomic
def games_leave(*, user: object) -> None:
    """A player who closes their account leaves every game: their open seeks are cancelled, then
    their games in play resigned (a seek joined meanwhile among them), each through its own
    service, as if they had done it."""
    user_id = getattr(user, "pk", None)
    mine = Game.objects.filter(Q(seat0_id=user_id) | Q(seat1_id=user_id, ai_level=""))
    for status, leave in (
        (Game.Status.SEEKING, game_cancel_seek),
        (Game.Status.ACTIVE, game_resign),
    ):
        for game_id in mine.filter(status=status).values_list("pk", flat=True):
            try:
                leave(game_id=game_id, user=user)
            except GameError:  # it moved on meanwhile: joined, or ended
                continue
