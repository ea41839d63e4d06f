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

import threading
from collections import OrderedDict
from dataclasses import dataclass
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
    """The table partial as ``table``'s viewer sees it, with ``error`` (a refused input) on top."""
    return mark_safe("".join(render_table_parts(table, request=request, user=user, error=error)))


def render_table_parts(
    table: Table,
    *,
    request: HttpRequest | None = None,
    user: object = None,
    error: str | None = None,
) -> tuple[str, str, str]:
    """:func:`render_table` in three parts: the markup before the move log's items, the items
    (one string shared by every viewer of the game at that ply: :data:`MOVE_LOGS`), the markup
    after them. A table kept per viewer in parts holds its long part once per game."""
    game = table.game
    # A socket's table has no token: its page's script sends one with every form (table.js).
    csrf = csrf_input(request) if request is not None else ""
    attributes = (
        f'id="table" class="table-view" data-ply="{table.ply}" data-version="{game.version}" '
        f'data-status="{escape(game.status)}"'
    )
    if game.is_timed and game.status == ACTIVE:
        attributes += f' data-claim="{table.urls["claim_timeout"]}"'
    if table.my_turn:
        your_turn = gettext("Your turn")
        attributes += f' data-my-turn="{escape(your_turn)}"'
    parts = [f"<div {attributes}>"]
    turn = table.last_turn
    if turn is not None:
        spoken = escape(table.last_turn_spoken)
        parts.append(f'<p class="visually-hidden" data-spoken="{turn.seat}">{spoken}</p>')
    if error:
        parts.append(f'<div class="notice notice--error" role="alert">{escape(error)}</div>')
    if game.status == Game.Status.SEEKING:
        context = _context(table, user, join_form=JoinForm())
        parts.append(render_to_string("game/_waiting.html", context, request=request))
    elif table.state is None:  # a seek that ended before anyone joined: nothing was dealt
        context = _context(table, user)
        parts.append(render_to_string("game/_unplayed.html", context, request=request))
    else:
        before, log, after = _sidebar(table, csrf, request, user)
        parts += [_board(table, csrf), before]
        return "".join(parts), log, after + "</div>"
    parts.append("</div>")
    return "".join(parts), "", ""


def _context(table: Table, user: object, **more: object) -> dict[str, object]:
    """A template's context for part of ``table``: its ``user`` when given (a socket's), else
    the request's, which its context processors bring."""
    context = {"table": table, "game": table.game, **more}
    if user is not None:
        context["user"] = user
    return context


def _board(table: Table, csrf: str) -> str:
    """The seats, the pile between them, and the viewer's controls."""
    parts = [
        '<div class="board">',
        seat_html(table.top, False, None, (), csrf),
        pile(table.pile, table.moved),
    ]
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


def _sidebar(
    table: Table, csrf: str, request: HttpRequest | None, user: object
) -> tuple[str, str, str]:
    """The result once the game is over, the move log, and the players' actions: the markup
    before the log's items, the items, the markup after them."""
    game = table.game
    parts = ['<aside class="sidebar">']
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        parts.append(render_to_string("game/_result.html", _context(table, user), request=request))
    moves = escape(gettext("Moves"))
    parts.append(f'<section class="move-log"><h2>{moves}</h2>')
    log = ""
    if table.moves:
        parts.append(f'<ol class="move-log__list" tabindex="0" aria-label="{moves}">')
        log = MOVE_LOGS.items(game, table.moves)
        after = ["</ol></section>"]
    else:
        none = gettext("No turns yet.")
        parts.append(f'<p class="empty">{escape(none)}</p>')
        after = ["</section>"]
    if game.status == ACTIVE:
        after.append(commitment_html(game.commitment))
    if table.viewer is not None and game.status == ACTIVE:
        after.append(_actions(table, csrf))
    after.append("</aside>")
    return "".join(parts), log, "".join(after)


@dataclass(frozen=True)
class _Log:
    """A game's move log as last rendered: for its ``moves`` (the same tuple as the kept game's
    notations, mostly) by ``movers`` (the first seat and the two names), the ``items``, whose
    last one, ``last`` characters long, is marked current."""

    movers: tuple[int, str, str]
    moves: tuple[str, ...]
    items: str
    last: int


class MoveLogs:
    """The rendered move log of each game in play, so that a turn renders one item, not the
    whole log again, and the game's viewers share one string. Per ply it holds that item (about
    150 bytes); games that end are not kept, and of those in play the most recently rendered
    ``size`` (as :class:`game.live.LiveGames`)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._logs: OrderedDict[int, _Log] = OrderedDict()
        self._lock = threading.Lock()

    def items(self, game: Game, moves: tuple[str, ...]) -> str:
        """The log's items for ``game`` after ``moves`` (at least one), the last one current."""
        first = game.first_player or 0
        movers = (first, game.seat_name(0), game.seat_name(1))
        active = game.status == ACTIVE
        with self._lock:  # a game that is over is rendered once more, and forgotten
            kept = self._logs.get(game.pk) if active else self._logs.pop(game.pk, None)
        n = len(moves)
        if kept is not None and kept.movers == movers and kept.moves == moves:
            return kept.items
        if kept is not None and kept.movers == movers and kept.moves == moves[: len(kept.moves)]:
            start = len(kept.moves) - 1  # the kept current item is rendered again, unmarked
            done = kept.items[: len(kept.items) - kept.last]
        else:
            start, done = 0, ""
        names = movers[1:]
        lines = [move_line(turn_at(moves, ply, first, names), False) for ply in range(start, n - 1)]
        current = move_line(turn_at(moves, n - 1, first, names), True)
        log = _Log(movers, moves, "".join([done, *lines, current]), len(current))
        if not active:
            return log.items
        with self._lock:
            if game.pk not in self._logs or len(self._logs[game.pk].moves) <= n:
                self._logs[game.pk] = log
                self._logs.move_to_end(game.pk)
                while len(self._logs) > self.size:
                    self._logs.popitem(last=False)
        return log.items

    def clear(self) -> None:
        with self._lock:
            self._logs.clear()


#: This process's rendered move logs of games in play.
MOVE_LOGS = MoveLogs()


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


def _actions(table: Table, csrf: str) -> str:
    """A player's actions in a game in play: draws, a claim on a silent opponent, abort, resign."""
    game, urls = table.game, table.urls
    parts = ['<section class="actions">']
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
