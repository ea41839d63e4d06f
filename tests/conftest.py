import os
import secrets

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from yourtrumps_site.catalogues import compile_catalogues

# The servers these tests start in processes of their own (live servers, `manage.py serve`) keep
# the abuse limits' counts under this run's own prefix: on Redis they outlive the run, and an
# earlier run's sign-ups must not count against this one's.
os.environ.setdefault("CACHE_KEY_PREFIX", f"test-{secrets.token_hex(4)}")


def pytest_configure(config: pytest.Config) -> None:
    """Tests serve static files as development does: from the apps' and static/ folders through
    the finders, in plain storage. (The compressed manifest storage used when DEBUG is false
    needs a `collectstatic` run first, and pytest-django runs the tests with DEBUG false.)"""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True
    # The translations, as `make run` serves them, also for a bare `pytest`.
    compile_catalogues()


@pytest.fixture(autouse=True)
def _channel_layer_per_test():
    """Each test gets channel layers made afresh: channels-redis binds its receive lock to the
    event loop it first ran on, and each async test runs on a loop of its own (reusing the
    layer of an earlier test failed as 'Lock ... is bound to a different event loop')."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _abuse_limits_count_afresh_per_test(settings):
    """Each test's requests count against the abuse limits (accounts.limits) from zero: under a
    prefix of its own, as a rolled-back test leaves counts behind on Redis, and a transactional
    one on the database cache."""
    settings.RATELIMIT_CACHE_PREFIX = f"rl-{secrets.token_hex(4)}:"


@pytest.fixture(autouse=True)
def _default_language_per_test():
    """Each test starts in the site's default language: Django's test client runs a request in
    the test's own thread, and the language LocaleMiddleware activated for it (Hebrew, say) stayed
    active for whatever the test did next, and the tests after it."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _no_live_games_across_tests():
    """Each test starts with no game kept in memory (``game.live.LIVE_GAMES``) and no table
    rendered or awaited (the sockets' table cache): a test's games are rolled back, and a later
    test's game may get the same id."""
    from game.consumers.table import _TABLES
    from game.live import LIVE_GAMES

    LIVE_GAMES.clear()
    _TABLES.clear()
    yield
    LIVE_GAMES.clear()
    _TABLES.clear()


# -- players, for every test that needs some ----------------------------------------------


@pytest.fixture
def alice():
    return get_user_model().objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob():
    return get_user_model().objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def carol():
    return get_user_model().objects.create_user("carol", password="pw-carol-123")


@pytest.fixture
def moderator():
    from moderation.services import moderator_grant

    user = get_user_model().objects.create_user("mod", password="pw-mod-12345")
    moderator_grant(user=user)
    return get_user_model().objects.get(pk=user.pk)  # fresh: no cached permissions


@pytest.fixture
def root():
    return get_user_model().objects.create_superuser("root", password="pw-root-12345")


@pytest.fixture
def run_tasks(monkeypatch):
    """Runs the background tasks that are due, here and now, as ``manage.py db_worker --batch``
    would: the recovery once, then django-tasks-db's worker until nothing is due (in the test's
    transaction, so without closing its connection between tasks)."""
    from django_tasks_db.management.commands import db_worker

    from yourtrumps_site.serving import recovery, workers

    monkeypatch.setattr(db_worker, "close_old_connections", lambda: None)
    monkeypatch.setattr(recovery, "close_old_connections", lambda: None)

    def run() -> None:
        recovery.recover_now(workers.QUEUES)
        db_worker.Worker(
            queue_names=list(workers.QUEUES),
            interval=0,
            batch=True,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id="test-worker",
            excluded_queue_names=[],
        ).run()

    return run
