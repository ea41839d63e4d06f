"""The live table's markup (``#table``), written in Python.

A table is rendered for two or three viewers on every turn: as a template, the parts around the
cards (the controls, the move log, the actions and their forms) cost as much as the cards
themselves, most of it the template language's own work of resolving names and testing
conditions. Here the markup is assembled with plain strings, each value escaped where it enters.
The states a table shows once in a game (a seek waiting for its opponent or ended unplayed, the
result) stay templates (``game/_waiting.html``, ``game/_unplayed.html``, ``game/_result.html``).
Messages are looked up outside the f-strings, where ``makemessages`` finds them.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.template.backends.utils import csrf_input
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from game.forms import JoinForm
from game.models import Game
from game.templatetags.cards import move_line, pile, seat_html, second_cards, turn_form
from game.templatetags.fair_deal import commitment_html
from game.turns import turn_at

if TYPE_CHECKING:
    from game.tables import Table

ACTIVE = Game.Status.ACTIVE


def render_table(
    table: Table,
    *,
    request: HttpRequest | None = None,
    user: object = None,
    error: str | None = None,
) -> SafeString:
    """The table partial as ``table``'s viewer sees it, with ``error`` (a refused input) on top:
    what a page gets on arriving, after a POST and when it missed a version."""
    game = table.game
    # A socket's table has no token: its page's script sends one with every form (table.js).
    csrf = csrf_input(request) if request is not None else ""
    parts = [f'<div id="table" class="table-view" {_attributes(table)}>']
    if error:
        parts.append(f'<div class="notice notice--error" role="alert">{escape(error)}</div>')
    if game.status == Game.Status.SEEKING:
        context = _context(table, user, join_form=JoinForm())
        parts.append(render_to_string("game/_waiting.html", context, request=request))
    elif table.state is None:  # a seek that ended before anyone joined: nothing was dealt
        context = _context(table, user)
        parts.append(render_to_string("game/_unplayed.html", context, request=request))
    else:
        parts += [_board(table, csrf), _sidebar(table, csrf, request, user)]
    parts.append("</div>")
    return mark_safe("".join(parts))


def render_turn(table: Table) -> str:
    """What a turn changed for ``table``'s viewer, from the version before, as htmx's
    out-of-band swaps: the board (carrying the table's new attributes), the move log's new line
    and the player's actions. Its size does not grow with the game. A page that does not show the
    version before asks for the whole table instead (``static/js/table.js``)."""
    assert table.last_turn is not None, "a turn's update follows a turn"
    board = _board(table, "", f' {_attributes(table)} data-base="{table.game.version - 1}"')
    line = move_line(table.last_turn, True)
    parts = [board, f'<ol hx-swap-oob="beforeend:#move-log">{line}</ol>']
    if table.viewer is not None:
        parts.append(_actions(table, "", ' hx-swap-oob="true"'))
    return "".join(parts)


def _attributes(table: Table) -> str:
    """The table's state that its scripts read (``static/js/table.js``, ``table-ui.js``)."""
    game = table.game
    attributes = (
        f'data-ply="{table.ply}" data-version="{game.version}" data-status="{escape(game.status)}"'
    )
    if game.is_timed and game.status == ACTIVE:
        attributes += f' data-claim="{table.urls["claim_timeout"]}"'
    if table.my_turn:
        your_turn = gettext("Your turn")
        attributes += f' data-my-turn="{escape(your_turn)}"'
    return attributes


def _context(table: Table, user: object, **more: object) -> dict[str, object]:
    """A template's context for part of ``table``: its ``user`` when given (a socket's), else
    the request's, which its context processors bring."""
    context = {"table": table, "game": table.game, **more}
    if user is not None:
        context["user"] = user
    return context


def _board(table: Table, csrf: str, attributes: str = "") -> str:
    """The last turn in words (for screen readers), the seats, the pile between them, and the
    viewer's controls; ``attributes`` added to its element."""
    parts = [f'<div id="table-board" class="board"{attributes}>']
    turn = table.last_turn
    if turn is not None:
        spoken = escape(table.last_turn_spoken)
        parts.append(f'<p class="visually-hidden" data-spoken="{turn.seat}">{spoken}</p>')
    parts += [seat_html(table.top, False, None, (), csrf), pile(table.pile, table.moved)]
    if table.repetitions == 2 and table.game.status == ACTIVE:
        arisen = gettext("This position has arisen for the second time — a third is a draw.")
        parts.append(f'<p class="repetition" role="status">{escape(arisen)}</p>')
    parts += [seat_html(table.bottom, True, table, (), csrf), _controls(table, csrf), "</div>"]
    return "".join(parts)


def _controls(table: Table, csrf: str) -> str:
    """What the viewer may do now: a hint, a beat's second cards, the take."""
    label = escape(gettext("Your turn"))
    parts = [f'<section class="controls" aria-label="{label}">']
    if table.my_turn:
        if table.pile:
            hint = gettext("Your turn: beat the top card (pick the beating card), or take.")
        else:
            hint = gettext("Your turn: lead any card.")
        parts += [f'<p class="controls__hint">{escape(hint)}</p>', second_cards(table, csrf)]
        n = table.take_count
        if n:
            take = ngettext("Take %(n)s card", "Take %(n)s cards", n) % {"n": n}
            button = (
                '<button name="move" value="take" class="button button--take">'
                f"{escape(take)}</button>"
            )
            parts.append(turn_form(csrf, table, button))
    elif table.game.status == ACTIVE:
        if table.viewer is None:
            hint = gettext("You are watching.")
        else:
            hint = gettext("Waiting for your opponent…")
        parts.append(f'<p class="controls__hint">{escape(hint)}</p>')
    parts.append("</section>")
    return "".join(parts)


def _sidebar(table: Table, csrf: str, request: HttpRequest | None, user: object) -> str:
    """The result once the game is over, the move log, and the players' actions."""
    game = table.game
    parts = ['<aside class="sidebar">']
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        parts.append(render_to_string("game/_result.html", _context(table, user), request=request))
    moves = escape(gettext("Moves"))
    parts.append(f'<section class="move-log"><h2>{moves}</h2>')
    # The list is there from the start: each turn's update adds its line to it.
    parts.append(f'<ol class="move-log__list" id="move-log" tabindex="0" aria-label="{moves}">')
    first = game.first_player or 0
    names = (game.seat_name(0), game.seat_name(1))
    n = len(table.moves)
    parts += [move_line(turn_at(table.moves, ply, first, names), ply == n - 1) for ply in range(n)]
    none = escape(gettext("No turns yet."))
    parts.append(f'</ol><p class="empty move-log__empty">{none}</p></section>')
    if game.status == ACTIVE:
        parts.append(commitment_html(game.commitment))
    if table.viewer is not None and game.status == ACTIVE:
        parts.append(_actions(table, csrf))
    parts.append("</aside>")
    return "".join(parts)


def _note(text: str) -> str:
    return f'<p class="actions__note" role="status">{escape(text)}</p>'


def _action(url: str, csrf: str, label: str, modifier: str = "", confirm: str = "") -> str:
    """A button that posts one of the table's actions; the answer replaces the table."""
    extra = f' hx-confirm="{escape(confirm)}"' if confirm else ""
    classes = f"button {modifier}" if modifier else "button"
    return (
        f'<form method="post" action="{url}" hx-post="{url}" hx-target="#table" '
        f'hx-swap="outerHTML"{extra}>{csrf}'
        f'<button class="{classes}">{escape(label)}</button></form>'
    )


def _actions(table: Table, csrf: str, attributes: str = "") -> str:
    """A player's actions in a game in play: draws, a claim on a silent opponent, abort, resign;
    ``attributes`` added to their element (as :func:`_board`'s)."""
    game, urls = table.game, table.urls
    parts = [f'<section{attributes} id="table-actions" class="actions">']
    if table.draw_declined:
        parts.append(_note(gettext("The draw offer was declined.")))
    if game.draw_offer is not None and game.draw_offer != table.viewer:
        parts += [
            _note(gettext("Your opponent offers a draw.")),
            _action(urls["offer_draw"], csrf, gettext("Accept the draw")),
            _action(urls["decline_draw"], csrf, gettext("Decline")),
        ]
    elif game.draw_offer == table.viewer:
        parts += [
            _note(gettext("You offered a draw: waiting for your opponent's answer.")),
            _action(urls["decline_draw"], csrf, gettext("Withdraw the offer")),
        ]
    elif not game.against_computer and game.draw_offer is None:
        parts.append(_action(urls["offer_draw"], csrf, gettext("Offer a draw")))
    if table.may_claim_abandoned:
        silent = escape(gettext("Your opponent has not moved for five minutes."))
        claim = gettext("Claim the game")
        parts += [
            f"<p>{silent}</p>",
            _action(urls["claim_abandoned"], csrf, claim, "button--primary"),
        ]
    wait = table.claim_possible_in
    if wait:
        parts.append(
            f'<div hidden hx-get="{urls["table"]}" hx-trigger="load delay:{wait}s" '
            'hx-target="#table" hx-swap="outerHTML"></div>'
        )
    if table.ply < 2:
        parts.append(_action(urls["abort"], csrf, gettext("Abort")))
    resign, really = gettext("Resign"), gettext("Resign this game?")
    parts += [_action(urls["resign"], csrf, resign, "button--danger", really), "</section>"]
    return "".join(parts)
