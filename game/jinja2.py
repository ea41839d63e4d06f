"""The environment of the site's Jinja2 templates (``templates/jinja2/``, the second engine of
``TEMPLATES``), in which the live table is rendered: a table is rendered for two or three viewers
on every turn, and Jinja2 compiles a template to Python once, where Django's template language
walks its nodes on every render.

Django's ``url`` and ``static``, its translation functions through Jinja2's i18n extension
(called at render time, in the language active then: a socket's viewer's), the cards' filters,
and :data:`PLURALS`. Autoescaping is on (the backend's default), and ``auto_reload`` follows
``DEBUG``: outside it a compiled template is never checked against its file again.

``makemessages`` reads a Jinja2 template as a Django one, whose lexer shares ``{{ }}`` and
``{% %}``: it finds ``_("...")`` at the start of a ``{{ }}`` and anywhere in a ``{% %}``, but not
inside a ``{{ }}`` (a macro's argument there), and no plural. A template's message is therefore
``{{ _("...") }}``, a ``{% call %}``'s body, or set in a tag (``{% set label = _("...") %}``),
and its plurals are here, where it finds them (tests/web/test_catalogues.py checks both).
"""

from __future__ import annotations

from typing import Any

from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext, ngettext, ngettext_lazy
from jinja2 import Environment

from game.templatetags.cards import clock, face

#: The table's messages with a count, each formatted with it: ``plurals.take % {"n": 3}``.
PLURALS = {
    "cards": ngettext_lazy("%(n)s card", "%(n)s cards", "n"),
    "pile": ngettext_lazy("%(n)s card on the pile", "%(n)s cards on the pile", "n"),
    "take": ngettext_lazy("Take %(n)s card", "Take %(n)s cards", "n"),
}


def environment(**options: Any) -> Environment:
    env = Environment(extensions=["jinja2.ext.i18n"], **options)
    env.install_gettext_callables(gettext, ngettext)  # type: ignore[attr-defined]
    env.globals.update(url=reverse, static=static, plurals=PLURALS)
    env.filters.update(face=face, clock=clock)
    return env
