"""Moderation's pieces of other apps' pages: a game's chat and report links, a profile's links.

``{% game_chat game %}`` on the table page, ``{% profile_moderation player %}`` on a profile.
"""

from typing import Any

from django import template

from game.models import Game
from moderation.selectors import chat_for, is_moderator, standing_of

register = template.Library()


@register.inclusion_tag("moderation/_game_extras.html", takes_context=True)
def game_chat(context: dict[str, Any], game: Game) -> dict[str, Any]:
    user = context.get("user")
    players = [p for p in (game.seat0, None if game.ai_level else game.seat1) if p is not None]
    reportable = [p for p in players if getattr(user, "pk", None) != p.pk]
    return {
        "chat": chat_for(game, user),
        "game": game,
        "user": user,
        "reportable": reportable if getattr(user, "is_authenticated", False) else [],
        "moderator": is_moderator(user),
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("moderation/_profile_extras.html", takes_context=True)
def profile_moderation(context: dict[str, Any], player: object) -> dict[str, Any]:
    user = context.get("user")
    standing = standing_of(player)
    return {
        "player": player,
        "user": user,
        "banned": standing is not None and standing.banned,
        "moderator": is_moderator(user),
    }
