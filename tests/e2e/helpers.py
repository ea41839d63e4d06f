"""What the browser tests of the table share: players and games made through the services (away
from Playwright's event loop), logging in, waiting for the socket, turns played by the server,
and the mail a live server sends."""

import email
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from email import policy
from pathlib import Path
from typing import TypeVar

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth import get_user_model
from django.db import connection
from playwright.sync_api import Browser, Page

from game.models import Game
from game.selectors import stored_state
from game.services.starting import game_create_seek, game_join
from tests.e2e.conftest import MAIL_DIR, DaphneWritingMail

LIVE = 20_000  # ms: a push over the websocket, a page load
PASSWORD = "a-long-pass-42"
T = TypeVar("T")


class BrowserTestCase(ChannelsLiveServerTestCase):
    """A live server with its static files, and the session's browser to open pages in."""

    serve_static = True

    @pytest.fixture(autouse=True)
    def _browser(self, browser: Browser, artifacts_dir: Path) -> None:
        self.browser = browser
        self.artifacts = artifacts_dir

    def new_page(self) -> Page:
        context = self.browser.new_context(viewport={"width": 1280, "height": 900})
        return context.new_page()


class MailingBrowserTestCase(BrowserTestCase):
    """A :class:`BrowserTestCase` whose live server's mail can be read (:meth:`mail_to`)."""

    ProtocolServerProcess = DaphneWritingMail

    def setUp(self) -> None:
        super().setUp()
        shutil.rmtree(MAIL_DIR, ignore_errors=True)
        MAIL_DIR.mkdir(parents=True)

    def mail_to(self, address: str, count: int = 1) -> str:
        """The text of the ``count``-th mail sent to ``address``, once it has been sent."""
        deadline = time.monotonic() + LIVE / 1000
        while True:
            found = []
            for path in sorted(MAIL_DIR.glob("*.log"), key=lambda p: p.stat().st_mtime):
                for raw in path.read_bytes().split(b"-" * 79 + b"\n"):
                    message = email.message_from_bytes(raw.strip(), policy=policy.default)
                    if message["To"] == address:
                        found.append(message.get_body(("plain",)).get_content())
            if len(found) >= count:
                return str(found[count - 1])
            assert time.monotonic() < deadline, f"no mail number {count} to {address}"
            time.sleep(0.1)


def in_a_thread(work: Callable[[], T]) -> T:
    """Run ``work`` away from Playwright's event loop: the services announce changes through
    ``async_to_sync``, which refuses to run in a thread that has a loop."""

    def run() -> T:
        try:
            return work()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def users(*names: str) -> list[object]:
    model = get_user_model().objects
    return in_a_thread(lambda: [model.create_user(n, password=PASSWORD) for n in names])


def user(name: str) -> object:
    return in_a_thread(lambda: get_user_model().objects.get(username=name))


def game_between(first: object, second: object) -> Game:
    """``first`` (trumps spades) and ``second`` (hearts) at a table, nothing played yet."""

    def start() -> Game:
        seek = game_create_seek(user=first, trump="S")
        return game_join(game_id=seek.pk, user=second, trump="H")

    return in_a_thread(start)


def post(page: Page, path: str, data: dict[str, str] | None = None) -> None:
    """POST a form as ``page``'s user, through the live server: its sockets hear of the change
    (a service called in the test's own process would tell only this process's channel layer)."""
    base = page.url.split("/", 3)[:3]
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        "/".join(base) + path, form=data or {}, headers={"X-CSRFToken": token}
    )
    assert response.ok, f"POST {path}: {response.status}"


def play_turns(game: Game, players: dict[int, Page], count: int) -> None:
    """Play ``count`` turns through the live server, each the first legal one in the engine's
    order, by the page of the seat to move."""
    for _ in range(count):
        state = in_a_thread(lambda: stored_state(Game.objects.get(pk=game.pk)))
        turn = str(next(iter(state.position.legal_moves())))
        ply = str(state.ply)
        post(players[state.position.to_move], f"/games/{game.pk}/move/", {"ply": ply, "move": turn})


def to_move(game: Game) -> int:
    return in_a_thread(lambda: stored_state(Game.objects.get(pk=game.pk)).position.to_move)


def sign_up(page: Page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url("**/play/")


def log_in(page: Page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url("**/play/")


def wait_for_socket(page: Page) -> None:
    page.wait_for_selector("body[data-ws='open']", state="attached", timeout=LIVE)


def open_table(page: Page, base: str, game: Game) -> None:
    page.goto(f"{base}/games/{game.pk}/")
    wait_for_socket(page)


def focused(page: Page) -> str:
    """What has the focus, as ``tag.class`` (``body`` when nothing does)."""
    return str(
        page.evaluate(
            "() => { const e = document.activeElement;"
            " return e ? e.tagName.toLowerCase() + '.' + e.className : ''; }"
        )
    )


def ply_shown(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-ply") or 0)


def wait_for_ply(page: Page, value: int, timeout: float = LIVE / 1000) -> None:
    """Wait until ``page``'s table shows ply ``value`` or a later one. Polled from here: the
    page's Content-Security-Policy forbids the eval that ``wait_for_function`` with an expression
    needs."""
    deadline = time.monotonic() + timeout
    while ply_shown(page) < value:
        assert time.monotonic() < deadline, f"ply {value} did not come in {timeout:g} s"
        page.wait_for_timeout(50)
