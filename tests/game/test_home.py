import pytest
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation

pytestmark = pytest.mark.django_db

RULES_HEADINGS = [
    "The cards",
    "Trumps and the deal",
    "A turn: lead, beat or take",
    "What beats what",
    "How many cards a take picks up",
    "The end of the game",
    "Variants",
    "Notation",
    "Worked examples",
]


def test_home_renders_the_rules(client: Client) -> None:
    response = client.get(reverse("game:home"))

    assert response.status_code == 200
    assert response.templates[0].name == "game/home.html"
    html = response.content.decode()
    assert "<title>Rules of the game · Your Trumps</title>" in html
    for heading in RULES_HEADINGS:
        assert f"<h2>{heading}</h2>" in html


def test_home_shows_the_notation_examples(client: Client) -> None:
    html = client.get("/").content.decode()

    for written in ["7H", "QS-9D", "QS", "take", "JC-6S", "AS-7C"]:
        assert f"<code>{written}</code>" in html
    assert 'aria-label="queen of spades"' in html
    assert 'class="card card--red" role="img" aria-label="seven of hearts"' in html


def test_home_serves_htmx_and_the_stylesheet_from_our_own_static_files(client: Client) -> None:
    html = client.get("/").content.decode()

    assert '<script src="/static/django_htmx/htmx-2.min.js" defer></script>' in html
    assert '<script src="/static/django_htmx/ext/hx-ws-2.min.js" defer></script>' in html
    assert 'href="/static/css/site.css"' in html
    assert "https://" not in html


def test_home_is_left_to_right_in_english(client: Client) -> None:
    html = client.get("/").content.decode()

    assert '<html lang="en" dir="ltr">' in html


@pytest.mark.parametrize(("language", "direction"), [("he", "rtl"), ("gl", "ltr"), ("hy", "ltr")])
def test_home_follows_the_browsers_language(client: Client, language: str, direction: str) -> None:
    html = client.get("/", headers={"accept-language": language}).content.decode()

    assert f'<html lang="{language}" dir="{direction}">' in html


def test_home_template_renders_right_to_left_under_hebrew(rf: RequestFactory) -> None:
    with translation.override("he"):
        html = render_to_string("game/home.html", request=rf.get("/"))

    assert '<html lang="he" dir="rtl">' in html
    assert "<code>QS-9D</code>" in html
