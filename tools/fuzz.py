"""Malformed inputs for every endpoint, form and socket message, and the loops that send them.

Used by ``tests/tools/test_fuzz.py`` (a few thousand inputs in ``make test``) and by
``manage.py fuzz`` (ten thousand and more). Everything is drawn from one seeded
``random.Random``, so a failure is replayed by its seed and its input's number.

The inputs come from the URLconf itself (:func:`routes`), so a new page is fuzzed without being
listed here. Each input says whether it is *malformed by construction* (an unknown id, a NUL, an
oversized value): such an input must be refused without changing any stored state. What holds
for every input: no answer is a 500 and no socket consumer crashes.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.signals import got_request_exception
from django.db.models import Q
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.regex_helper import normalize

NUL = "\x00"
#: An id no row has, one past the database's integer range, and one that is not a number at all.
UNKNOWN_IDS = ("999999", str(2**63), "1" + "0" * 30)
#: Action names the site's ``<slug:name>`` routes know, so that fuzzing reaches the services.
ACTIONS = (
    "resign", "abort", "offer-draw", "decline-draw", "cancel", "claim-abandoned", "warn",
    "mute", "ban", "unban", "annul", "resolve", "dismiss", "change", "delete", "history",
)  # fmt: skip
#: Values a field may plausibly hold: they let inputs get past the first check.
PLAUSIBLE = (
    "", "0", "1", "2", "on", "true", "S", "H", "D", "C", "36", "32", "24", "5+3", "1+1", "easy",
    "hard", "take", "6H", "QS-9D", "abuse", "cheating", "other", "yes", "no", "win", "alice",
    "2026-01-01", "/play/", "https://example.org/",
)  # fmt: skip
#: Odd but harmless text: services may accept it.
ODD = (
    "ß∂ƒ©˙∆", "שלום עולם", "Բարեւ", "🂡🂱🃁", "e\u0301\u0301\u0301", "\u202eRTL", " \t ",
    "<script>alert(1)</script>", "' OR 1=1 --", "../../etc/passwd", "%s%n%x", "{{ 7*7 }}",
    "\r\nSet-Cookie: x=1", "-1", "1e9", "NaN", "0x10", "\uff11\uff12", "[]", "{}", "null",
)  # fmt: skip


def _bad_values() -> tuple[str, ...]:
    """Values no input should hold: a NUL somewhere, or far too long for any field."""
    return (
        NUL,
        "a" + NUL + "b",
        NUL * 50,
        "alice" + NUL,
        "x" * 20_000,
        "é" * 150_000,
    )


BAD = _bad_values()

#: The form fields posted: every field name of the site's forms and views (collected here once
#: rather than imported, so a missing one is a plain omission, never an import error).
FIELDS = (
    "trump", "deck", "must_beat", "sixes_to_owner", "clock", "private", "level", "player",
    "result", "reason", "opponent", "since", "until", "text", "file", "username", "password",
    "password1", "password2", "email", "old_password", "new_password1", "new_password2", "ply",
    "move", "chat", "next", "game", "muted", "days", "hours", "kind", "moderator", "user",
    "page", "beater", "q", "o", "p", "_changelist_filters", "action", "index",
)  # fmt: skip


@dataclass(frozen=True)
class Route:
    """One URL pattern, as a ``%``-format with its parameters and their converters' kinds."""

    template: str
    params: tuple[tuple[str, str], ...]  # (name, kind): kind is int, str, slug, path or any
    name: str

    def __str__(self) -> str:
        return self.name or self.template


def _kind(converter: object) -> str:
    kinds = {"IntConverter": "int", "SlugConverter": "slug", "PathConverter": "path"}
    return kinds.get(type(converter).__name__, "str")


def _walk(
    patterns: list[Any], prefix: str, params: tuple[tuple[str, str], ...], namespace: str
) -> Iterator[Route]:
    for pattern in patterns:
        forms = normalize(pattern.pattern.regex.pattern)
        template, names = forms[0] if forms else ("", [])
        kinds = {k: _kind(c) for k, c in pattern.pattern.converters.items()}
        found = params + tuple((name, kinds.get(name, "any")) for name in names)
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _walk(pattern.url_patterns, prefix + template, found, inner)
        elif isinstance(pattern, URLPattern):
            yield Route("/" + prefix + template, found, f"{namespace}{pattern.name or ''}")


def routes() -> list[Route]:
    """Every URL pattern of the site (the admin's included), once each."""
    seen: dict[str, Route] = {}
    for route in _walk(get_resolver().url_patterns, "", (), ""):
        seen.setdefault(route.template, route)
    return list(seen.values())


@dataclass
class World:
    """The rows the inputs aim at: players in several roles, games in every state, a record,
    a report and a warning, so that valid ids reach deep into the views."""

    users: dict[str, Any]
    game_ids: list[int]
    ids: list[int]
    usernames: list[str]
    tokens: list[str]
    record_text: str

    def user(self, role: str) -> Any:
        return self.users.get(role) or AnonymousUser()


ROLES = ("anon", "alice", "carol", "mod", "root")


def make_world() -> World:
    """Create the rows :class:`World` describes, through the services (as the site does)."""
    from archive.models import ImportedGame
    from game.models import Game
    from game.services.chat import game_chat_post
    from game.services.endings import game_resign
    from game.services.starting import game_create_seek, game_create_vs_computer, game_join
    from moderation import services as moderation
    from moderation.models import ModeratorWarning, Report

    users = get_user_model().objects
    alice = users.create_user("fuzz-alice", password="pw-fuzz-alice-1")
    bob = users.create_user("fuzz-bob", password="pw-fuzz-bob-1")
    carol = users.create_user("fuzz-carol", password="pw-fuzz-carol-1")
    mod = users.create_user("fuzz-mod", password="pw-fuzz-mod-1")
    moderation.moderator_grant(user=mod)
    mod = users.get(pk=mod.pk)
    root = users.create_superuser("fuzz-root", password="pw-fuzz-root-1")

    game_create_seek(user=alice, trump="S")
    private = game_create_seek(user=bob, trump="S", private=True)
    active = game_join(game_id=game_create_seek(user=alice, trump="S").pk, user=bob, trump="H")
    game_chat_post(game_id=active.pk, user=alice, text="good luck")
    finished = game_join(game_id=game_create_seek(user=bob, trump="D").pk, user=alice, trump="C")
    game_resign(game_id=finished.pk, user=alice)
    game_create_vs_computer(user=carol, level="easy", trump="H")
    record_text = Client().get(f"/games/{finished.pk}/replay/record.txt").content.decode()
    imported = ImportedGame.objects.create(text=record_text)
    moderation.report_create(reporter=bob, reported=alice, reason="abuse", text="rude", game=active)
    moderation.moderation_warn(moderator=mod, user=carol, reason="be kind")
    report = Report.objects.order_by("-pk").first()
    warning = ModeratorWarning.objects.order_by("-pk").first()
    game_ids = list(Game.objects.values_list("pk", flat=True))
    ids = sorted({*game_ids, imported.pk, getattr(report, "pk", 1), getattr(warning, "pk", 1)})
    return World(
        users={"alice": alice, "carol": carol, "mod": mod, "root": root},
        game_ids=game_ids,
        ids=ids,
        usernames=[u.username for u in (alice, bob, carol, mod, root)],
        tokens=[private.invite_token],
        record_text=record_text,
    )


@dataclass(frozen=True)
class HttpInput:
    """One request: who sends it, how, where, with what; ``malformed`` if it must be refused."""

    number: int
    role: str
    method: str
    path: str
    data: dict[str, Any] | str
    content_type: str | None
    headers: dict[str, str]
    malformed: bool
    route: str


@dataclass(frozen=True)
class SocketInput:
    """One websocket: its path, the frames sent on it, and whether each is malformed."""

    number: int
    role: str
    path: str
    frames: tuple[tuple[str | bytes, bool], ...]
    malformed_path: bool


@dataclass
class Inputs:
    """A seeded source of inputs over ``routes`` aimed at ``world``."""

    seed: int
    world: World
    routes: list[Route] = field(default_factory=routes)

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)
        # The admin has four routes per model: drawn evenly, it would take most of the inputs.
        self.site = [r for r in self.routes if not r.name.startswith("admin:")]
        self.admin = [r for r in self.routes if r.name.startswith("admin:")]

    # --- Values ----------------------------------------------------------------------------

    def _value(self, *, http: bool = True) -> tuple[str, bool]:
        """A field's value and whether it is malformed (a NUL or oversized)."""
        r = self.random.random()
        if r < 0.45:
            return self.random.choice(PLAUSIBLE + tuple(self.world.usernames)), False
        if r < 0.75:
            return self.random.choice(ODD), False
        if r < 0.8:
            return self._random_text(http=http), False
        value = self.random.choice(BAD[:4] if self.random.random() < 0.8 else BAD)
        return value, True

    def _random_text(self, *, http: bool) -> str:
        top = 0x10FFFF
        chars = []
        for _ in range(self.random.randint(1, 40)):
            code = self.random.randint(1, top if self.random.random() < 0.3 else 0x7F)
            if http and 0xD800 <= code <= 0xDFFF:  # a lone surrogate cannot be sent as UTF-8
                code = 0xFFFD
            chars.append(chr(code))
        return "".join(chars)

    def _param(self, kind: str, name: str) -> tuple[str, bool]:
        """A URL parameter and whether it is malformed: an unknown id, a NUL, or too long."""
        r = self.random.random()
        if kind == "int" or name in ("object_id", "id", "content_type_id"):
            if r < 0.7:
                return str(self.random.choice(self.world.ids)), False
            return self.random.choice(UNKNOWN_IDS), True
        if r < 0.6:
            pool = {
                "token": self.world.tokens,
                "name": list(ACTIONS),
                "username": self.world.usernames,
            }.get(name, [*self.world.usernames, *ACTIONS, "auth", "user", "game", "1"])
            return self.random.choice(pool), False
        if r < 0.85:
            return self.random.choice(ODD + PLAUSIBLE), False
        value, _ = self._value()
        return value[:3000], True  # a long path is refused by the server before us

    # --- HTTP ------------------------------------------------------------------------------

    def http(self, number: int) -> HttpInput:
        admin = self.admin and self.random.random() < 0.25
        route = self.random.choice(self.admin if admin else self.site)
        malformed = False
        values: dict[str, str] = {}
        for name, kind in route.params:
            value, bad = self._param(kind, name)
            malformed |= bad
            values[name] = quote(value, safe="") if self.random.random() < 0.9 else value
        path = route.template % values
        if self.random.random() < 0.05:
            path = path.rstrip("/")  # the slash-less twin
        method = self.random.choices(["GET", "POST", "HEAD", "PUT", "DELETE"], [40, 52, 3, 3, 2])[0]
        data, content_type, bad = self._body(method, reads_files=route.name == "archive:import")
        headers = {"HX-Request": "true"} if self.random.random() < 0.4 else {}
        return HttpInput(
            number,
            self.random.choice(ROLES),
            method,
            path,
            data,
            content_type,
            headers,
            malformed or bad,
            str(route),
        )

    def _body(
        self, method: str, *, reads_files: bool
    ) -> tuple[dict[str, Any] | str, str | None, bool]:
        """Form fields (as the client sends them), or a raw body of the wrong kind. A bad file
        makes the input malformed only where it is read (elsewhere it is ignored, rightly)."""
        r = self.random.random()
        if method == "POST" and r < 0.06:
            raw = self.random.choice(
                ['{"move": "take", "ply": 0}', "[[[[[[[[", "--x\r\nContent-Disposition: x\r\n"]
            )
            kind = self.random.choice(
                ["application/json", "multipart/form-data; boundary=x", "text/plain"]
            )
            return raw, kind, False
        data: dict[str, Any] = {}
        malformed = False
        for name in self.random.sample(FIELDS, self.random.randint(0, 5)):
            shape = self.random.random()
            if method == "POST" and (name == "file" or shape < 0.03):
                content, bad = self._upload()
                bad = bad and reads_files
                data[name] = SimpleUploadedFile("record.txt", content, "text/plain")
            elif shape < 0.12:
                pairs = [self._value() for _ in range(self.random.randint(2, 3))]
                data[name] = [value for value, _ in pairs]
                bad = any(b for _, b in pairs)
            else:
                data[name], bad = self._value()
            malformed |= bad
        if method == "POST" and self.random.random() < 0.2:
            return data, "application/x-www-form-urlencoded", malformed
        return data, None, malformed

    def _upload(self) -> tuple[bytes, bool]:
        """A record file: the real one, or one with a NUL, in another encoding, or too big."""
        record = self.world.record_text
        return self.random.choice(
            [
                (record.encode(), False),
                (record.replace("\n\n", "\n\n" + NUL, 1).encode(), True),
                ((record + NUL).encode(), True),
                (record.encode("utf-16"), True),
                (b"\xff\xfe\xfa" * 10, True),
                (b"", True),
                (b"x" * 200_001, True),
                (self._random_text(http=True).encode(), False),
            ]
        )

    # --- Sockets ---------------------------------------------------------------------------

    def socket(self, number: int) -> SocketInput:
        r = self.random.random()
        malformed_path = False
        if r < 0.75:
            path = f"/ws/games/{self.random.choice(self.world.game_ids)}/"
        elif r < 0.82:
            path = "/ws/lobby/"
        else:
            malformed_path = True
            path = self.random.choice(
                [
                    "/ws/nothing/",
                    "/",
                    "/ws/games/",
                    "/ws/games/abc/",
                    "/ws/games/%00/",
                    f"/ws/games/{self.random.choice(UNKNOWN_IDS)}/",
                    f"/ws/games/{self.random.choice(self.world.game_ids)}/extra/",
                    "/ws/" + quote(self._random_text(http=True), safe="/"),
                ]
            )
        frames = tuple(self._frame() for _ in range(self.random.randint(1, 4)))
        return SocketInput(number, self.random.choice(ROLES), path, frames, malformed_path)

    def _frame(self) -> tuple[str | bytes, bool]:
        """A frame and whether it is malformed (never a chat line that could be posted)."""
        r = self.random.random()
        headers = {"HX-Request": "true", "HX-Trigger": "chat-form"}
        if r < 0.25:
            text, bad = self._value(http=False)
            line = text if bad else text[:200]  # cut short, a bad value could become a good one
            return json.dumps({"chat": line, "HEADERS": headers}), bad
        if r < 0.35:
            return json.dumps({"chat": "a" + NUL + "b", "HEADERS": headers}), True
        if r < 0.45:
            depth = self.random.choice([5, 50, 5000, 100_000])
            return "[" * depth + "]" * depth, True
        if r < 0.55:
            return json.dumps({"chat": "x" * self.random.choice([201, 5000, 1_000_000])}), True
        if r < 0.8:
            return self.random.choice(
                [
                    "",
                    "not json",
                    "null",
                    "[]",
                    "42",
                    '"chat"',
                    '{"chat": 5}',
                    '{"chat": null}',
                    '{"chat": ["a"]}',
                    '{"chat": {"chat": "a"}}',
                    '{"chat": "\\ud800"}',
                    '{"chat": "a"',
                    '{"HEADERS": {}}',
                    "1" * 5000,
                    '{"chat": "\\u0000"}',
                ]
            ), True
        if r < 0.9:
            size = self.random.randint(0, 64)
            return bytes(self.random.randrange(256) for _ in range(size)), True
        return self._random_text(http=False), True


# --- Stored state ------------------------------------------------------------------------------


def stored_state() -> tuple[Any, ...]:
    """What a refused input must leave as it was: every game's version and status, and the
    number of rows of everything players and moderators create."""
    from archive.models import Analysis, ImportedGame
    from chat.models import ChatMessage
    from game.models import Game, Move
    from moderation.models import ModerationAction, Report

    return (
        tuple(Game.objects.order_by("pk").values_list("pk", "version", "status")),
        Move.objects.count(),
        ChatMessage.objects.count(),
        Report.objects.count(),
        ModerationAction.objects.count(),
        get_user_model().objects.filter(Q(is_active=True)).count(),
        ImportedGame.objects.count(),
        Analysis.objects.count(),
    )


STATE_PARTS = (
    "games",
    "moves",
    "chat lines",
    "reports",
    "moderation actions",
    "active users",
    "imported records",
    "analyses",
)


def _changed(before: tuple[Any, ...], after: tuple[Any, ...]) -> str:
    """Which parts of :func:`stored_state` differ, and how (for a game: its row)."""
    parts = []
    for name, old, new in zip(STATE_PARTS, before, after, strict=True):
        if old != new:
            detail = sorted(set(new) - set(old)) if name == "games" else f"{old} -> {new}"
            parts.append(f"{name} {detail}")
    return "; ".join(parts)


# --- Running -----------------------------------------------------------------------------------


@dataclass
class Tally:
    """What came back: statuses (or socket outcomes) counted, and every failure described."""

    statuses: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.failures.append(what)


def run_http(
    inputs: Inputs,
    count: int,
    tally: Tally,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Send ``count`` requests through Django's test client, one client per role."""
    clients: dict[str, Client] = {}
    for role in ROLES:
        clients[role] = Client(raise_request_exception=False)
        if role != "anon":
            clients[role].force_login(inputs.world.user(role))
    raised: list[BaseException] = []

    def keep(sender: object, request: object = None, **kwargs: Any) -> None:
        import sys

        error = sys.exc_info()[1]
        if error is not None:
            raised.append(error)

    got_request_exception.connect(keep)
    before = stored_state()
    try:
        for number in range(count):
            case = inputs.http(number)
            client = clients[case.role]
            raised.clear()
            kwargs: dict[str, Any] = {"headers": case.headers}
            if case.content_type is not None:
                kwargs["content_type"] = case.content_type
            data = case.data
            if case.method == "GET":
                response = client.get(case.path, data, **kwargs)
            elif case.method == "POST":
                if case.content_type == "application/x-www-form-urlencoded":
                    from urllib.parse import urlencode

                    assert isinstance(data, dict)
                    plain = {k: v for k, v in data.items() if not hasattr(v, "read")}
                    data = urlencode(plain, doseq=True)
                response = client.post(case.path, data, **kwargs)
            else:
                response = client.generic(case.method, case.path, **kwargs)
            status = response.status_code
            tally.statuses[str(status)] += 1
            if status >= 500:
                tally.fail(
                    f"#{case.number} {case.method} {case.path[:120]!r} as {case.role}: "
                    f"{status} {raised[-1] if raised else ''!r}"
                )
            after = stored_state()
            if (case.malformed or 400 <= status < 500) and after != before:
                changed = _changed(before, after)
                tally.fail(
                    f"#{case.number} {case.method} {case.path[:120]!r} as {case.role}: "
                    f"refused ({status}) but stored state changed: {changed}"
                )
            before = after
            if case.role != "anon" and case.route.endswith("logout"):
                client.force_login(inputs.world.user(case.role))
            if progress is not None:
                progress(number + 1)
    finally:
        got_request_exception.disconnect(keep)


async def run_sockets(
    inputs: Inputs,
    count: int,
    tally: Tally,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Open ``count`` sockets on the site's websocket routes, send each its frames, and check
    that every consumer answers and lives, with no stored change from a malformed frame."""
    from channels.db import database_sync_to_async
    from channels.routing import URLRouter
    from channels.testing import WebsocketCommunicator

    from yourtrumps_site.asgi import websocket_routes

    application = URLRouter(websocket_routes)
    state = database_sync_to_async(stored_state)
    for number in range(count):
        case = inputs.socket(number)
        socket = WebsocketCommunicator(application, case.path)
        socket.scope["user"] = inputs.world.user(case.role)
        where = f"socket #{case.number} {case.path[:80]!r} as {case.role}"
        try:
            connected, code = await socket.connect(timeout=20)
        except Exception as error:  # the consumer crashed while connecting
            tally.statuses["crashed"] += 1
            tally.fail(f"{where}: crashed on connect: {error!r}")
            continue
        if not connected:
            tally.statuses[f"refused {code}"] += 1
            if not case.malformed_path:
                tally.fail(f"{where}: refused ({code}) though its path is served")
            continue
        tally.statuses["accepted"] += 1
        try:
            await _exchange(socket, case, tally, where, state)
        except Exception as error:
            tally.statuses["crashed"] += 1
            tally.fail(f"{where}: crashed: {error!r}")
        else:
            await socket.disconnect()
        if progress is not None:
            progress(number + 1)


async def _exchange(
    socket: Any, case: SocketInput, tally: Tally, where: str, state: Callable[[], Any]
) -> None:
    game_socket = case.path.startswith("/ws/games/")
    if game_socket:
        await socket.receive_output(timeout=20)  # the table as it is now
    for frame, malformed in case.frames:
        before = await state()
        # Straight to the consumer: `send_to` refuses an empty frame, which a client may send.
        kind = "bytes" if isinstance(frame, bytes) else "text"
        await socket.send_input({"type": "websocket.receive", kind: frame})
        if game_socket:
            await socket.receive_output(timeout=20)  # the sender's answer, never silence
        # Let a line that did land reach the group before reading the state.
        while not await socket.receive_nothing(timeout=0.01):
            await socket.receive_output(timeout=20)
        after = await state()
        if malformed and after != before:
            tally.fail(
                f"{where}: a malformed frame changed stored state: {frame[:80]!r}: "
                f"{_changed(before, after)}"
            )
    if socket.future.done():
        socket.future.result()  # raises what the consumer died of


def run(
    *,
    seed: int,
    http_inputs: int,
    socket_inputs: int,
    progress: Callable[[str, int], None] | None = None,
) -> Tally:
    """Create the world, then send the HTTP inputs and the socket inputs. Call inside a
    database that may be written (a test's, or a throwaway one)."""
    world = make_world()
    inputs = Inputs(seed, world)
    tally = Tally()
    report = (lambda n: progress("http", n)) if progress else None
    run_http(inputs, http_inputs, tally, report)
    sockets = (lambda n: progress("socket", n)) if progress else None
    asyncio.run(run_sockets(inputs, socket_inputs, tally, sockets))
    return tally
