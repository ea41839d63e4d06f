"""How the replay viewer words the computer's findings."""

from django import template
from django.utils.translation import gettext_lazy as _

register = template.Library()

PROVEN = {"win": _("win"), "draw": _("draw"), "loss": _("loss")}


@register.simple_tag
def verdict(value: str | float, exact: bool) -> str:
    """A proven result in words, or an estimate as a signed score (+1 a sure win, -1 a loss)."""
    if exact and isinstance(value, str):
        return str(PROVEN[value])
    return f"{float(value):+.2f}"
