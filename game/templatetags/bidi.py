"""Right to left done right: isolate what has a direction of its own.

In a Hebrew page, a Latin name or a line of chat that ends in punctuation was turned about by
its neighbours ("!alice" for "alice!", ".1 KH" for "1. KH"). Wrapped in ``<bdi>``, a value keeps
its own direction and leaves the sentence around it alone. Both filters escape the value and may
be used inside ``{% blocktranslate with name=player|bdi %}``, which keeps the message unchanged.

- ``{{ name|bdi }}``: text people typed (names, chat, reports): its own first letter decides.
- ``{{ turn|ltr }}``: notation, clocks, scores and numbered turns: left to right in every
  language, as RULES.md writes them.
- ``{{ name|isolate }}``: :func:`bdi` where no markup can go (a page's ``<title>``), with
  Unicode's own isolate marks.
"""

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.filter
def bdi(value: object) -> SafeString:
    return format_html("<bdi>{}</bdi>", value)


@register.filter
def ltr(value: object) -> SafeString:
    return format_html('<bdi dir="ltr">{}</bdi>', value)


@register.filter
def isolate(value: object) -> str:
    return f"\N{FIRST STRONG ISOLATE}{value}\N{POP DIRECTIONAL ISOLATE}"
