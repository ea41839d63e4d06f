"""``{% fields form %}``: a form's fields as ``game/_fields.html`` writes them, a blank form's
rendered once per language.

Django renders every widget, and every option of a select, through a template of its own: the
lobby's two blank forms were most of its page (46 ms with 50 open seeks), and a crowd arriving
opens the lobby first (each player reads its form token there). A blank form without initial
values of its own is the same for everyone in a language, so its markup is kept; a bound one
(with the visitor's values and errors) is rendered each time.
"""

from functools import lru_cache

from django import forms, template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

register = template.Library()


@register.simple_tag
def fields(form: forms.Form) -> SafeString:
    if form.is_bound or form.initial:
        return mark_safe(render_to_string("game/_fields.html", {"form": form}))
    return _blank(type(form), form.auto_id, form.prefix, get_language())


@lru_cache(maxsize=64)
def _blank(
    form_class: type[forms.Form], auto_id: str | bool, prefix: str | None, language: str | None
) -> SafeString:
    blank = form_class(auto_id=auto_id, prefix=prefix)
    return mark_safe(render_to_string("game/_fields.html", {"form": blank}))
