"""The lobby's open seeks (``#seeks``), written in Python: every visit to the lobby shows them,
a crowd arriving visits it first, and each lobby socket is sent them again whenever a seek opens
or is taken. As a template loop, 30 seeks were most of the page's remaining cost. Messages are
looked up outside the f-strings, where ``makemessages`` finds them."""

from collections.abc import Sequence
from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from game.models import Game
from game.tables import game_urls
from game.templatetags.fair_deal import commitment_short

register = template.Library()


@register.simple_tag(takes_context=True)
def seeks(context: template.Context) -> SafeString:
    """``{% seeks %}``: the context's ``seeks`` and ``more_seeks`` for its ``user``."""
    return seeks_html(context["seeks"], context.get("more_seeks", 0), context.get("user"))


def seeks_html(seeks: Sequence[Game], more: int, user: object) -> SafeString:
    """The seeks listed, oldest first, each with a way to its table (``user``'s own says so),
    and how many more are waiting."""
    if not seeks:
        empty = gettext("No open games right now. Create one!")
        return mark_safe(f'<div id="seeks"><p class="empty">{escape(empty)}</p></div>')
    user_id = getattr(user, "pk", None)
    items = [_seek(seek, seek.seat0_id == user_id) for seek in seeks]
    parts = ['<div id="seeks"><ul class="seeks">', *items, "</ul>"]
    if more:
        waiting = ngettext("and %(n)s more game waiting", "and %(n)s more games waiting", more) % {
            "n": more
        }
        parts.append(f'<p class="muted">{escape(waiting)}</p>')
    parts.append("</div>")
    return mark_safe("".join(parts))


def _seek(seek: Game, own: bool) -> str:
    what = [
        gettext("trumps %(trump)s · %(deck)s cards")
        % {"trump": seek.get_trump0_display(), "deck": seek.deck}
    ]
    if seek.must_beat:
        what.append(gettext("must beat"))
    if seek.sixes_to_owner:
        what.append(gettext("sixes to owner"))
    if seek.clock_initial:
        what.append(f"{round(seek.clock_initial / 60)}+{seek.clock_increment}")
    else:
        what.append(gettext("untimed"))
    what.append(gettext("rated") if seek.rated else gettext("casual"))
    label = gettext("Your game") if own else gettext("Join")
    url = game_urls(seek.pk)["table"]
    rating = seek.seat_rating(0)
    rated = f' <span class="rating" dir="ltr">{rating}</span>' if rating else ""
    return (
        f'<li class="seek"><span class="seek__who"><bdi>{escape(str(seek.seat0))}</bdi>'
        f"{rated}</span> "
        f'<span class="seek__what">{escape(" · ".join(what))}</span> '
        f"{commitment_short(seek)} "
        f'<a class="button" href="{url}">{escape(label)}</a></li>'
    )
