"""A fair deal's commitment as the lobby, a seek and the table show it (``game.engine.fairness``):
the hash of the server's secret, shown before either player's part reaches the server. Written in
Python, as the lobby's seeks and the table are."""

from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from game.models import Game

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


def commitment_html(commitment: str) -> str:
    """A commitment in short, opening to the whole hex and what it is for; empty for a game
    created before deals could be checked."""
    if not commitment:
        return ""
    label = escape(gettext("Deal commitment"))
    about = escape(
        gettext(
            "The server's secret part of the deal, hashed (SHA-256) before either player's part "
            "reached it. Once the game is over the secret is shown, and anyone can check it "
            "against this and deal again from the three parts."
        )
    )
    return (
        f'<details class="commitment"><summary>{label}: <code dir="ltr">'
        f"{commitment[:SHORT]}…</code></summary>"
        f'<code class="commitment__full" dir="ltr">{commitment}</code>'
        f'<p class="muted">{about}</p></details>'
    )


@register.simple_tag
def deal_commitment(commitment: str) -> SafeString:
    """``{% deal_commitment game.commitment %}``: :func:`commitment_html`."""
    return mark_safe(commitment_html(commitment))
