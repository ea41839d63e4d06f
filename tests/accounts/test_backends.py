"""Logging in (``accounts.backends``): the session's user, and the sessions stored before the
site had its own backend."""

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse

from accounts import backends


@pytest.mark.django_db
def test_the_backend_reads_the_sessions_user_as_stored(alice):
    user = backends.ModelBackend().get_user(str(alice.pk))  # a session keeps the id as text
    assert user == alice
    assert (user.username, user.password, user.date_joined) == (
        alice.username,
        alice.password,
        alice.date_joined,
    )


@pytest.mark.django_db
def test_the_backend_reads_no_one_for_an_inactive_or_gone_user(alice):
    backend = backends.ModelBackend()
    get_user_model().objects.filter(pk=alice.pk).update(is_active=False)
    assert backend.get_user(str(alice.pk)) is None
    assert backend.get_user(str(alice.pk + 1)) is None


@pytest.mark.django_db
def test_signing_up_and_logging_in_name_the_sites_backend(client):
    client.post(
        reverse("accounts:signup"),
        {"username": "newbie", "password1": "a-long-pass-123", "password2": "a-long-pass-123"},
    )
    assert client.session[BACKEND_SESSION_KEY] == backends.PATH
    other = Client()
    other.post(reverse("accounts:login"), {"username": "newbie", "password": "a-long-pass-123"})
    assert other.session[BACKEND_SESSION_KEY] == backends.PATH
    assert other.get(reverse("game:lobby")).context["user"].username == "newbie"


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.migrate([target])
    executor.loader.build_graph()


def test_a_session_stored_before_the_sites_backend_stays_logged_in(transactional_db):
    _migrate(("accounts", "0001_initial"))
    try:
        alice = get_user_model().objects.create_user("alice", password="pw-alice-123")
        client = Client()
        client.force_login(alice, backend="django.contrib.auth.backends.ModelBackend")
        key = client.cookies["sessionid"].value
        assert SessionStore(key).load()[BACKEND_SESSION_KEY].startswith("django.")

        _migrate(("accounts", "0002_sessions_name_the_site_backend"))
        assert SessionStore(key).load()[BACKEND_SESSION_KEY] == backends.PATH
        assert client.get(reverse("game:lobby")).context["user"] == alice

        _migrate(("accounts", "0001_initial"))  # and back
        assert SessionStore(key).load()[BACKEND_SESSION_KEY].startswith("django.")
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
