"""Card chips: small inline pictures of cards written in the notation of RULES.md.

``{% cards "QS" %}`` draws the queen of spades; ``{% cards "6D 7D 8D" %}`` draws a row of cards
(a hand, or a pile from bottom to top). ``10S`` and the suit symbols are accepted as well.
"""

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from game.engine import Card, NotationError
from game.table_markup import render_partial

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
    """One chip per card in ``notation`` (cards separated by spaces): ``game/_chips.html``."""
    return render_partial("_chips", faces=[face(card) for card in notation.split()])


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


@register.simple_tag
def seat(seat: Any, highlight: Any = ()) -> SafeString:
    """One side of a replay's position (the table's ``_seat.html``), nothing to play;
    ``highlight`` marks the cards just moved."""
    return render_partial(
        "_seat", seat=seat, mine=False, table=None, highlight=highlight, csrf="", live=False
    )


@register.simple_tag
def pile(cards: Sequence[Any], highlight: Any = ()) -> SafeString:
    """A replay's pile (the table's ``_pile.html``); ``highlight`` marks cards just moved."""
    return render_partial("_pile", pile=cards, highlight=highlight, live=False)
