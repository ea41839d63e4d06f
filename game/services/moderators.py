"""Moderators' decisions on games, called by ``moderation.services``, which checks and logs them:
a seek or a game in play stopped, a game annulled, a banned player's games forfeited."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import services as accounts
from game.live import publish_lobby
from game.models import Game
from game.services import GameError
from game.services.saving import END_FIELDS, finish, locked, save


def _end_by_moderator(game: Game, now: datetime) -> None:
    """Stop a seek or a game in play with no result: a moderator's abort."""
    if game.status == Game.Status.SEEKING and not game.private:
        publish_lobby()
    game.status = Game.Status.ABORTED
    game.reason = Game.Reason.MODERATOR
    game.finished_at = now
    game.draw_offer = None


@transaction.atomic
def game_abort_by_moderator(*, game_id: int) -> Game:
    """A moderator stops a seek or a game in play: it ends with no result."""
    game = locked(game_id)
    if game.status not in (Game.Status.SEEKING, Game.Status.ACTIVE):
        raise GameError(_("The game is already over."))
    _end_by_moderator(game, timezone.now())
    save(game, END_FIELDS)
    return game


@transaction.atomic
def game_annul(*, game_id: int) -> Game:
    """A moderator annuls a game: it is kept, but counts for nothing (a game still going is
    stopped first; a rated game's changes to its players' ratings are taken back)."""
    game = locked(game_id)
    if game.annulled:
        raise GameError(_("The game is already annulled."))
    if game.status in (Game.Status.SEEKING, Game.Status.ACTIVE):
        _end_by_moderator(game, timezone.now())
    elif game.rated:
        accounts.ratings_annul_game(game_id=game.pk, now=timezone.now())
    game.annulled = True
    save(game, [*END_FIELDS, "annulled"])
    return game


@transaction.atomic
def games_forfeit_by_ban(*, user: object) -> list[Game]:
    """A banned player's seeks disappear and their games in play end as losses by ban."""
    user_id = getattr(user, "pk", None)
    games = (
        Game.objects.select_for_update()
        .filter(Q(seat0_id=user_id) | Q(seat1_id=user_id, ai_level=""))
        .filter(status__in=(Game.Status.SEEKING, Game.Status.ACTIVE))
        .order_by("pk")
    )
    now = timezone.now()
    ended = []
    for game in games:
        if game.status == Game.Status.SEEKING:
            _end_by_moderator(game, now)
        else:
            seat = game.seat_of(user)
            assert seat is not None
            finish(game, now, Game.Reason.MODERATOR, 1 - seat)
        save(game, END_FIELDS)
        ended.append(game)
    return ended
