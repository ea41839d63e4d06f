"""The Jinja2 engine the live table is rendered in (``game.jinja2``): compiled once outside
DEBUG, escaping, strict about names, translating at render time."""

import jinja2
import pytest
from django.conf import settings
from django.template import engines
from django.utils import translation


def render(source: str, **context: object) -> str:
    return engines["jinja2"].from_string(source).render(context)


def test_outside_debug_a_compiled_template_is_never_checked_against_its_file_again() -> None:
    env = engines["jinja2"].env

    assert settings.DEBUG is False  # as the tests run, and the site is served
    assert env.auto_reload is False
    assert env.get_template("game/_table.html") is env.get_template("game/_table.html")


def test_what_a_template_writes_is_escaped() -> None:
    assert render("{{ name }}", name='<b>"o\'bob"</b>') == "&lt;b&gt;&#34;o&#39;bob&#34;&lt;/b&gt;"


def test_a_name_the_template_was_not_given_fails_the_render() -> None:
    with pytest.raises(jinja2.UndefinedError):
        render("{{ seat.name }}")


def test_messages_are_translated_in_the_language_active_at_render_time() -> None:
    template = engines["jinja2"].from_string('{{ _("Moves") }}: {{ plurals["take"] % {"n": 2} }}')

    english = template.render({})
    with translation.override("gl"):
        galician = template.render({})

    assert english == "Moves: Take 2 cards"
    assert galician == "Xogadas: Coller 2 cartas"
