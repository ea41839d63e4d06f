"""Real-browser tests: Playwright (sync API) driving Debian's Chromium against a live server.

Everything under tests/e2e is marked ``e2e``; `make test` runs these in a pytest process of their
own (`pytest -m e2e`), since pytest-playwright and pytest-asyncio break each other in one process.
Without /usr/bin/chromium (`apt-get install chromium`) they are skipped.
"""

import multiprocessing
import os
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from daphne.testing import DaphneProcess

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
E2E_DIR = Path(__file__).resolve().parent

# The live server (Daphne, for websockets) runs in a child process. Forked, it would inherit
# Playwright's threads mid-flight and hang; spawned, it starts clean and reads its settings
# afresh, so the computer's pause and the task workers' poll are set through the environment:
# short, for quick games (a reply starts within a poll of falling due).
multiprocessing.set_start_method("spawn", force=True)
os.environ["COMPUTER_PAUSE_MS"] = "50"
os.environ["TASK_POLL_MS"] = "50"
ARTIFACTS = E2E_DIR.parent.parent / "test-artifacts"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of this directory ``e2e`` (before `-m` selects), and skip them without
    Chromium."""
    for item in items:
        if E2E_DIR in item.path.parents:
            item.add_marker(pytest.mark.e2e)
            if not CHROMIUM.exists():
                item.add_marker(
                    pytest.mark.skip(
                        reason=f"{CHROMIUM} is missing: install Debian's chromium to run the "
                        "browser tests (apt-get install chromium)"
                    )
                )


@pytest.fixture(scope="session", autouse=True)
def _allow_orm_beside_playwright() -> Iterator[None]:
    """Sync Playwright runs an event loop in the test thread, where Django would otherwise refuse
    the ORM calls of the live server's database set-up and teardown. Only for these tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """test-artifacts/ at the project's top (gitignored): screenshots for people to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def _set_up_serving_tasks(set_up: Callable[[], None]) -> None:
    """In the live server's process: its database, then its task workers, as ``make run``'s
    embedded ones (the live server runs Daphne in a spawned process, which starts none)."""
    set_up()
    from yourtrumps_site.serving import workers

    workers.start_embedded()


class DaphneServingTasks(DaphneProcess):
    """The live server's process, serving the task queues too: the computer's replies and the
    analyses are recorded, and published to its sockets, from the server's own process."""

    def __init__(self, *args: Any, setup: Callable[[], None] | None = None, **kwargs: Any) -> None:
        assert setup is not None
        super().__init__(*args, setup=partial(_set_up_serving_tasks, setup), **kwargs)


#: Where the live server of a ``helpers.MailingBrowserTestCase`` writes the mail it sends.
MAIL_DIR = ARTIFACTS / "mail"


def _set_up_writing_mail(set_up: Callable[[], None], folder: Path) -> None:
    """In the live server's process: its database, then Django's file-based mail backend."""
    set_up()
    from django.conf import settings

    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(folder)


class DaphneWritingMail(DaphneProcess):
    """The live server's process, writing each mail it sends into :data:`MAIL_DIR`: its outbox
    is in another process, so the test reads the files, as a player reads their mailbox."""

    def __init__(self, *args: Any, setup: Callable[[], None] | None = None, **kwargs: Any) -> None:
        assert setup is not None
        super().__init__(*args, setup=partial(_set_up_writing_mail, setup, MAIL_DIR), **kwargs)
