"""The live table's one door (``#table``): its Jinja2 templates, ``templates/jinja2/game/``.

A table is rendered for two or three viewers on every turn, so its markup is Jinja2 templates,
compiled once (:mod:`game.jinja2`): ``_table.html`` and the partials it includes (the seats, the
pile, the controls, the move log, the actions). A table costs 0.66 ms of CPU so, where the
f-strings that wrote it before took 0.15 (``manage.py bench_table``, 2026-12-05). The states a
table shows once in a game (a seek waiting for its opponent or ended unplayed, the result) are
Django templates (``game/_waiting.html``, ``game/_unplayed.html``, ``game/_result.html``),
rendered here with the request's or the socket's user and placed in the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.template.backends.utils import csrf_input
from django.template.loader import get_template, render_to_string
from django.utils.safestring import SafeString, mark_safe

from game.forms import JoinForm
from game.models import Game

if TYPE_CHECKING:
    from game.tables import Table


def render_table(
    table: Table,
    *,
    request: HttpRequest | None = None,
    user: object = None,
    error: str | None = None,
) -> SafeString:
    """The table partial as ``table``'s viewer sees it, with ``error`` (a refused input) on top."""
    game = table.game
    # A socket's table has no token: its page's script sends one with every form (table.js).
    # A page's table has one, the same in each of its forms.
    context = {
        "table": table,
        "error": error,
        "csrf": csrf_input(request) if request is not None else "",
        "panel": None,
        "result": None,
    }
    if game.status == Game.Status.SEEKING:
        context["panel"] = _part("game/_waiting.html", table, request, user, join_form=JoinForm())
    elif table.state is None:  # a seek that ended before anyone joined: nothing was dealt
        context["panel"] = _part("game/_unplayed.html", table, request, user)
    elif game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        context["result"] = _part("game/_result.html", table, request, user)
    return mark_safe(get_template("game/_table.html", using="jinja2").render(context))


def _part(
    name: str, table: Table, request: HttpRequest | None, user: object, **more: object
) -> SafeString:
    """A Django template's part of ``table``, with its ``user`` when given (a socket's), else the
    request's, which its context processors bring."""
    context = {"table": table, "game": table.game, **more}
    if user is not None:
        context["user"] = user
    return mark_safe(render_to_string(name, context, request=request))
