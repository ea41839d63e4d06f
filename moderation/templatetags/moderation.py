"""Moderation's pieces of other apps' pages: a game's report links, a profile's links.

``{% game_links game %}`` on the table page, ``{% profile_moderation player %}`` on a profile;
``{{ report.created_at|ago }}`` in the queue.
"""

from datetime import datetime, timedelta
from typing import Any

from django import template
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext, ngettext_lazy

from accounts.selectors import is_closed
from game.models import Game
from moderation.selectors import is_moderator, standing_of

register = template.Library()

#: Django's ``timesince`` words, in our own catalogues: Django's Armenian catalogue lacks them
#: ("0 minutes" came out in English on an Armenian page).
TIME_STRINGS = {
    "year": ngettext_lazy("%(num)d year", "%(num)d years", "num"),
    "month": ngettext_lazy("%(num)d month", "%(num)d months", "num"),
    "week": ngettext_lazy("%(num)d week", "%(num)d weeks", "num"),
    "day": ngettext_lazy("%(num)d day", "%(num)d days", "num"),
    "hour": ngettext_lazy("%(num)d hour", "%(num)d hours", "num"),
    "minute": ngettext_lazy("%(num)d minute", "%(num)d minutes", "num"),
}


@register.filter
def ago(moment: datetime) -> str:
    """How long ago ``moment`` was (Django's ``timesince``): ``3 days, 2 hours ago``, or ``just
    now`` within the minute (``timesince`` would say ``0 minutes``)."""
    if timezone.now() - moment < timedelta(minutes=1):
        return gettext("just now")
    return gettext("%(time)s ago") % {"time": timesince(moment, time_strings=TIME_STRINGS)}


@register.inclusion_tag("moderation/_game_links.html", takes_context=True)
def game_links(context: dict[str, Any], game: Game) -> dict[str, Any]:
    user = context.get("user")
    players = [p for p in (game.seat0, None if game.ai_level else game.seat1) if p is not None]
    # A closed account is not reported: it is gone, and its name is no longer shown.
    reportable = [p for p in players if getattr(user, "pk", None) != p.pk and not is_closed(p)]
    return {
        "game": game,
        "user": user,
        "reportable": reportable if getattr(user, "is_authenticated", False) else [],
        "moderator": is_moderator(user),
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
