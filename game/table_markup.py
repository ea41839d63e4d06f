"""The live table's markup (``#table``), from the templates of ``templates/jinja2/game/``.

The whole table (``_table.html``) is what a page gets on arriving, after a POST and when it
missed a version; a turn's update (``_turn.html``) is what every other version brings. The states
a table shows once in a game (a seek waiting for its opponent or ended unplayed, the result) are
Django templates (``game/_waiting.html``, ``game/_unplayed.html``, ``game/_result.html``), with
their forms and context processors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import HttpRequest
from django.template import engines
from django.template.backends.utils import csrf_input
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from game.forms import JoinForm
from game.models import Game

if TYPE_CHECKING:
    from game.tables import Table

ENDED = (Game.Status.FINISHED, Game.Status.ABORTED)


def render_table(
    table: Table,
    *,
    request: HttpRequest | None = None,
    user: object = None,
    error: str | None = None,
) -> SafeString:
    """The table partial as ``table``'s viewer sees it, with ``error`` (a refused input) on top.
    ``user`` is a socket's, who has no request."""
    game = table.game
    context: dict[str, Any] = {"table": table, "error": error, "turn": False}
    # A socket's table has no token: its page's script sends one with every form (table.js).
    context["csrf"] = csrf_input(request) if request is not None else ""
    context["panel"] = context["result"] = ""
    if game.status == Game.Status.SEEKING:
        context["panel"] = _django(table, "game/_waiting.html", request, user, join_form=JoinForm())
    elif table.state is None:  # a seek that ended before anyone joined: nothing was dealt
        context["panel"] = _django(table, "game/_unplayed.html", request, user)
    else:
        context.update(_board(table, context["csrf"]))
        if game.status in ENDED:
            context["result"] = _django(table, "game/_result.html", request, user)
    return mark_safe(_render("game/_table.html", context))


def render_turn(table: Table) -> str:
    """What a turn changed for ``table``'s viewer, from the version before, as htmx's
    out-of-band swaps (``_turn.html``): the seats' heads, the hand the turn was played from, the
    pile and the notes, as every viewer sees them; the hand of the player now to move, to that
    player alone (its cards become buttons); a player's controls and actions; the move log's new
    line. A page that does not show the version before asks for the whole table instead
    (``static/js/table.js``)."""
    last = table.last_turn
    assert last is not None, "a turn's update follows a turn"
    seats = {seat.index: seat for seat in (table.bottom, table.top) if seat is not None}
    heads = mark_safe(
        "".join(_shared(table, ("head", i), "_seat_head", seat=seats[i]) for i in (0, 1))
    )
    hands = _shared(
        table, ("hand", last.seat), "_hand", seat=seats[last.seat], mine=False, highlight=()
    )
    if table.my_turn:  # the viewer's own hand, whose cards that start a turn are buttons
        hands += render_partial(
            "_hand", table=table, seat=table.bottom, mine=True, highlight=(), csrf="", live=True
        )
    context = {"table": table, "csrf": "", "turn": True, "heads": heads, "hands": hands}
    return _render("game/_turn.html", {**context, **_middle(table)})


def _board(table: Table, csrf: str) -> dict[str, str]:
    """The seats, the pile and the notes, for ``_board.html``. Only the player to move sees a
    seat of their own cards to play; every other viewer sees both seats as the spectators do,
    and all of them the same pile: those are rendered once for the tables of a version
    (``table.drawn``)."""
    bottom, top = table.bottom, table.top
    return {
        "top": _shared(table, ("seat", top.index), "_seat", seat=top, mine=False, highlight=()),
        "bottom": (
            render_partial(
                "_seat", table=table, seat=bottom, mine=True, highlight=(), csrf=csrf, live=True
            )
            if table.my_turn
            else _shared(
                table, ("seat", bottom.index), "_seat", seat=bottom, mine=False, highlight=()
            )
        ),
        **_middle(table),
    }


def _middle(table: Table) -> dict[str, str]:
    """What lies between the seats: the pile and the notes, alike for every viewer."""
    repeated = table.repetitions == 2 and table.game.status == Game.Status.ACTIVE
    return {
        "pile": _shared(table, ("pile",), "_pile", pile=table.pile, highlight=table.moved),
        "notes": _shared(table, ("notes",), "_notes", repeated=repeated),
    }


def _shared(table: Table, key: tuple[object, ...], name: str, **context: Any) -> str:
    """Partial ``name`` of the live table, rendered once for every table of the version in each
    language."""
    key = (*key, get_language())
    drawn = table.drawn.get(key)
    if drawn is None:
        drawn = table.drawn[key] = render_partial(name, table=None, csrf="", live=True, **context)
    return drawn


def render_partial(name: str, **context: Any) -> SafeString:
    """One of the table's partials on its own (``_seat.html``, ``_pile.html``, ``_chips.html``):
    the replays and the rules draw their cards with them."""
    return mark_safe(_render(f"game/{name}.html", context))


def _render(name: str, context: dict[str, Any]) -> str:
    # The environment's own render: the backend's adds a request's context, which none needs.
    return engines["jinja2"].env.get_template(name).render(context)  # type: ignore[attr-defined]


def _django(
    table: Table, name: str, request: HttpRequest | None, user: object, **more: object
) -> str:
    """A Django template's part of ``table``, for its ``user`` when given (a socket's), else the
    request's, which its context processors bring."""
    context = {"table": table, "game": table.game, **more}
    if user is not None:
        context["user"] = user
    return render_to_string(name, context, request=request)
