"""The environment of the live table's templates (``templates/jinja2/game/``), the second engine
of ``TEMPLATES``: a table is rendered for each of a game's viewers on every turn, and Jinja2
compiles a template to Python once, where Django's template language walks its nodes on every
render (docs/serving.md measured both).

Django's translation functions come through Jinja2's i18n extension, called at render time in
the language active then (a socket's viewer's); the cards' ``face`` and ``clock`` filters,
:data:`PLURALS` are its globals. Autoescaping is on (the backend's default); ``auto_reload``
follows ``DEBUG``.

``makemessages`` reads a Jinja2 template as a Django one, whose lexer shares ``{{ }}`` and
``{% %}``: it finds ``_("...")`` alone in a ``{{ }}`` and anywhere in a ``{% %}``, but not as a
macro's argument inside a ``{{ }}``, and no plural. A template's message is therefore
``{{ _("...") }}`` or set in a tag (``{% set label = _("...") %}``), and its plurals are here,
where it finds them (tests/site/test_catalogues.py checks both).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, ngettext, ngettext_lazy
from jinja2 import Environment, StrictUndefined

from game.templatetags.cards import clock, face

#: The table's messages with a count, each formatted with it: ``plurals.take % {"n": 3}``.
PLURALS = {
    "cards": ngettext_lazy("%(n)s card", "%(n)s cards", "n"),
    "pile": ngettext_lazy("%(n)s card on the pile", "%(n)s cards on the pile", "n"),
    "take": ngettext_lazy("Take %(n)s card", "Take %(n)s cards", "n"),
}


def environment(**options: Any) -> Environment:
    """The environment Django's Jinja2 backend builds (``TEMPLATES``' ``environment``)."""
    # A misspelt name is an error, not an empty string (the backend's default is another).
    options["undefined"] = StrictUndefined
    env = Environment(
        extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True, **options
    )
    env.install_gettext_callables(gettext, ngettext)  # type: ignore[attr-defined]
    env.globals["plurals"] = PLURALS
    env.filters.update(face=face, clock=clock)
    return env
