"""The abuse limits (accounts.limits, issue 46): each lets its rate through, refuses the next
request with a 429, ``Retry-After`` and a page (or for htmx a notice) saying what was limited and
when to try again, and lets requests through again once its window has passed. The counts live
in the cache the settings give: the test database's cache table, or Redis with ``REDIS_URL``
(each test counts from zero: tests/conftest.py)."""

import os
import re
import sqlite3
import subprocess
import sys
import time

import pytest
import redis.exceptions
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import DatabaseError, connection
from django.test import override_settings
from django.urls import reverse

from accounts.limits import client_address, in_words
from game.models import Game
from game.services.starting import game_cancel_seek, game_create_seek
from moderation.models import Report
from tests.games import finished_game

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
PASSWORD = "a-long-pass-42"


def _later(monkeypatch, seconds: int) -> None:
    """Move the clock that django-ratelimit's windows read (``time.time``) ``seconds`` on."""
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + seconds)


def _refused(response, message: str) -> int:
    """Check a refusal by an abuse limit and return its ``Retry-After``."""
    assert response.status_code == 429
    page = response.content.decode()
    assert message in page and "Please try again in" in page
    wait = int(response["Retry-After"])
    assert wait > 0
    return wait


def _sign_up(client, name: str, **extra):
    data = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    return client.post(reverse("accounts:signup"), data, **extra)


@override_settings(LIMIT_SIGNUPS="2/h")
def test_sign_ups_past_the_limit_from_one_address_wait_for_the_hour(client, monkeypatch):
    assert _sign_up(client, "first").status_code == 302
    assert _sign_up(client, "second").status_code == 302
    refused = _sign_up(client, "third")
    wait = _refused(refused, "Too many sign-ups have come from your address.")
    assert wait <= 3600
    assert "<h1>Too many requests</h1>" in refused.content.decode()  # the site's page
    assert not get_user_model().objects.filter(username="third").exists()
    assert client.get(reverse("accounts:signup")).status_code == 200  # the form still shows

    _later(monkeypatch, wait)
    assert _sign_up(client, "third").status_code == 302


@override_settings(LIMIT_SIGNUPS="1/h")
def test_sign_ups_count_by_the_connection_unless_a_proxy_of_the_site_s_is_trusted(client):
    assert _sign_up(client, "first", HTTP_X_FORWARDED_FOR="198.51.100.7").status_code == 302
    # Untrusted, the header is the client's to write: the connection's address counts.
    assert _sign_up(client, "second", HTTP_X_FORWARDED_FOR="198.51.100.8").status_code == 429
    with override_settings(TRUST_X_FORWARDED_FOR=True):
        # The proxy's address (the last one) counts; one written before it by the client not.
        forged = "203.0.113.1, 198.51.100.9"
        assert _sign_up(client, "third", HTTP_X_FORWARDED_FOR=forged).status_code == 302
        assert _sign_up(client, "fourth", HTTP_X_FORWARDED_FOR="198.51.100.9").status_code == 429


@override_settings(TRUST_X_FORWARDED_FOR=True)
def test_a_forwarded_address_that_is_not_one_falls_back_to_the_connection_s(rf):
    request = rf.get("/", HTTP_X_FORWARDED_FOR="unknown", REMOTE_ADDR="192.0.2.4")
    assert client_address(request) == "192.0.2.4"


@override_settings(LIMIT_INVITES="3/h")
def test_invitation_links_tried_past_the_limit_wait_for_the_hour(client, alice, monkeypatch):
    private = game_create_seek(user=alice, trump="S", private=True)
    for guess in ("a", "b", "c"):
        assert client.get(reverse("game:invite", args=[guess])).status_code == 404
    link = reverse("game:invite", args=[private.invite_token])
    wait = _refused(client.get(link), "Too many invitation links have been opened from your")

    _later(monkeypatch, wait)
    assert client.get(link).status_code == 200


@override_settings(LIMIT_IMPORTS="2/h")
def test_records_imported_past_the_limit_wait_for_the_hour(client, alice, bob, monkeypatch):
    client.force_login(alice)
    for _ in range(2):
        assert client.post(reverse("archive:import"), {"text": "not a record"}).status_code == 200
    refused = client.post(reverse("archive:import"), {"text": "not a record"})
    wait = _refused(refused, "You have imported too many records for now.")
    client.force_login(bob)  # counted per player
    assert client.post(reverse("archive:import"), {"text": "not a record"}).status_code == 200

    client.force_login(alice)
    _later(monkeypatch, wait)
    assert client.post(reverse("archive:import"), {"text": "not a record"}).status_code == 200


@override_settings(LIMIT_ANALYSES="2/h")
def test_analyses_asked_past_the_limit_wait_for_the_hour(client, alice, bob, monkeypatch):
    game = finished_game(alice, bob)
    client.force_login(alice)
    analyse = reverse("archive:analyse", args=[game.pk])
    for _ in range(2):
        assert client.post(analyse).status_code == 302
    wait = _refused(client.post(analyse), "You have asked for too many analyses for now.")
    assert wait <= 3600

    _later(monkeypatch, wait)
    assert client.post(analyse).status_code == 302


@override_settings(LIMIT_REPORTS="2/d")
def test_reports_past_the_limit_wait_for_the_day(client, alice, bob, carol, monkeypatch):
    dmitri = get_user_model().objects.create_user("dmitri", password=PASSWORD)
    client.force_login(alice)

    def report(player):
        url = reverse("moderation:report", args=[player.username])
        return client.post(url, {"reason": "abuse", "text": "Rude."})

    assert report(bob).status_code == 302 and report(carol).status_code == 302
    wait = _refused(report(dmitri), "You have sent too many reports for now.")
    assert wait <= 24 * 3600
    assert not Report.objects.filter(reported=dmitri).exists()

    _later(monkeypatch, wait)
    assert report(dmitri).status_code == 302


def _seek(client, **extra):
    return client.post(reverse("game:seek_create"), {"trump": "S", "deck": "36"}, **extra)


@override_settings(LIMIT_OPEN_SEEKS=2)
def test_a_player_with_as_many_seeks_as_allowed_waiting_is_refused_another(client, alice):
    client.force_login(alice)
    assert _seek(client).status_code == 302
    assert _seek(client).status_code == 302
    refused = _seek(client)
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "You already have 2 games waiting for an opponent" in page
    assert "<h1>Too many requests</h1>" in page
    # Only a cancelled or joined seek frees the count, not time: nothing to wait for.
    assert "Retry-After" not in refused and "Please try again in" not in page
    assert Game.objects.filter(seat0=alice, status=Game.Status.SEEKING).count() == 2

    waiting = Game.objects.filter(seat0=alice).first()
    game_cancel_seek(game_id=waiting.pk, user=alice)
    assert _seek(client).status_code == 302


@override_settings(LIMIT_OPEN_SEEKS=1)
def test_a_refused_seek_sent_by_htmx_gets_its_notice_for_the_lobby_form(client, alice):
    client.force_login(alice)
    made = _seek(client, **HTMX)
    assert made.status_code == 204 and re.fullmatch(r"/games/\d+/", made["HX-Redirect"])
    refused = _seek(client, **HTMX)
    assert refused.status_code == 429
    notice = refused.content.decode()
    assert "<html" not in notice and 'class="notice notice--error" role="alert"' in notice
    assert "You already have 1 game waiting for an opponent: cancel it" in notice
    # The lobby's forms show the answer to their htmx POST in the form.
    lobby = client.get(reverse("game:lobby")).content.decode()
    assert 'hx-post="/play/seek/" hx-target="#seek-notices"' in lobby
    assert '<div id="seek-notices" class="form__notices"></div>' in lobby


def test_a_lobby_form_s_problems_come_back_as_notices_for_htmx(client, alice):
    client.force_login(alice)
    answer = client.post(reverse("game:seek_create"), {"trump": "X"}, **HTMX)
    assert answer.status_code == 200
    assert 'class="notice notice--error"' in answer.content.decode()
    assert not Game.objects.exists()


@override_settings(LIMIT_SIGNUPS="1/h")
def test_the_refusal_speaks_the_visitor_s_language(client):
    _sign_up(client, "first", HTTP_ACCEPT_LANGUAGE="gl")
    page = _sign_up(client, "second", HTTP_ACCEPT_LANGUAGE="gl").content.decode()
    assert '<html lang="gl"' in page
    assert re.search(r"\d+\s(minutos?|horas?)", page)  # Django's Galician for the wait


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (1, "1\xa0minute"),
        (719, "12\xa0minutes"),
        (720, "12\xa0minutes"),
        (3900, "1\xa0hour, 5\xa0minutes"),
    ],
)
def test_a_wait_is_said_in_whole_minutes_rounded_up(seconds, words):
    assert in_words(seconds) == words  # a number and its unit never wrapped apart (Django's)


# -- when the store that keeps the counts fails ----------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        DatabaseError("no such table: django_cache"),
        redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379"),
        TimeoutError("timed out"),
    ],
    ids=["database", "redis", "timeout"],
)
@override_settings(LIMIT_SIGNUPS="1/h")
def test_a_limit_whose_store_fails_lets_requests_through_and_says_so(
    client, monkeypatch, caplog, error
):
    def fail(*args, **kwargs):
        raise error

    backend = type(caches["default"])
    monkeypatch.setattr(backend, "add", fail)
    monkeypatch.setattr(backend, "incr", fail)

    # Past the limit too: nothing counts them, and nobody gets a 500 (nor a 429).
    assert _sign_up(client, "first").status_code == 302
    assert _sign_up(client, "second").status_code == 302
    assert get_user_model().objects.filter(username__in=["first", "second"]).count() == 2
    assert "let a request through uncounted" in caplog.text


@pytest.mark.skipif(
    settings.CACHES["default"]["BACKEND"] != "django.core.cache.backends.db.DatabaseCache",
    reason="the default cache is not the database cache",
)
def test_a_limit_whose_cache_table_is_missing_lets_requests_through(client):
    # Dropped in the test's transaction, which gives the table back when it rolls back.
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {connection.ops.quote_name(settings.CACHE_TABLE)}")
    assert _sign_up(client, "first").status_code == 302
    assert client.get(reverse("accounts:signup")).status_code == 200


def test_migrate_alone_makes_the_database_cache_s_table(tmp_path):
    """A deploy by Django's ordinary steps (``migrate``, no ``createcachetable``) has the table
    the limits count in. On a fresh SQLite database in a process of its own: the test database
    cannot tell, as pytest-django runs ``createcachetable`` itself after the migrations."""
    database = tmp_path / "db.sqlite3"
    migrate = (
        "import sys, django\n"
        "from django.conf import settings\n"
        "settings.DATABASES['default']['NAME'] = sys.argv[1]\n"
        "django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('migrate', interactive=False, verbosity=0)\n"
    )
    unset = {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    env = {key: value for key, value in os.environ.items() if key not in unset}
    env |= {"DJANGO_SETTINGS_MODULE": "yourtrumps_site.settings", "DEBUG": "true"}
    subprocess.run(
        [sys.executable, "-c", migrate, str(database)],
        cwd=settings.BASE_DIR,
        env=env,
        check=True,
        timeout=240,
    )
    with sqlite3.connect(database) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert settings.CACHE_TABLE in tables
