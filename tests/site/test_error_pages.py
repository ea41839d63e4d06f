"""The site's own 403, 404 and 500 pages, in the visitor's language, with ``DEBUG`` on (under
``make run``) as well as off; ``DEBUG_ERROR_PAGES`` brings Django's technical pages back."""

import re

import pytest
from django.test import Client
from django.utils import translation

pytestmark = pytest.mark.django_db


def back_link(language: str) -> str:
    """The pages' link home, as the language's catalogue has it."""
    with translation.override(language):
        return translation.gettext("Back to the front page")


@pytest.fixture(params=[False, True], ids=["debug-off", "debug-on"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


def error_page(client: Client, path: str, status: int, language: str) -> str:
    response = client.get(path, headers={"accept-language": language})
    assert response.status_code == status
    html = response.content.decode()
    assert re.search(rf'<html lang="{language}" dir="(ltr|rtl)">', html), "not in the language"
    assert f'<p class="error-page__code" aria-hidden="true">{status}</p>' in html
    assert back_link(language) in html
    return html


@pytest.mark.parametrize("language", ["en", "gl", "he", "hy"])
def test_an_unknown_address_and_an_unknown_game_get_the_sites_404(client, debug, language):
    error_page(client, "/no-such-page/", 404, language)
    error_page(client, "/games/999999/", 404, language)


@pytest.mark.parametrize("language", ["en", "gl", "he", "hy"])
def test_a_player_on_a_moderators_page_gets_the_sites_403_saying_why(
    client, debug, language, alice
):
    client.force_login(alice)
    html = error_page(client, "/moderation/", 403, language)
    with translation.override(language):
        assert translation.gettext("Only moderators may open this page.") in html


@pytest.mark.parametrize("language", ["en", "gl", "he", "hy"])
def test_a_crash_gets_the_sites_500(debug, language, alice, monkeypatch):
    from game.templatetags import players

    def crash(player):
        raise RuntimeError("a bug")

    monkeypatch.setattr(players, "player_record", crash)  # read while the profile renders
    client = Client(raise_request_exception=False)
    html = error_page(client, "/accounts/players/alice/", 500, language)
    assert "a bug" not in html and "Traceback" not in html
    assert ('dir="rtl"' in html) == (language == "he")


def test_debug_error_pages_brings_back_djangos_technical_pages(client, settings):
    settings.DEBUG = True
    settings.DEBUG_ERROR_PAGES = True
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and "error-page__code" not in response.content.decode()
    assert "URLconf" in response.content.decode()
