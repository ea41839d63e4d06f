"""Cards in Django templates, drawn by the live table's Jinja2 partials
(``templates/jinja2/game/``), and the filters those partials read cards and clocks with.

``{% cards "QS" %}`` draws the queen of spades; ``{% cards "6D 7D 8D" %}`` draws a row of cards
(a hand, or a pile from bottom to top). ``10S`` and the suit symbols are accepted as well.
``{% seat %}`` and ``{% pile %}`` draw a replay's position with the table's own markup.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django import template
from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext
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


@dataclass(frozen=True, slots=True)
class Face:
    """What a card shows."""

    rank: str  # as shown: 10 for a ten
    symbol: str  # the suit's
    colour: str  # a CSS modifier: card--red, card--black
    name: str  # spoken, in the language of the page
    code: str  # the notation: TS


def face(card: object) -> Face:
    """What ``card`` (a card or its notation) shows. A filter of the Jinja2 templates:
    ``{% set f = card|face %}``."""
    return _face(str(card), get_language())


@lru_cache(maxsize=1024)
def _face(text: str, language: str | None) -> Face:
    """:func:`face`, worked out once per card and language (it is asked for on every table)."""
    rank, suit = _split(text)
    shown, rank_name = RANKS[rank]
    symbol, suit_name, colour = SUITS[suit]
    name = gettext("%(rank)s of %(suit)s") % {"rank": rank_name, "suit": suit_name}
    return Face(shown, symbol, colour, name, rank + suit)


def clock(milliseconds: int | None) -> str:
    """A clock reading, ``m:ss`` (tenths under ten seconds); a filter of the Jinja2 templates."""
    if milliseconds is None:
        return ""
    ms = max(0, milliseconds)
    minutes, seconds = divmod(ms // 1000, 60)
    if ms < 10_000:
        return f"0:{ms / 1000:04.1f}"
    return f"{minutes}:{seconds:02d}"


def _partial(name: str, **context: object) -> SafeString:
    """The live table's Jinja2 partial ``name``, rendered for a Django template."""
    return mark_safe(get_template(name, using="jinja2").render(context))


@register.simple_tag
def cards(notation: str) -> SafeString:
    """One chip per card in ``notation`` (cards separated by spaces)."""
    return _partial("game/_chips.html", cards=notation.split())


@register.simple_tag
def seat(seat: Any, highlight: Any = ()) -> SafeString:
    """One side of a replay's position, nothing to play; ``highlight`` marks the cards just
    moved."""
    return _partial(
        "game/_seat.html", seat=seat, mine=False, table=None, highlight=highlight, csrf=""
    )


@register.simple_tag
def pile(cards: Sequence[Any], highlight: Any = ()) -> SafeString:
    """The pile, bottom to top; ``highlight`` marks the cards just moved."""
    return _partial("game/_pile.html", pile=cards, highlight=highlight)
