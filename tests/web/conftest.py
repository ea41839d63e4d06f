"""Players for the web tests."""

import pytest
from django.contrib.auth import get_user_model


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
    """Runs the background tasks that are due, here and now, as a task worker would (in the
    test's transaction, so without closing its connection between tasks)."""
    from game import workers

    monkeypatch.setattr(workers, "close_old_connections", lambda: None)

    def run() -> None:
        workers.Worker(
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
