"""Card chips: small inline pictures of cards written in the notation of RULES.md.

``{% cards "QS" %}`` draws the queen of spades; ``{% cards "6D 7D 8D" %}`` draws a row of cards
(a hand, or a pile from bottom to top). ``10S`` and the suit symbols are accepted as well.
"""

import html
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext
from django.utils.translation import gettext_lazy as _

from game.engine import Card, NotationError

register = template.Library()

# rank letter: (shown on the chip, spoken name)
RANKS = {
    "6": ("6", _("six")),
    "7": ("7", _("seven")),
    "8": ("8", _("eight")),
    "9": ("9", _("nine")),
    "T": ("10", _("ten")),
    "J": ("J", _("jack")),
    "Q": ("Q", _("queen")),
    "K": ("K", _("king")),
    "A": ("A", _("ace")),
}
# suit letter: (symbol, spoken name, CSS colour class)
SUITS = {
    "S": ("♠", _("spades"), "black"),
    "H": ("♥", _("hearts"), "red"),
    "D": ("♦", _("diamonds"), "red"),
    "C": ("♣", _("clubs"), "black"),
}


def _split(text: str) -> tuple[str, str]:
    """Rank and suit letters of a card, read by the engine's own notation."""
    try:
        card = Card.parse(text)
    except NotationError as error:
        raise template.TemplateSyntaxError(str(error)) from None
    return card.rank.letter, card.suit.letter


@register.filter
def face(card: object) -> dict[str, str]:
    """What a card shows: ``rank``, ``symbol``, ``colour`` (a CSS modifier) and spoken ``name``.

    ``{% with f=card|face %}<button class="card card--{{ f.colour }}">...``
    """
    return _face(str(card), get_language())


@lru_cache(maxsize=1024)
def _face(text: str, language: str | None) -> dict[str, str]:
    """:func:`face`, worked out once per card and language (it is asked for on every table)."""
    rank, suit = _split(text)
    shown, rank_name = RANKS[rank]
    symbol, suit_name, colour = SUITS[suit]
    name = gettext("%(rank)s of %(suit)s") % {"rank": rank_name, "suit": suit_name}
    return {"rank": shown, "symbol": symbol, "colour": colour, "name": name, "code": rank + suit}


@register.simple_tag
def cards(notation: str) -> SafeString:
    """One chip per card in ``notation`` (cards separated by spaces)."""
    chips = []
    for card in notation.split():
        f = face(card)
        chips.append((f["colour"], f["name"], f["name"], f["rank"], f["symbol"]))
    return format_html(
        '<span class="cards">{}</span>',
        format_html_join(
            "",
            '<span class="card card--{}" role="img" aria-label="{}" title="{}">'
            '<span class="card__rank">{}</span><span class="card__suit">{}</span></span>',
            chips,
        ),
    )


@register.filter
def clock(milliseconds: int | None) -> str:
    """A clock reading, ``m:ss`` (tenths under ten seconds)."""
    if milliseconds is None:
        return ""
    ms = max(0, milliseconds)
    minutes, seconds = divmod(ms // 1000, 60)
    if ms < 10_000:
        return f"0:{ms / 1000:04.1f}"
    return f"{minutes}:{seconds:02d}"


# --- The table's hot loops, built in Python ---------------------------------------------------
# The seats with their hands, the pile, a beat's second cards and the move log are most of a
# table's markup, and a table is rendered twice a turn: written as template loops and includes
# they were most of a move's cost (a 36-card table took 8 ms to render, 1.5 ms once the loops were
# Python, about half that again with the seats and pile). The markup is what a template would
# write; messages are looked up outside f-strings, where makemessages finds them.

_CHIP = '<span class="card__rank">{}</span><span class="card__suit">{}</span>'
#: A playable card's face is seen, its action heard: a name in words that does not repeat the
#: face would contradict it (axe's label-content-name-mismatch), so the face is hidden from
#: screen readers and the words are the button's content.
_PLAY_CHIP = '<span class="visually-hidden">{}</span><span aria-hidden="true">' + _CHIP + "</span>"


def _classes(f: dict[str, str], *extra: tuple[bool, str]) -> str:
    return " ".join(["card", f"card--{f['colour']}", *(name for on, name in extra if on)])


@register.simple_tag
def seat(seat: Any, highlight: Any = ()) -> SafeString:
    """One side of a replay's position, nothing to play (:func:`seat_html`); ``highlight``
    marks the cards just moved."""
    return seat_html(seat, False, None, highlight, "")


def seat_html(seat: Any, mine: bool, table: Any, highlight: Any, csrf: str) -> SafeString:
    """One side of the table, or of a replay's position: the holder's name and rating (a rated
    game's), trumps, card count, clock and whether they are to move, over their hand. The
    viewer's own cards (``mine``) are buttons when they start a legal turn of ``table``'s, in
    forms carrying ``csrf`` (the token's hidden input, or nothing); ``highlight`` marks cards
    just moved."""
    # Each message outside the f-strings: xgettext does not look inside them.
    escape = html.escape
    n = len(seat.hand)
    count = ngettext("%(n)s card", "%(n)s cards", n) % {"n": n}
    trumps, trump_suit = gettext("trumps"), gettext("trump suit")
    head = [f'<span class="seat__name"><bdi>{escape(seat.name)}</bdi></span>']
    rating = getattr(seat, "rating", "")
    if rating:
        head[0] += f' <span class="rating" dir="ltr">{escape(rating)}</span>'
    head += [
        f'<span class="seat__trump" title="{escape(trump_suit)}">{escape(trumps)} '
        f'<b class="suit suit--{seat.trump.letter}">{seat.trump.symbol}</b></span>',
        f'<span class="seat__count">{escape(count)}</span>',
    ]
    if seat.clock_ms is not None:
        running = " clock--running" if seat.to_move else ""
        head.append(
            f'<span class="clock{running}" dir="ltr" data-ms="{seat.clock_ms}">'
            f"{clock(seat.clock_ms)}</span>"
        )
    if seat.to_move:
        to_move = gettext("to move")
        head.append(f'<span class="seat__turn">{escape(to_move)}</span>')
    return mark_safe(
        f'<section class="seat{" seat--to-move" if seat.to_move else ""}">'
        f'<header class="seat__head">{" ".join(head)}</header>'
        f"{_hand(csrf, seat, mine, table, highlight)}</section>"
    )


def _hand(csrf: str, seat: Any, mine: bool, table: Any, highlight: Any) -> SafeString:
    """A seat's hand (:func:`seat_html`)."""
    playable = table.playable if mine and table is not None else set()
    idle = bool(mine and table is not None and table.my_turn)
    language = get_language()
    items = []
    for card in seat.hand:
        trump = card.suit == seat.trump
        if card in playable:
            items.append(_play_button(csrf, table, card, face(card), trump))
        else:
            items.append(_picture(str(card), language, trump, idle, card in highlight, False))
    if not items:
        items.append(format_html('<li class="hand__empty">{}</li>', gettext("no cards")))
    else:
        items = [f"<li>{item}</li>" for item in items]
    label = gettext("%(name)s's hand") % {"name": seat.name}
    return format_html('<ul class="hand" aria-label="{}">{}</ul>', label, mark_safe("".join(items)))


@lru_cache(maxsize=4096)
def _picture(
    code: str, language: str | None, trump: bool, idle: bool, moved: bool, pile: bool
) -> SafeString:
    """A card that is only shown, not played: the same few markups on every table, so each is
    built once per language."""
    f = _face(code, language)
    classes = _classes(
        f,
        (pile, "pile__card"),
        (trump, "card--trump"),
        (idle, "card--idle"),
        (moved, "card--moved"),
    )
    return format_html(
        '<span class="{}" role="img" aria-label="{}">' + _CHIP + "</span>",
        classes,
        f["name"],
        f["rank"],
        f["symbol"],
    )


def _play_button(csrf: str, table: Any, card: Any, f: dict[str, str], trump: bool) -> SafeString:
    """A playable card: a beat's first click (it shows the second cards, which the table carries
    once for every beating card: :func:`second_cards`), or a lead or a beat with one's last
    card, played at once."""
    classes = _classes(f, (True, "card--play"), (trump, "card--trump"))
    if table.pile and len(table.bottom.hand) > 1:
        return _beater_button(f["code"], classes, get_language())
    if table.pile:
        label = gettext("Beat with your last card, the %(name)s") % {"name": f["name"]}
    else:
        label = gettext("Lead the %(name)s") % {"name": f["name"]}
    button = _turn_button(f["code"], classes, label, f["rank"], f["symbol"])
    return turn_form(csrf, table, button)


@lru_cache(maxsize=4096)
def _beater_button(code: str, classes: str, language: str | None) -> SafeString:
    """A card to beat with: picking it shows the second cards, under the hint it carries."""
    f = _face(code, language)
    hint = gettext("Beat with the %(name)s, then play a second card:") % {"name": f["name"]}
    return format_html(
        '<button type="button" class="{}" data-beater="{}" data-hint="{}" '
        'aria-controls="seconds" aria-pressed="false">' + _PLAY_CHIP + "</button>",
        classes,
        code,
        hint,
        gettext("Beat with the %(name)s") % {"name": f["name"]},
        f["rank"],
        f["symbol"],
    )


def turn_form(csrf: str, table: Any, buttons: str, classes: str = "") -> SafeString:
    """A form that plays the turn of the button pressed among ``buttons`` (:func:`_turn_button`)
    at the table's ply: the table's script sends it over the game's socket (``data-turn``),
    posted as it is without one. Assembled with plain strings: a table has dozens."""
    url = table.urls["move"]  # a reversed path and an int: nothing to escape
    class_attribute = f' class="{classes}"' if classes else ""
    return mark_safe(
        f'<form{class_attribute} method="post" action="{url}" hx-post="{url}" '
        f'hx-target="#table" hx-swap="outerHTML" data-turn>{csrf}'
        f'<input type="hidden" name="ply" value="{table.ply}">{buttons}</form>'
    )


@lru_cache(maxsize=8192)
def _turn_button(
    move: str, classes: str, label: str, rank: str, symbol: str, second: str = ""
) -> str:
    """A button that plays ``move`` (its value, sent as the form's ``move`` when it is the one
    pressed), escaped once: the same few on every table. A beat's ``second`` card is said apart,
    for the table's script to pair it with the beating card picked."""
    attribute = format_html(' data-second="{}"', second) if second else ""
    return format_html(
        '<button{} name="move" value="{}" class="{}">' + _PLAY_CHIP + "</button>",
        attribute,
        move,
        classes,
        label,
        rank,
        symbol,
    )


@lru_cache(maxsize=8192)
def _second_card_button(card: str, trump: bool, language: str | None) -> str:
    """The button that lays ``card`` after the beating card picked (the table's script writes
    the turn, ``beater-card``, into its value), once per card and language."""
    f = _face(card, language)
    label = gettext("Second card: the %(name)s") % {"name": f["name"]}
    classes = _classes(f, (True, "card--play"), (trump, "card--trump"))
    return _turn_button(card, classes, label, f["rank"], f["symbol"], card)


def second_cards(table: Any, csrf: str) -> SafeString:
    """The second cards of a beat, hidden until a beating card is picked
    (``static/js/table.js``): one form with a button for each card of the hand that may follow
    a beat, and a way back. Any card but the beating one may follow it (RULES.md), so one set
    serves every beating card: the script hides the one picked."""
    if not table.beats:
        return mark_safe("")
    language = get_language()
    trump = table.bottom.trump.letter
    following = {c for _beater, followers in table.beats for c in followers}
    buttons = "".join(
        _second_card_button(str(c), c.suit.letter == trump, language)
        for c in table.bottom.hand
        if c in following
    )
    return format_html(
        '<div class="second-cards" id="seconds" hidden><p class="controls__hint"></p>{}'
        '<button type="button" class="button" data-unpick>{}</button></div>',
        turn_form(csrf, table, mark_safe(buttons), "seconds"),
        gettext("Cancel"),
    )


@register.simple_tag
def pile(cards: Sequence[Any], highlight: Any = ()) -> SafeString:
    """The pile: its last eight cards, bottom to top, the top one marked, and how many it
    holds; ``highlight`` marks cards just moved."""
    shown = list(cards[-8:])
    if shown:
        language = get_language()
        chips = [_picture(str(c), language, False, False, c in highlight, True) for c in shown]
        # The top card is marked for the eye: its class comes right after pile__card.
        chips[-1] = mark_safe(chips[-1].replace("pile__card", "pile__card pile__card--top", 1))
        inside = "".join(chips)
    else:
        empty = gettext("The pile is empty")
        inside = f'<span class="pile__empty">{html.escape(empty)}</span>'
    n = len(cards)
    size = ngettext("%(n)s card on the pile", "%(n)s cards on the pile", n) % {"n": n}
    label = html.escape(gettext("The pile"))
    return mark_safe(
        f'<section class="pile" aria-label="{label}"><div class="pile__cards">{inside}</div>'
        f'<p class="pile__size">{html.escape(size)}</p></section>'
    )


def move_line(turn: Any, current: bool) -> str:
    """One turn of the table's move log (:class:`game.turns.Turn`), numbered and with its mover,
    marked when it is the current (last) one: the standard library's escaping, since a long
    game's log is hundreds of items."""
    return (
        f'<li class="move-log__turn"{_CURRENT if current else ""}>'
        f'<span class="move-log__n">{turn.number}.</span> '
        f'<bdi class="move-log__who">{html.escape(turn.name)}</bdi> '
        f'<span class="notation">{html.escape(turn.notation)}</span></li>'
    )


_CURRENT = ' aria-current="step"'
