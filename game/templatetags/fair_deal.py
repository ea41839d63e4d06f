"""A fair deal's commitment as the lobby, a seek and the table show it (``game.engine.fairness``):
the hash of the server's secret, shown before either player's part reaches the server: in short
in the lobby's seeks (written in Python, as they are), in full as the table's partial."""

from html import escape

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from game.models import Game
from game.table_markup import render_partial

register = template.Library()

#: Hex digits of a commitment shown in short; the whole is a click (or a tooltip) away.
SHORT = 12


def commitment_short(game: Game) -> str:
    """The lobby's form: the first digits, the whole as a tooltip; empty for an older game.
    The hex is code: no language's text, read left to right."""
    if not game.commitment:
        return ""
    label = escape(gettext("Deal commitment"))
    return (
        f'<span class="commitment-short">{label}: <code title="{game.commitment}" dir="ltr">'
        f"{game.commitment[:SHORT]}…</code></span>"
    )


@register.simple_tag
def deal_commitment(commitment: str) -> SafeString:
    """``{% deal_commitment game.commitment %}``: the table's ``_commitment.html``."""
    return render_partial("_commitment", commitment=commitment)
