"""Which language a visitor gets: the menu's choice (a cookie, and the profile of a logged-in
player, applied on their next login anywhere), else the browser's Accept-Language."""

import re
from pathlib import Path

import django
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.django_messages import DJANGO_MESSAGES
from accounts.models import Profile

pytestmark = pytest.mark.django_db

COOKIE = settings.LANGUAGE_COOKIE_NAME


def page_language(client: Client, path: str = "/", **headers: str) -> str:
    response = client.get(path, headers=headers)
    assert response.status_code == 200
    match = re.search(r'<html lang="([^"]+)" dir="(ltr|rtl)">', response.content.decode())
    assert match, "no <html lang dir>"
    return match.group(1)


def choose(client: Client, language: str, next_page: str = "/games/") -> None:
    response = client.post(reverse("accounts:language"), {"language": language, "next": next_page})
    assert response.status_code == 302
    assert response["Location"] == next_page


@pytest.mark.parametrize("language", ["gl", "he", "hy"])
def test_the_browsers_language_is_the_first_guess(client: Client, language: str) -> None:
    assert page_language(client, accept_language=f"{language},en;q=0.5") == language


def test_an_unknown_browser_language_gets_english(client: Client) -> None:
    assert page_language(client, accept_language="de-DE,de;q=0.9") == "en"


def test_every_page_has_the_language_menu_naming_each_language_in_itself(client: Client) -> None:
    for path in ["/", reverse("game:lobby"), reverse("archive:archive"), reverse("accounts:login")]:
        html = client.get(path, headers={"accept-language": "he"}).content.decode()
        menu = re.search(r'<form class="languages".*?</form>', html, re.S)
        assert menu, f"no language menu on {path}"
        names = re.findall(
            r'value="(\w+)" lang="\w+" class="languages__choice"[^>]*>([^<]+)<', menu[0]
        )
        assert names == [("en", "English"), ("gl", "Galego"), ("he", "עברית"), ("hy", "Հայերեն")]
        assert 'value="he" lang="he" class="languages__choice" aria-current="true"' in menu[0]
        assert f'name="next" value="{path}"' in menu[0]


def test_a_visitors_choice_is_remembered_over_the_browsers_language(client: Client) -> None:
    choose(client, "hy")

    assert client.cookies[COOKIE].value == "hy"
    assert client.cookies[COOKIE]["max-age"] == settings.LANGUAGE_COOKIE_AGE
    assert page_language(client, accept_language="gl") == "hy"


def test_a_language_the_site_lacks_changes_nothing(client: Client, alice) -> None:
    client.force_login(alice)

    choose(client, "de")

    assert page_language(client) == "en"
    assert not Profile.objects.exists()


def test_a_players_choice_is_kept_on_their_profile(client: Client, alice) -> None:
    client.force_login(alice)

    choose(client, "he")
    choose(client, "gl")

    assert Profile.objects.get(user=alice).language == "gl"


def test_a_visitors_choice_touches_no_profile(client: Client, alice) -> None:
    choose(client, "he")

    assert not Profile.objects.exists()


def test_logging_in_on_another_browser_brings_the_players_language(alice) -> None:
    home, elsewhere = Client(), Client()
    home.force_login(alice)
    choose(home, "hy")

    response = elsewhere.post(
        reverse("accounts:login"),
        {"username": "alice", "password": "pw-alice-123"},
        headers={"accept-language": "gl"},
    )

    assert response.status_code == 302
    assert elsewhere.cookies[COOKIE].value == "hy"
    assert page_language(elsewhere, accept_language="gl") == "hy"


def test_logging_in_without_a_chosen_language_keeps_the_browsers(client: Client, alice) -> None:
    client.post(reverse("accounts:login"), {"username": "alice", "password": "pw-alice-123"})

    assert COOKIE not in client.cookies
    assert page_language(client, accept_language="gl") == "gl"


def test_signing_up_keeps_the_language_the_player_signed_up_in(client: Client) -> None:
    response = client.post(
        reverse("accounts:signup"),
        {"username": "dora", "password1": "a-long-pass-99", "password2": "a-long-pass-99"},
        headers={"accept-language": "he"},
    )

    assert response.status_code == 302
    assert Profile.objects.get(user__username="dora").language == "he"


def test_the_django_messages_we_carry_are_still_djangos() -> None:
    """accounts/django_messages.py lists Django's words; a Django that changed them would leave
    our translations unused."""

    auth = Path(django.__file__).parent / "contrib" / "auth"
    names = ("models.py", "validators.py", "forms.py", "password_validation.py")
    sources = "".join((auth / name).read_text() for name in names)
    flat = re.sub(r'"\s+"', "", sources)  # Python's adjacent literals, joined
    for message in DJANGO_MESSAGES:
        assert f'"{message}"' in flat, message
