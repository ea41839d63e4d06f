"""A load generator for the live game: many pairs of players playing at once against a real server.

``manage.py loadtest --url http://127.0.0.1:8000 --games 500 --think 0.5-1 --seconds 60`` runs it.
Every pair plays as two browsers would, through the site's own URLs:

1. **Players.** By default each one signs up over HTTP (``load-<run>-<n>``; an existing name logs
   in instead), with a cookie jar of its own. That is the honest path but a slow one: each
   sign-up hashes a password on the server (a few hundred ms of its CPU), so 1,000 players take
   minutes. The site allows a few sign-ups per address (``LIMIT_SIGNUPS``), so each player signs
   up from a loopback address of its own (:func:`sign_up_address`), as a crowd comes from many;
   where that cannot be (an IPv6 URL, a system other than Linux) the server's limit must be
   raised for the run. ``--players db`` creates them in bulk through the ORM (one password hash
   for all) and mints their login sessions with Django's session machinery; that only works when
   this command runs with the server's own settings and database, and it skips nothing that is
   measured: from there on, every game, move and socket goes through the real server.
2. **Games.** One player posts a seek (``/play/seek/``), the other joins it with another trump
   (``/games/<id>/join/``); the games start spread over ``--ramp`` seconds. When a game ends, its
   first player asks for a rematch, the second agrees and the first follows it (they must land on
   the same game), so the load stays at N games. ``--start-ply N`` (``--players db``; it implies
   ``--seat-first``) makes every game first and plays it to ply N through the site's services in
   this process (:func:`play_to_ply`), so that the sockets open on games well under way.
3. **Sockets.** Both players open ``/ws/games/<id>/`` with their session cookie and an ``Origin``
   matching the URL, and wait for the table each socket sends on connect; how long opening all
   sockets took is reported. With ``--own-sockets`` each player also keeps open, from before
   its first game, the socket of its own (``/ws/me/``: notices, challenges) that every page of
   a logged-in player opens.
4. **Moves.** The player to move reads the turns from its latest table (the hidden ``move``
   inputs of its forms; a beat's second cards are there too, hidden until the beating card is
   picked), thinks a random time in ``--think``, picks a card and then one of the turns it starts,
   and sends it as the table does: over the game's socket (``--via socket``, timed until the
   mover's own socket shows the new ply) or as the table's htmx POST without a socket (``--via
   post``: ``ply``, ``move``, the CSRF token). The **relay** is the time from sending the turn to
   the *opponent's* socket delivering a table whose ``data-ply`` shows the new ply; one that has
   not come within ``--relay-timeout`` is a lost relay (the opponent then reloads its table and
   play goes on). A POST's answer says in its ``Server-Timing`` header (the server's
   ``SERVER_TIMING``, on with ``DEBUG``) how long it waited for a slot in the site's handler,
   for its thread (its body read), in the view, and sending what it published; the rest of its
   time was spent outside that handler (the server's HTTP work, the way there and back, this
   client), and the report gives each part's figures beside the POST's.
5. **Once all seated.** A crowd's set-up (the seeks, joins and pages of every game) takes the
   server longer than ``--ramp`` when there are hundreds of games, and the turns played meanwhile
   share it with them. The figures are therefore given twice: over the whole run, and for the
   turns sent once every game's sockets were open (the live crowd the targets speak of).
   ``--slice SECONDS`` also cuts the play into slices (from its start; the last one ends with the
   run): each one's moves, relay p50/p95/p99 and errors, said as it ends and given again in the
   report, so that a long run shows whether the server keeps pace as games come and go.
6. **The end.** At the deadline the players stop, the last relays land, every game's table is
   fetched once more over HTTP and each socket's last table must carry the same ``data-version``.
   Then optional ``final_checks`` (callables given the game ids) may check the stored games; the
   test in ``tests/tools/test_loadtest.py`` passes :func:`database_checks`.

One asyncio loop drives everything (aiohttp for HTTP and websockets); per message the client only
runs a few regular expressions on the ``#table`` tag, so that it is not the bottleneck. Its own CPU
is reported beside the server's (``--pid``, read from ``/proc/<pid>/stat``) so a reader can tell.
Each ``--pid`` process's resident memory (``VmRSS``) is read once every socket is open, at the end
of each slice and at the end: the caches a server keeps per game must not grow as games end.
Only loopback addresses are accepted, and a run is bounded in players and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import html
import ipaddress
import json
import math
import os
import random
import re
import resource
import secrets
import socket
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TextIO, TypeVar
from urllib.parse import urlsplit

import aiohttp
from multidict import CIMultiDictProxy
from yarl import URL

if TYPE_CHECKING:
    from game.engine import GameState
    from game.engine import Move as EngineMove

T = TypeVar("T")

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: Where the players' sign-up addresses are taken from: all of 127.0.0.0/8 is this machine on
#: Linux, and 127.1.0.0 up keeps clear of the 127.0.x.y that hosts files name.
SIGN_UP_ADDRESSES = ipaddress.IPv4Address("127.1.0.0")
MAX_GAMES = 1000
MAX_SECONDS = 3600.0
#: ``--start-ply``'s bound: each of its plies is a service call per game, before the play.
MAX_START_PLY = 1000
#: Games made at once before the play (``--start-ply``): each is a seek and a join over HTTP.
MAKE_GAMES_CONCURRENCY = 64
#: ``--start-ply`` says how far it got after this many games.
PRELUDE_PROGRESS_GAMES = 50
#: Sign-ups over HTTP at once: each costs the server a password hash, so more only queue up.
SIGN_UP_CONCURRENCY = 8
#: A match that fails this many turns in a row stops (its errors are counted), rather than spin.
MAX_FAILURES_IN_A_ROW = 5

# Only the ``#table`` tag is read from every message: the first matching ``<div>`` start tag.
#: A whole table, or the board of a turn's update (which carries the same attributes).
TABLE_TAG = re.compile(r'<div\b[^>]*\bid="table(?:-board)?"[^>]*>')
PLY = re.compile(r'\bdata-ply="(\d+)"')
VERSION = re.compile(r'\bdata-version="(\d+)"')
STATUS = re.compile(r'\bdata-status="([a-z]*)"')
#: A turn's input or button, as the site writes them (``name`` then ``value``): a literal the
#: regex engine finds fast, where a scan of every tag's attributes took most of the load test's
#: own time at hundreds of moves a second.
MOVE_VALUE = re.compile(r'name="move" value="([^"]*)"')
BEATER = re.compile(r'data-beater="([^"]*)"')
SECOND = re.compile(r'data-second="([^"]*)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ERROR_NOTICE = re.compile(r'class="notice notice--error"[^>]*>(.*?)</', re.S)
GAME_URL = re.compile(r"/games/(\d+)/")
#: What a POST's time is shared out into: the site handler's parts (its ``Server-Timing``
#: header), then the rest.
POST_PARTS = ("queue", "thread", "view", "publish")
OUTSIDE = "outside"


class LoadTestError(Exception):
    """A run that cannot start: a bad argument, a refused host, a set-up that failed."""


# --- Figures -----------------------------------------------------------------------------------


def server_timing(header: str) -> dict[str, float]:
    """The durations of a ``Server-Timing`` header, in seconds, by name.

    >>> server_timing("queue;dur=0.5, view;dur=12.0")
    {'queue': 0.0005, 'view': 0.012}
    >>> server_timing("")
    {}
    """
    parts = {}
    for metric in header.split(","):
        name, _, params = metric.strip().partition(";")
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "dur":
                with contextlib.suppress(ValueError):
                    parts[name] = float(value) / 1000
    return parts


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0 to 100) of ``values``, interpolating between neighbours (as
    numpy's default does); NaN for no values.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50)
    2.5
    >>> percentile([5.0], 99)
    5.0
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass(frozen=True, slots=True)
class Latency:
    """A latency's distribution, in milliseconds."""

    count: int
    p50: float
    p95: float
    p99: float
    max: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        """The figures of samples given in seconds."""
        ms = [s * 1000 for s in seconds]
        return cls(
            count=len(ms),
            p50=percentile(ms, 50),
            p95=percentile(ms, 95),
            p99=percentile(ms, 99),
            max=max(ms) if ms else math.nan,
        )

    @staticmethod
    def header(width: int) -> str:
        """The heading of a table of latencies whose names are ``width`` wide."""
        figures = "".join(f"{name:>10}" for name in ("p50", "p95", "p99", "max"))
        return f"  {'latency (ms)':<{width}}{'count':>8}{figures}"

    def row(self, name: str, width: int) -> str:
        return (
            f"  {name:<{width}}{self.count:>8}{self.p50:>10.1f}{self.p95:>10.1f}"
            f"{self.p99:>10.1f}{self.max:>10.1f}"
        )


@dataclass
class Seated:
    """A run's figures once every game's sockets were open."""

    seconds: float
    moves: int
    turn: Latency
    relay: Latency
    #: The servers' CPU over those seconds (``--pid``).
    server_cpu_seconds: float = 0.0
    #: How late this client's own event loop woke over those seconds (see ``Report.client_lag``).
    client_lag: Latency = field(default_factory=lambda: Latency.of([]))
    #: Where the POSTs' time went (see ``Report.post_parts``).
    post_parts: dict[str, Latency] = field(default_factory=dict)

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds > 0 else math.nan


@dataclass(frozen=True, slots=True)
class SliceEnd:
    """What is read as a ``--slice`` ends: when (the run's clock), each ``--pid`` process's
    resident memory (kB; ``None``: gone), and the plies of the games then in play, summed: what
    the server keeps of a game grows with its turns (its state's positions seen, its table's move
    log), so that memory is to be read beside them."""

    at: float
    resident_kb: dict[int, int | None]
    plies_in_play: int


@dataclass(frozen=True, slots=True)
class Slice:
    """One ``--slice`` of the play: the turns sent in it, their relays, the games that ended and
    the errors counted in it; at its end, the plies in play and each ``--pid`` process's
    resident memory (kB)."""

    start: float  # seconds since the play began
    end: float
    moves: int
    relay: Latency
    games_ended: int
    errors: int
    plies_in_play: int
    resident_kb: dict[str, int | None]

    def format(self) -> str:
        """One line: its seconds, moves, relay p50/p95/p99 (ms), games ended, errors, plies in
        play and memory (MB)."""
        return (
            f"{f'{self.start:.0f}-{self.end:.0f} s':<14}{self.moves:>8}{self.relay.p50:>10.1f}"
            f"{self.relay.p95:>10.1f}{self.relay.p99:>10.1f}{self.games_ended:>7}{self.errors:>8}"
            f"{self.plies_in_play:>8}"
            + "".join(f"{megabytes(kb):>10}" for kb in self.resident_kb.values())
        )


def megabytes(kb: int | None) -> str:
    """A resident size in kB as MB, one decimal; "gone" for a process no longer there.

    >>> megabytes(2048), megabytes(None)
    ('2.0', 'gone')
    """
    return "gone" if kb is None else f"{kb / 1024:.1f}"


class Figures:
    """What every report of a load run ends with: its errors, the CPU it cost the client and
    the servers, and the host's load average; and how it is written as JSON."""

    __dataclass_fields__: ClassVar[dict[str, Any]]
    errors: dict[str, int]
    client_cpu_seconds: float
    server_cpu_seconds: dict[str, float]
    load_average_start: tuple[float, float, float]
    load_average_end: tuple[float, float, float]
    problems: list[str]

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def cost_lines(self, busy: float | None = None) -> list[str]:
        """The errors, the CPU (as a share of a core over ``busy`` seconds, when given) and the
        load average, as the report's lines."""

        def share(seconds: float) -> str:
            return f" ({seconds / busy:.0%} of a core)" if busy is not None else ""

        lines = [
            f"  errors: {self.error_count}"
            + "".join(f"\n    {n:>6}  {kind}" for kind, n in sorted_errors(self.errors)),
            f"  client CPU {self.client_cpu_seconds:.1f} s{share(self.client_cpu_seconds)}",
        ]
        if self.server_cpu_seconds:
            total = sum(self.server_cpu_seconds.values())
            each = ", ".join(f"pid {pid} {s:.1f} s" for pid, s in self.server_cpu_seconds.items())
            lines.append(f"  server CPU {total:.1f} s{share(total)}: {each}")
        lines.append(
            "  load average at start {:.2f} {:.2f} {:.2f}, at end {:.2f} {:.2f} {:.2f}".format(
                *self.load_average_start, *self.load_average_end
            )
        )
        return lines

    def problem_lines(self) -> list[str]:
        return [f"  problem: {p}" for p in self.problems[:20]]

    def to_json(self) -> str:
        data = asdict(self)
        data["error_count"] = self.error_count
        return json.dumps(data, indent=2, default=str)


@dataclass
class Report(Figures):
    """What a run measured; :meth:`format` prints it, :func:`dataclasses.asdict` gives JSON."""

    url: str
    games: int
    think: tuple[float, float]
    players_via: str
    via: str
    seconds: float
    moves: int
    moves_per_second: float
    turn: Latency
    relay: Latency
    socket_connect: Latency
    sockets_opened: int
    own_sockets_opened: int
    sockets_open_seconds: float
    games_started: int
    games_finished: int
    errors: dict[str, int]
    client_cpu_seconds: float
    server_cpu_seconds: dict[str, float]
    load_average_start: tuple[float, float, float]
    load_average_end: tuple[float, float, float]
    set_up_seconds: float
    #: The host, which is shared: how long a fixed piece of work took this process before and
    #: after the play (:func:`speed_probe`), and the machine's cores over the play
    #: (:class:`HostCpu`). ``None`` where ``/proc/stat`` is missing.
    speed_probe_seconds: tuple[float, float] = (math.nan, math.nan)
    host_cpu: HostCpu | None = None
    games_resigned: int = 0  # of the games finished, those resigned at their drawn limit
    #: How late this client's event loop woke from a short sleep, sampled all through the play:
    #: a turn's latency includes the client's own delays (its CPU, its cycle collector), and
    #: this tells a reader how much of a tail may be the client's rather than the server's.
    client_lag: Latency = field(default_factory=lambda: Latency.of([]))
    #: Where the turns' POSTs spent their time (``--via post``, a server sending
    #: ``Server-Timing``): each part of the site's handler (:data:`POST_PARTS`), and outside it.
    post_parts: dict[str, Latency] = field(default_factory=dict)
    #: The turns sent once every game's sockets were open (the crowd all seated): how long that
    #: lasted, the turns, and their latencies. ``None`` when not every socket opened.
    all_seated: Seated | None = None
    ramp: float = 0.0
    seat_first: bool = False
    game_ids: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: ``--slice``: its length, and the play cut into slices of it (the last one may be shorter).
    slice_seconds: float = 0.0
    slices: list[Slice] = field(default_factory=list)
    #: Each ``--pid`` process's resident memory (kB) once every socket was open, and at the end.
    resident_kb_seated: dict[str, int | None] = field(default_factory=dict)
    resident_kb_end: dict[str, int | None] = field(default_factory=dict)
    #: ``--start-ply``: the ply every first game was played to before the play (0: none), the
    #: games that stopped short of it (every turn there would have ended them), and how long
    #: that took (part of ``set_up_seconds``).
    start_ply: int = 0
    start_ply_short: int = 0
    start_ply_seconds: float = 0.0

    def format(self) -> str:
        """The final report as a small text table."""

        def row(name: str, lat: Latency) -> str:
            return lat.row(name, 16)

        def parts(post_parts: dict[str, Latency]) -> list[str]:
            if not post_parts:
                return []
            return [
                "  of each POST, in the server's handler (its Server-Timing) and outside it:",
                *(row(f"  {name}", lat) for name, lat in post_parts.items()),
            ]

        busy = self.seconds or math.nan
        lines = [
            f"Load test against {self.url}: {self.games} games, think "
            f"{self.think[0]:g}-{self.think[1]:g} s, players via {self.players_via}"
            + (f", from ply {self.start_ply}" if self.start_ply else "")
            + (f" ({self.start_ply_short} games short of it)" if self.start_ply_short else ""),
            f"  set-up {self.set_up_seconds:.1f} s"
            + (
                f" (of it {self.start_ply_seconds:.1f} s playing to ply {self.start_ply})"
                if self.start_ply
                else ""
            )
            + f"; the first {2 * self.games} sockets open (each "
            f"with its table) in {self.sockets_open_seconds:.2f} s ("
            + (
                "opened together once every game was made"
                if self.seat_first
                else f"games started over {self.ramp:g} s"
            )
            + "); "
            f"{self.sockets_opened} opened in all"
            + (
                f"; and the players' own sockets (/ws/me/), {self.own_sockets_opened} opened"
                if self.own_sockets_opened
                else ""
            ),
            f"  {self.moves} moves in {self.seconds:.1f} s: {self.moves_per_second:.1f} moves/s; "
            f"games started {self.games_started}, finished {self.games_finished}"
            + (f" ({self.games_resigned} resigned at the limit)" if self.games_resigned else ""),
            Latency.header(16),
            row(f"turn ({self.via})", self.turn),
            *parts(self.post_parts),
            row("relay", self.relay),
            row("socket connect", self.socket_connect),
            row("client's lag", self.client_lag),
        ]
        seated = self.all_seated
        if seated is not None:
            lines += [
                f"  once all {2 * self.games} sockets were open, the last {seated.seconds:.1f} s: "
                f"{seated.moves} moves, {seated.moves_per_second:.1f} moves/s"
                + (
                    f"; server CPU {seated.server_cpu_seconds:.1f} s, "
                    f"{1000 * seated.server_cpu_seconds / seated.moves:.1f} ms a move"
                    if self.server_cpu_seconds and seated.moves
                    else ""
                ),
                row(f"turn ({self.via})", seated.turn),
                *parts(seated.post_parts),
                row("relay", seated.relay),
                row("client's lag", seated.client_lag),
            ]
        if self.slices:
            lines += [
                f"  each {self.slice_seconds:g} s of the play: the games ended in it; at its end,"
                " the plies of the games in play and the resident memory (MB):",
                f"    {'seconds':<14}{'moves':>8}{'relay p50':>10}{'p95':>10}{'p99':>10}"
                f"{'ended':>7}{'errors':>8}{'plies':>8}"
                + "".join(f"{'pid ' + pid:>10}" for pid in self.resident_kb_end),
                *(f"    {piece.format()}" for piece in self.slices),
            ]
        if self.resident_kb_end:
            lines.append(
                "  resident memory (MB) once all seated, at the end: "
                + ", ".join(
                    f"pid {pid} {megabytes(self.resident_kb_seated.get(pid))} → {megabytes(kb)}"
                    for pid, kb in self.resident_kb_end.items()
                )
            )
        lines += self.cost_lines(busy)
        before, after = self.speed_probe_seconds
        host = (
            f"  host: the speed probe took {before:.3f} s of CPU before the play, {after:.3f} s"
            " after"
        )
        if self.host_cpu is not None:
            host += (
                f"; its {self.host_cpu.cores} cores {self.host_cpu.busy:.0%} busy over the play,"
                f" {self.host_cpu.steal:.1%} stolen"
            )
        lines.append(host)
        lines += self.problem_lines()
        return "\n".join(lines)


def sorted_errors(errors: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(errors.items(), key=lambda item: (-item[1], item[0]))


@dataclass
class Stats:
    """The samples and counters of a run, shared by every match."""

    turn: list[float] = field(default_factory=list)
    relay: list[float] = field(default_factory=list)
    #: When each ``turn`` and ``relay`` sample's turn was sent (the run's clock).
    turn_sent: list[float] = field(default_factory=list)
    relay_sent: list[float] = field(default_factory=list)
    connect: list[float] = field(default_factory=list)
    #: How late the client's loop woke from each probe's sleep, and when the probe woke.
    lag: list[float] = field(default_factory=list)
    lag_at: list[float] = field(default_factory=list)
    #: Each POSTed turn's time by part (:data:`POST_PARTS`, then :data:`OUTSIDE`), when the
    #: server said, and when that turn was sent.
    post_parts: list[dict[str, float]] = field(default_factory=list)
    post_parts_sent: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    #: When each error was counted and each game ended (the run's clock, below), for ``--slice``.
    error_at: list[float] = field(default_factory=list)
    finished_at: list[float] = field(default_factory=list)
    clock: Callable[[], float] = time.monotonic
    moves: int = 0
    games_started: int = 0
    games_finished: int = 0
    games_resigned: int = 0
    play_start: float = 0.0  # when the play began (the run's clock)
    first_socket_started: float = math.inf
    last_first_table: float = 0.0
    first_tables: int = 0  # the games' first sockets that got their table
    sockets_opened: int = 0
    own_sockets_opened: int = 0
    #: The servers' CPU (``--pid``) when the last game's sockets had their tables.
    server_cpu_seated: dict[int, float] = field(default_factory=dict)
    #: Their resident memory (kB) then.
    resident_kb_seated: dict[int, int | None] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors[kind] += 1
        self.error_at.append(self.clock())

    def slice_of(self, start: float, end: SliceEnd) -> Slice:
        """The turns sent from ``start`` (the run's clock) until ``end``, their relays, the
        games ended and errors counted meanwhile, and what was read at its end."""

        def within(times: list[float]) -> list[bool]:
            return [start <= at < end.at for at in times]

        relays = [r for r, sent in zip(self.relay, within(self.relay_sent), strict=True) if sent]
        return Slice(
            start=start - self.play_start,
            end=end.at - self.play_start,
            moves=sum(within(self.turn_sent)),
            relay=Latency.of(relays),
            games_ended=sum(within(self.finished_at)),
            errors=sum(within(self.error_at)),
            plies_in_play=end.plies_in_play,
            resident_kb={str(pid): kb for pid, kb in end.resident_kb.items()},
        )

    def post_parts_since(self, since: float) -> dict[str, Latency]:
        """The figures of each part of the POSTs sent from ``since`` on (run clock)."""
        shares = [
            share
            for share, sent in zip(self.post_parts, self.post_parts_sent, strict=True)
            if sent >= since
        ]
        if not shares:
            return {}
        return {name: Latency.of([share[name] for share in shares]) for name in shares[0]}


# --- CPU and the host --------------------------------------------------------------------------


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU of process ``pid`` (all its threads) from ``/proc/<pid>/stat``."""
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2 :].split()  # the name may hold spaces: skip past it
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_kb(pid: int) -> int | None:
    """Process ``pid``'s resident memory in kB (``VmRSS`` in ``/proc/<pid>/status``), or
    ``None`` when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return None


def resident_kb_of(pids: Iterable[int]) -> dict[int, int | None]:
    return {pid: resident_kb(pid) for pid in pids}


#: The work :func:`speed_probe` times: 0.06 to 0.1 s of CPU on this project's 2-core machines.
SPEED_PROBE_LOOPS = 2_000_000


def speed_probe() -> float:
    """CPU seconds this process takes for a fixed piece of pure-Python work. On a shared host the
    same work takes up to 1.7 times longer at times (seen on these 2 cores within minutes), and
    every figure of a run taken then with it: compare runs only with this beside them."""
    started = time.process_time()
    total = 0
    for n in range(SPEED_PROBE_LOOPS):
        total += n
    return time.process_time() - started


@dataclass(frozen=True, slots=True)
class HostCpu:
    """What the machine's cores did between two readings of ``/proc/stat``."""

    cores: int
    busy: float  # the share of all cores' time spent running anything (this run or not)
    steal: float  # the share taken by the hypervisor for other machines

    @staticmethod
    def read() -> list[int] | None:
        """The machine's CPU time counters (``/proc/stat``'s first line), or ``None``."""
        try:
            with open("/proc/stat") as stat:
                return [int(n) for n in stat.readline().split()[1:9]]
        except (OSError, ValueError):
            return None

    @classmethod
    def between(cls, start: list[int] | None, end: list[int] | None) -> HostCpu | None:
        if start is None or end is None:
            return None
        ticks = [b - a for a, b in zip(start, end, strict=True)]
        total = sum(ticks)
        if total <= 0:
            return None
        idle, iowait, steal = ticks[3], ticks[4], ticks[7]  # /proc/stat's column order
        busy = total - idle - iowait
        return cls(cores=os.cpu_count() or 1, busy=busy / total, steal=steal / total)


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def raise_open_files_limit() -> int:
    """Raise this process's open-files limit to its hard limit: each socket is a file."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft


def check_loopback(url: str) -> str:
    """``url`` without a trailing slash, if it is http(s) on a loopback host; else refuse."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise LoadTestError(f"--url must start with http:// or https://; got {url!r}")
    if parts.hostname not in LOOPBACK_HOSTS:
        raise LoadTestError(
            f"the load test only runs against this machine (127.0.0.1, localhost, ::1); "
            f"got {parts.hostname!r}"
        )
    return url.rstrip("/")


def sign_up_address(url: str, run_id: str, number: int) -> str | None:
    """The loopback address player ``number`` signs up from, or ``None`` (the usual one) where
    this machine cannot give each its own: off Linux, or on an IPv6 URL. Each run takes a block
    of its own (by its id), so that runs an hour apart do not count against one another.

    >>> sign_up_address("http://127.0.0.1:8000", "00000a", 3)
    '127.1.78.35'
    """
    if not sys.platform.startswith("linux") or ":" in (urlsplit(url).hostname or ":"):
        return None
    block = 2 * MAX_GAMES
    blocks = (2**24 - 2**16) // block  # 127.1.0.0 to the end of 127/8
    return str(SIGN_UP_ADDRESSES + int(run_id, 16) % blocks * block + number)


def parse_think(text: str) -> tuple[float, float]:
    """``"0.5-1"`` → ``(0.5, 1.0)``; a single number is a fixed time."""
    try:
        low, _, high = text.partition("-")
        pair = (float(low), float(high or low))
    except ValueError:
        raise LoadTestError(f"--think must look like 0.5-1 (seconds); got {text!r}") from None
    if pair[0] < 0 or pair[1] < pair[0]:
        raise LoadTestError(f"--think must be a range low-high of seconds; got {text!r}")
    return pair


# --- The table, as the client reads it -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableView:
    """One ``#table`` partial: its ply, version and status, and the whole HTML for the moves."""

    ply: int
    version: int
    status: str
    html: str
    received: float

    def moves(self) -> list[str]:
        """The turns this viewer's table offers: the ``move`` values of its forms, and each beat
        (a beating card, then any second card but itself), as the table's script writes them."""
        seconds = SECOND.findall(self.html)
        plain = [m for m in MOVE_VALUE.findall(self.html) if m not in seconds]
        beats = [f"{b}-{s}" for b in BEATER.findall(self.html) for s in seconds if s != b]
        return plain + beats

    def error(self) -> str | None:
        """The message of a refused input, if the partial carries one."""
        match = ERROR_NOTICE.search(self.html)
        return html_text(match.group(1)) if match else None


def html_text(fragment: str) -> str:
    """A short fragment of HTML as plain text (entities decoded, no tags expected)."""
    return html.unescape(fragment.strip())


def read_table(text: str, received: float) -> TableView | None:
    """The table in a socket message or an HTTP answer, or ``None`` if it holds none."""
    tag = TABLE_TAG.search(text)
    if tag is None:
        return None
    head = tag.group(0)
    ply, version, status = PLY.search(head), VERSION.search(head), STATUS.search(head)
    if ply is None or version is None:
        return None
    return TableView(
        int(ply.group(1)), int(version.group(1)), status.group(1) if status else "", text, received
    )


# --- Configuration -----------------------------------------------------------------------------


#: A check run after the play on the ids of every game played and, for the games still open at
#: the end, the ``data-version`` of each player's last socket table; it returns problems.
FinalCheck = Callable[[Sequence[int], Mapping[int, Sequence[int]]], Iterable[str]]
#: Not like the player's name: Django's similarity check would refuse it.
PASSWORD = "tumbleweed-lantern-quorum-42"


@dataclass
class Config:
    """One run's settings; :meth:`check` refuses what the run must not do."""

    #: The server's address; or several, the processes of one site (sharing its database and
    #: channel layer), each game's two players then on different ones.
    urls: list[str]
    games: int = 50
    think: tuple[float, float] = (0.5, 1.0)
    seconds: float = 60.0
    ramp: float = 5.0
    deck: int = 36
    players_via: str = "http"  # or "db": bulk through the ORM, same settings as the server
    #: How a turn is sent: over the game's socket, as the table does while it is open, or as the
    #: table's POST (its way without a socket).
    via: str = "socket"
    #: Make every game (seek and join) before any socket opens, then open them all at once:
    #: how long a crowd takes to sit down, apart from how long its games take to make.
    seat_first: bool = False
    relay_timeout: float = 10.0
    http_timeout: float = 30.0
    set_up_timeout: float = 300.0
    progress_every: float = 2.0
    #: Cut the play into slices this long, each reported as it ends and in the report (0: none).
    slice_seconds: float = 0.0
    take_chance: float = 0.1  # how often a player takes when it could play: keeps games finite
    #: Resign each game at a ply drawn between 1 and twice this, so this many on average (0: play
    #: every game out). Random turns make games of thousands of plies; people's games end, and
    #: at moments of their own: one limit for all would end every game in the same minute.
    resign_after: int = 0
    #: Each player also keeps its own socket (``/ws/me/``) open, as every page of a logged-in
    #: player does: the notices and challenges it would hear.
    own_sockets: bool = False
    #: Before any socket opens, play every game to this ply through the site's services in this
    #: process (:func:`play_to_ply`; needs ``players_via="db"``, implies ``seat_first``).
    start_ply: int = 0
    pids: list[int] = field(default_factory=list)
    run_id: str = field(default_factory=lambda: secrets.token_hex(3))
    seed: int | None = None
    #: Run after the play, outside the event loop, on the ids of every game played; each returns
    #: problems (strings), counted as errors. The live path's own checks plug in here.
    final_checks: list[FinalCheck] = field(default_factory=list)
    out: TextIO = sys.stdout
    #: ``play`` (games played) or ``pairing`` (``tools.pairing``: a crowd entering the pool).
    mode: str = "play"
    #: The pairing mode's time control, as the lobby's buttons send it.
    pool_clock: str = "3+2"
    #: The pairing mode's wait, after the last arrival, for everyone to be paired.
    pair_timeout: float = 30.0

    def check(self) -> None:
        if not self.urls:
            raise LoadTestError("give the server's address with --url")
        self.urls = [check_loopback(url) for url in self.urls]
        if not 1 <= self.games <= MAX_GAMES:
            raise LoadTestError(f"--games must be between 1 and {MAX_GAMES}")
        if not 0 < self.seconds <= MAX_SECONDS:
            raise LoadTestError(f"--seconds must be more than 0 and at most {MAX_SECONDS:g}")
        if self.slice_seconds < 0:
            raise LoadTestError("--slice must not be negative")
        if self.ramp < 0 or self.relay_timeout <= 0:
            raise LoadTestError("--ramp must not be negative, --relay-timeout must be positive")
        if self.players_via not in ("http", "db"):
            raise LoadTestError("--players must be http or db")
        if self.via not in ("socket", "post"):
            raise LoadTestError("--via must be socket or post")
        if self.mode not in ("play", "pairing"):
            raise LoadTestError("--mode must be play or pairing")
        if not re.fullmatch(r"[0-9]{1,2}\+[0-9]{1,2}", self.pool_clock):
            raise LoadTestError("--clock must be minutes+seconds, such as 3+2")
        if self.deck not in (24, 32, 36):
            raise LoadTestError("--deck must be 24, 32 or 36")
        if not 0 <= self.start_ply <= MAX_START_PLY:
            raise LoadTestError(f"--start-ply must be between 0 and {MAX_START_PLY}")
        if self.start_ply:
            if self.players_via != "db" or self.mode != "play":
                raise LoadTestError(
                    "--start-ply plays the games through the site's services in this process: it "
                    "needs --players db (this command run with the server's own settings and "
                    "database) and the play mode"
                )
            self.seat_first = True  # the games are all made, and played on, before any socket
        for pid in self.pids:
            if not os.path.exists(f"/proc/{pid}/stat"):
                raise LoadTestError(f"--pid {pid}: no such process")

    def player_names(self) -> list[str]:
        return [f"load-{self.run_id}-{n}" for n in range(2 * self.games)]


# --- Players -------------------------------------------------------------------------------------


def make_players_in_db(names: Sequence[str], password: str) -> dict[str, str]:
    """Create the players that are missing in one bulk insert and log each in by minting a
    session; returns each name's session key. Needs the server's own database and settings."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils.module_loading import import_string

    from accounts import backends

    user_model = get_user_model()
    session_store = import_string(settings.SESSION_ENGINE + ".SessionStore")
    hashed = make_password(password)  # one hash for every player: it is the slow part
    with transaction.atomic():
        existing = set(
            user_model.objects.filter(username__in=names).values_list("username", flat=True)
        )
        user_model.objects.bulk_create(
            [user_model(username=name, password=hashed) for name in names if name not in existing]
        )
        keys: dict[str, str] = {}
        for user in user_model.objects.filter(username__in=names):
            session = session_store()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = backends.PATH
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            keys[user.username] = session.session_key
    return keys


def database_checks(
    game_ids: Sequence[int], socket_versions: Mapping[int, Sequence[int]]
) -> list[str]:
    """Check the stored games after a run (same database as the server): each socket's last
    table carried the game's stored ``version``, and the position kept with each game is the one
    its move log replays to (``selectors.check_state``)."""
    from game.models import Game
    from game.selectors import check_state

    problems = []
    for game in Game.objects.filter(pk__in=game_ids).order_by("pk"):
        seen = socket_versions.get(game.pk, [])
        if any(version != game.version for version in seen):
            problems.append(f"game {game.pk}: version {game.version}, sockets saw {list(seen)}")
        try:
            if not check_state(game):
                problems.append(f"game {game.pk}: the stored position is not the replayed log's")
        except ValueError as error:
            problems.append(f"game {game.pk}: its move log does not replay: {error}")
    return problems


@dataclass
class _Socket:
    """A socket a player keeps open (its game's, its own), reconnecting when the server closes
    it, until ``closing``."""

    ws: aiohttp.ClientWebSocketResponse | None = None
    reader: asyncio.Task[None] | None = None
    closing: bool = False

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            await asyncio.gather(self.reader, return_exceptions=True)
            self.reader = None


class Player:
    """One person: a cookie jar, a CSRF token, at most one open game socket, and (with
    ``Config.own_sockets``) the socket of their own that every page opens."""

    def __init__(self, run: Run, name: str, session: aiohttp.ClientSession, url: str) -> None:
        self.run = run
        self.name = name
        self.http = session
        self.url = url  # the server this player talks to (one of the run's addresses)
        self.csrf = ""
        self.game_id = 0
        self.table: TableView | None = None  # the newest table from any source
        self.socket_version = -1  # the version of the last table the socket delivered
        self.socket_ply = -1  # the highest ply a socket table showed, and when it came
        self.socket_ply_received = 0.0
        self.changed = asyncio.Event()
        self._awaited: tuple[int, asyncio.Future[float]] | None = None
        self.refusal: str | None = None  # why the server refused this player's last turn
        self._table = _Socket()
        self._own = _Socket()

    # HTTP ------------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        kind: str,
        *,
        htmx: bool = True,
        via: aiohttp.ClientSession | None = None,
        **kwargs: Any,
    ) -> tuple[int, str, CIMultiDictProxy[str]]:
        """One request (redirects not followed; through the player's session, or ``via``
        another): its status, text and headers; or, when it fails on the way, the error counted
        under ``kind`` and :class:`Failed` raised."""
        headers = {"HX-Request": "true"} if htmx else {}
        ws = self._table.ws
        if htmx and method == "POST" and ws is not None and not ws.closed:
            # As the table's script does: with the socket open, it brings the mover's table.
            headers["X-Table-Live"] = "1"
        try:
            async with (via or self.http).request(
                method, self.url + path, headers=headers, allow_redirects=False, **kwargs
            ) as answer:
                text = await answer.text()
                return answer.status, text, answer.headers
        except TimeoutError:
            self.run.stats.error(f"timeout: {kind}")
        except aiohttp.ClientError as error:
            self.run.stats.error(f"{type(error).__name__}: {kind}")
        raise Failed(kind)

    async def post(
        self,
        path: str,
        kind: str,
        data: dict[str, str],
        htmx: bool = True,
        via: aiohttp.ClientSession | None = None,
    ) -> tuple[int, str, CIMultiDictProxy[str]]:
        """A form's POST, with the CSRF token its page carries."""
        return await self.request(
            "POST", path, kind, htmx=htmx, via=via, data={"csrfmiddlewaretoken": self.csrf, **data}
        )

    async def resign(self) -> None:
        """Resign the game, as the table's button does."""
        status, html, _ = await self.post(f"/games/{self.game_id}/resign/", "POST resign", {})
        if status not in (200, 204):
            self.run.stats.error(f"HTTP {status}: POST resign")
            raise Failed("resign")
        self.see(read_table(html, self.run.clock()))

    async def post_turn(self, notation: str, ply: int) -> tuple[TableView | None, dict[str, float]]:
        """Play a turn as the table's POST does: the answer's table, if it carries one (a server
        whose socket brings the mover's table answers without), and the parts of its time the
        server's ``Server-Timing`` gave (:data:`POST_PARTS`, none if it gave not all of them)."""
        status, html, headers = await self.post(
            f"/games/{self.game_id}/move/", "POST move", {"ply": str(ply), "move": notation}
        )
        if status not in (200, 204):
            self.run.stats.error(f"HTTP {status}: POST move")
            raise Failed("move")
        answer = self.see(read_table(html, self.run.clock()))
        notice = ERROR_NOTICE.search(html)
        if notice or (answer is not None and answer.ply != ply + 1):
            refused = html_text(notice.group(1)) if notice else "the answer shows another ply"
            self.run.stats.error(f"refused: {refused}")
            raise Failed("move")
        in_server = server_timing(headers.get("Server-Timing", ""))
        if not all(name in in_server for name in POST_PARTS):
            return answer, {}
        return answer, {name: in_server[name] for name in POST_PARTS}

    async def send_turn(self, notation: str, ply: int, deadline: float) -> TableView:
        """Play a turn over the game's socket, as the table does while it is open, and wait for
        the socket to bring this player's table at the next ply (or say why it was refused)."""
        ws = self._table.ws
        if ws is None or ws.closed:
            self.run.stats.error("socket closed: turn not sent")
            raise Failed("move")
        self.refusal = None
        try:
            await ws.send_str(json.dumps({"move": notation, "ply": ply}))
        except (aiohttp.ClientError, ConnectionError) as error:
            self.run.stats.error(f"socket failed: {type(error).__name__}: turn")
            raise Failed("move") from None
        if await self.socket_shows(ply + 1, deadline) is None:
            self.run.stats.error("timeout: the mover's socket never showed the turn")
            raise Failed("move")
        if self.refusal is not None:
            self.run.stats.error(f"refused: {self.refusal}")
            raise Failed("move")
        assert self.table is not None
        return self.table

    async def log_in(self, password: str, address: str | None = None) -> None:
        """Sign up over HTTP (from ``address``, when given, with this player's cookies), or log
        in if the name is taken; then read a CSRF token."""
        if address is None:
            await self._sign_up(password, self.http)
        else:
            bound = aiohttp.TCPConnector(local_addr=(address, 0), family=socket.AF_INET)
            async with aiohttp.ClientSession(
                connector=bound, cookie_jar=self.http.cookie_jar, timeout=self.http.timeout
            ) as via:
                await self._sign_up(password, via)
        await self.read_csrf()

    async def _sign_up(self, password: str, via: aiohttp.ClientSession) -> None:
        _, page, _ = await self.request(
            "GET", "/accounts/signup/", "GET sign-up", htmx=False, via=via
        )
        self.csrf = _csrf(page)
        status, page, headers = await self.post(
            "/accounts/signup/",
            "POST sign-up",
            {"username": self.name, "password1": password, "password2": password, "email": ""},
            htmx=False,
            via=via,
        )
        if status == 429:
            raise LoadTestError(
                f"the server refused {self.name}'s sign-up: too many from one address (429, "
                f"again in {headers.get('Retry-After')} s); raise its LIMIT_SIGNUPS for the run, "
                "or use --players db"
            )
        if status != 302:
            _, page, _ = await self.request(
                "GET", "/accounts/login/", "GET login", htmx=False, via=via
            )
            self.csrf = _csrf(page)
            status, page, _ = await self.post(
                "/accounts/login/",
                "POST login",
                {"username": self.name, "password": password},
                htmx=False,
                via=via,
            )
            if status != 302:
                raise LoadTestError(f"{self.name} could neither sign up nor log in ({status})")

    async def read_csrf(self) -> None:
        """The lobby's form token, as a page the player has open would carry."""
        status, page, _ = await self.request("GET", "/play/", "GET lobby", htmx=False)
        if status != 200:
            raise LoadTestError(f"{self.name}: the lobby answered {status}")
        self.csrf = _csrf(page)

    async def refresh(self) -> TableView | None:
        """Reload the table partial, as a person pressing reload would."""
        status, html, _ = await self.request("GET", f"/games/{self.game_id}/", "GET table")
        if status != 200:
            self.run.stats.error(f"HTTP {status}: GET table")
            return None
        return self.see(read_table(html, self.run.clock()))

    def see(self, table: TableView | None) -> TableView | None:
        """Keep ``table`` if it is newer than the one the player has."""
        if table is not None and (self.table is None or table.version >= self.table.version):
            self.table = table
            self.changed.set()
        return table

    # The socket ------------------------------------------------------------------------------

    async def open_socket(self, game_id: int, *, initial: bool = False) -> None:
        """Open the game's socket and wait for the table it sends on connect; ``initial``: one
        of the sockets opened as the run starts, whose opening is timed as a whole."""
        await self.close_socket()
        self.game_id, self.table = game_id, None
        self.socket_version, self.socket_ply = -1, -1
        self._table = _Socket()
        started = self.run.clock()
        first: asyncio.Future[float] = asyncio.get_running_loop().create_future()

        def on_text(text: str) -> None:
            self._on_message(text, first)

        path = f"/ws/games/{game_id}/"
        arrived = await self._open(self._table, path, on_text, first, "socket's first table")
        stats = self.run.stats
        stats.connect.append(arrived - started)
        stats.sockets_opened += 1
        if initial:
            stats.first_socket_started = min(stats.first_socket_started, started)
            stats.last_first_table = max(stats.last_first_table, arrived)
            stats.first_tables += 1
            if stats.first_tables == 2 * self.run.config.games:
                pids = self.run.config.pids
                stats.server_cpu_seated = {p: process_cpu_seconds(p) for p in pids}
                stats.resident_kb_seated = resident_kb_of(pids)
                if pids:
                    self.run.say(
                        f"  all {stats.first_tables} sockets open; resident memory (MB): "
                        + ", ".join(
                            f"pid {p} {megabytes(kb)}" for p, kb in stats.resident_kb_seated.items()
                        )
                    )

    async def open_own_socket(self) -> None:
        """Open the player's own socket and wait for the notices it sends on connect."""
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def heard(_: str) -> None:
            if not first.done():
                first.set_result(None)

        self._own = _Socket()
        await self._open(self._own, "/ws/me/", heard, first, "own socket's first message")
        self.run.stats.own_sockets_opened += 1

    async def _open(
        self,
        socket: _Socket,
        path: str,
        on_text: Callable[[str], None],
        first: asyncio.Future[T],
        awaited: str,
    ) -> T:
        """Follow ``socket`` at ``path`` and wait for ``first``, which ``on_text`` sets from
        what the server sends on connect (``awaited``, in the error of a wait that times out)."""
        socket.reader = asyncio.create_task(self._follow(socket, path, on_text))
        try:
            return await asyncio.wait_for(asyncio.shield(first), self.run.config.http_timeout)
        except TimeoutError:
            self.run.stats.error(f"timeout: {awaited}")
            raise Failed(awaited) from None

    async def _follow(self, socket: _Socket, path: str, on_text: Callable[[str], None]) -> None:
        """Read ``socket`` at ``path`` until it is closed; a close the player did not ask for is
        an error, and the socket reconnects as htmx's extension does: after a random delay that
        doubles with each failure in a row, up to 64 s ("full jitter"), so that a server that is
        slow to accept is not also flooded with reconnections."""
        run = self.run
        url = "ws" + self.url.removeprefix("http") + path
        failures = 0
        while not socket.closing:
            try:
                async with self.http.ws_connect(
                    url, headers={"Origin": self.url}, autoping=True, max_msg_size=0
                ) as ws:
                    socket.ws = ws
                    failures = 0
                    async for message in ws:
                        if message.type == aiohttp.WSMsgType.TEXT:
                            on_text(message.data)
                    problem = f"socket closed by the server: code {ws.close_code}"
            except aiohttp.WSServerHandshakeError as error:
                problem = f"socket refused: HTTP {error.status}"
            except (aiohttp.ClientError, TimeoutError) as error:
                problem = f"socket failed: {type(error).__name__} {error}"[:120]
            socket.ws = None
            if socket.closing:
                return
            run.stats.error(problem)
            failures += 1
            await run.sleep(run.rng.uniform(0, min(64.0, 2.0**failures)))

    def _on_message(self, text: str, first: asyncio.Future[float]) -> None:
        now = self.run.clock()
        table = read_table(text, now)
        if table is None:
            return  # a chat line
        if not first.done():
            first.set_result(now)
        if table.version > self.socket_version:
            self.socket_version = table.version
        if table.ply > self.socket_ply:
            self.socket_ply, self.socket_ply_received = table.ply, now
        self.see(table)
        refusal = table.error()
        if refusal is not None:
            self.refusal = refusal
        if self._awaited is not None and (table.ply >= self._awaited[0] or refusal is not None):
            future = self._awaited[1]
            if not future.done():
                future.set_result(now)
            self._awaited = None

    async def socket_shows(self, ply: int, deadline: float) -> float | None:
        """When the socket delivered a table at ``ply`` or later, or ``None`` by ``deadline``."""
        if self.socket_ply >= ply:  # it came before the mover's POST had its answer
            return self.socket_ply_received
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._awaited = (ply, future)
        try:
            return await asyncio.wait_for(future, max(0.0, deadline - self.run.clock()))
        except TimeoutError:
            return None
        finally:
            self._awaited = None

    async def close_socket(self) -> None:
        await self._table.close()

    async def close_sockets(self) -> None:
        """Close the game's socket and the player's own."""
        await asyncio.gather(self._table.close(), self._own.close())


class Failed(Exception):
    """A step failed; its error is counted already."""


def _csrf(page: str) -> str:
    match = CSRF.search(page)
    if match is None:
        raise LoadTestError("no CSRF token on the page: is this the Your Trumps site?")
    return match.group(1)


# --- A pair of players and their games -----------------------------------------------------------


TRUMPS = ("S", "H", "D", "C")


class Match:
    """Two players playing one game after another until the run stops."""

    def __init__(self, run: Run, first: Player, second: Player) -> None:
        self.run = run
        self.players = (first, second)
        self.game_ids: list[int] = []
        self.resign_at = 0  # this game's ply to resign at (``Config.resign_after``)
        #: A game made before the play (``--start-ply``), for the match's first sockets.
        self.made: int | None = None

    async def make_first_game(self) -> int:
        """Make the match's first game now, before the play, for :meth:`start_game` to open."""
        self.made = await self._make_game()
        return self.made

    async def start_game(self) -> None:
        """A seek by the first player, joined by the second (or the game made before the play);
        then both sockets (with ``--seat-first``, a match's first game waits for every other
        match's to be made)."""
        first_game = not self.game_ids
        try:
            if self.made is not None:
                game_id, self.made = self.made, None
            else:
                game_id = await self._make_game()
        finally:
            if first_game:
                self.run.first_game_made()
        if first_game and self.run.config.seat_first:
            await self.run.all_games_made()
            if self.run.stopping.is_set():
                raise Failed("stopped before every game was made")
        await self.open(game_id)

    async def _make_game(self) -> int:
        first, second = self.players
        trumps = self.run.rng.sample(TRUMPS, 2)
        status, _, headers = await first.post(
            "/play/seek/",
            "POST seek",
            {"trump": trumps[0], "deck": str(self.run.config.deck), "clock": ""},
            htmx=False,
        )
        game = GAME_URL.search(headers.get("Location", "")) if status == 302 else None
        if game is None:
            self.run.stats.error(f"HTTP {status}: POST seek")
            raise Failed("seek")
        game_id = int(game.group(1))
        status, _, headers = await second.post(
            f"/games/{game_id}/join/", "POST join", {"trump": trumps[1]}
        )
        if status not in (204, 302):
            self.run.stats.error(f"HTTP {status}: POST join")
            raise Failed("join")
        return game_id

    async def open(self, game_id: int) -> None:
        initial = not self.game_ids
        self.game_ids.append(game_id)
        self.run.stats.games_started += 1
        await asyncio.gather(*(p.open_socket(game_id, initial=initial) for p in self.players))

    async def rematch(self) -> None:
        """The first player asks for a rematch, the second agrees, and the first follows it (as
        its page does): they must get the same game."""
        game_id = self.game_ids[-1]
        status, _, _ = await self.players[0].post(f"/games/{game_id}/rematch/", "POST rematch", {})
        if status not in (200, 204):
            self.run.stats.error(f"HTTP {status}: POST rematch")
            raise Failed("rematch")
        found = []
        for player in reversed(self.players):
            status, _, headers = await player.post(f"/games/{game_id}/rematch/", "POST rematch", {})
            target = headers.get("HX-Redirect") or headers.get("Location") or ""
            match = GAME_URL.search(target)
            if status not in (204, 302) or match is None:
                self.run.stats.error(f"HTTP {status}: POST rematch")
                raise Failed("rematch")
            found.append(int(match.group(1)))
        if found[0] != found[1]:
            self.run.stats.error("rematch: the two players got different games")
        await self.open(found[0])

    async def play(self) -> None:
        """Play until the run stops: turns, then a rematch (or a new seek) when a game ends.
        After a failed step the tables are reloaded (or the new game tried again); a match that
        fails too often in a row stops, so that it does not spin."""
        run = self.run
        failures = 0
        need_game = True
        while not run.stopping.is_set():
            if failures >= MAX_FAILURES_IN_A_ROW:
                run.stats.error("match stopped after repeated failures")
                return
            try:
                if need_game:
                    await (self._next_game() if self.game_ids else self.start_game())
                    need_game = False
                    if run.config.resign_after:
                        # Counted from the ply the game starts at (--start-ply's are under way).
                        table = self.players[0].table
                        self.resign_at = (table.ply if table is not None else 0) + run.rng.randint(
                            1, 2 * run.config.resign_after
                        )
                over = await self.turn()
            except Failed:
                failures += 1
                await (run.sleep(1) if need_game else self._reload())
                continue
            failures = 0
            if over:
                run.stats.games_finished += 1
                run.stats.finished_at.append(run.clock())
                need_game = True

    async def _next_game(self) -> None:
        table = self.players[0].table
        if table is not None and table.status == "finished":
            try:
                await self.rematch()
                return
            except Failed:
                pass  # counted: a fresh seek instead
        await self.start_game()

    async def _reload(self) -> None:
        for player in self.players:
            with contextlib.suppress(Failed):
                await player.refresh()

    async def turn(self) -> bool:
        """Wait for a player's turn, think, play it and wait for the opponent's socket to show it;
        ``True`` when the game is over."""
        run = self.run
        mover = await self._mover()
        if mover is None:
            return True
        opponent = self.players[1] if mover is self.players[0] else self.players[0]
        await run.sleep(run.rng.uniform(*run.config.think))
        if run.stopping.is_set():
            return False
        table = mover.table
        assert table is not None
        if self.resign_at and table.ply >= self.resign_at:
            await mover.resign()
            run.stats.games_resigned += 1
            return True
        notation = self._choose(table)
        sent = run.clock()
        in_server: dict[str, float] = {}
        if run.config.via == "socket":
            answer = await mover.send_turn(notation, table.ply, sent + run.config.relay_timeout)
        else:
            answer, in_server = await mover.post_turn(notation, table.ply)
        took = run.clock() - sent
        run.stats.turn.append(took)
        run.stats.turn_sent.append(sent)
        if in_server:
            run.stats.post_parts.append({**in_server, OUTSIDE: took - sum(in_server.values())})
            run.stats.post_parts_sent.append(sent)
        run.stats.moves += 1
        arrived = await opponent.socket_shows(table.ply + 1, sent + run.config.relay_timeout)
        if arrived is None:
            run.stats.error("lost relay: the opponent's socket never showed the move")
            await opponent.refresh()
        else:
            run.stats.relay.append(arrived - sent)
            run.stats.relay_sent.append(sent)
        seen = opponent.table
        return (answer is not None and answer.status != "active") or (
            seen is not None and seen.status != "active"
        )

    async def _mover(self) -> Player | None:
        """The player whose table offers a turn at the latest ply either table shows (a table a
        message behind may still offer the turn just played), waiting a while for the tables to
        come; ``None`` when the game is over."""
        deadline = self.run.clock() + self.run.config.relay_timeout
        while True:
            tables = [p.table for p in self.players]
            latest = max((t.ply for t in tables if t is not None), default=-1)
            for player, table in zip(self.players, tables, strict=True):
                if table is None or table.ply != latest:
                    continue
                if table.status != "active":
                    return None
                if table.moves():
                    return player
            remaining = deadline - self.run.clock()
            if remaining <= 0:
                self.run.stats.error("no player's table offers a turn")
                raise Failed("mover")
            for player in self.players:
                player.changed.clear()
            waits = [asyncio.create_task(p.changed.wait()) for p in self.players]
            await asyncio.wait(waits, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()

    def _choose(self, table: TableView) -> str:
        """A random legal turn from the table, as a person picks one: a card, then (for a beat)
        one of its second cards; sometimes a take, when the table offers one."""
        rng = self.run.rng
        moves = table.moves()
        plays = [m for m in moves if m != "take"]
        if "take" in moves and (not plays or rng.random() < self.run.config.take_chance):
            return "take"
        card = rng.choice(list(dict.fromkeys(m.split("-")[0] for m in plays)))
        return rng.choice([m for m in plays if m.split("-")[0] == card])


# --- Games under way (``--start-ply``) -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prelude:
    """What :func:`play_to_ply` did: the games it played on, the turns it made, the games it
    stopped short of the ply (every turn there would have ended them), and how long it took."""

    games: int
    turns: int
    short: int
    seconds: float


def going_on(state: GameState, rng: random.Random) -> EngineMove | None:
    """A legal turn of ``state``, picked at random, after which the game goes on; ``None`` when
    every turn ends it. ``state`` must count every position the game passed (repetitions)."""
    moves = state.legal_moves()
    for index in rng.sample(range(len(moves)), len(moves)):
        if state.play(moves[index]).outcome is None:
            return moves[index]
    return None


def play_to_ply(
    game_ids: Sequence[int], ply: int, rng: random.Random, say: Callable[[str], None]
) -> Prelude:
    """Play each game to ``ply`` through the site's services in this process, a random turn
    that does not end it at a time, each made by the player to move as a POST would
    (``game_play_move`` on the row read afresh): so that a run starts on long games (long logs,
    many positions counted) without minutes of play over sockets first. Needs the server's
    settings and database (``--players db``); synchronous ORM work, to be run off the loop."""
    from django.db import connection

    from game.models import Game
    from game.selectors import stored_state
    from game.services import GameError
    from game.services.play import game_play_move

    started = time.monotonic()
    turns = short = 0
    try:
        for done, game_id in enumerate(game_ids, 1):
            tracked: GameState | None = None  # as played here: every position passed counted
            while True:
                game = Game.objects.select_related("seat0", "seat1").get(pk=game_id)
                if game.is_timed:  # the load test's seeks are untimed: no clock runs out here
                    raise LoadTestError(f"game {game_id} is timed: --start-ply plays untimed games")
                if game.status != Game.Status.ACTIVE:
                    short += 1
                    break
                state = stored_state(game)
                if state.ply >= ply:
                    break
                if tracked is None or tracked.ply != state.ply:
                    tracked = state
                move = going_on(tracked, rng)
                if move is None:
                    short += 1
                    break
                seat = state.position.to_move
                try:
                    game_play_move(
                        game_id=game_id,
                        user=game.seat0 if seat == 0 else game.seat1,
                        notation=str(move),
                        expected_ply=state.ply,
                    )
                except GameError as error:
                    raise LoadTestError(
                        f"game {game_id}: the turn {move} at ply {state.ply} was refused: {error}"
                    ) from None
                tracked = tracked.play(move)
                turns += 1
            if done % PRELUDE_PROGRESS_GAMES == 0 or done == len(game_ids):
                say(
                    f"  played to ply {ply} in {done} of {len(game_ids)} games ({turns} turns, "
                    f"{time.monotonic() - started:.1f} s)"
                    + (f"; {short} stopped short: every turn would end them" if short else "")
                )
    finally:
        connection.close()  # this thread's: it plays no more
    return Prelude(len(game_ids), turns, short, time.monotonic() - started)


async def start_under_way(run: Run, matches: Sequence[Match]) -> Prelude:
    """``--start-ply``: every match's first game made over HTTP (seek, join; a few at a time),
    then played to the ply by :func:`play_to_ply` in a thread (the ORM is synchronous), before
    any game socket opens. :class:`LoadTestError` when a game cannot be made."""
    from asgiref.sync import sync_to_async

    config = run.config
    gate = asyncio.Semaphore(MAKE_GAMES_CONCURRENCY)

    async def make(match: Match) -> int:
        async with gate:
            return await match.make_first_game()

    try:
        game_ids = await asyncio.wait_for(
            asyncio.gather(*(make(m) for m in matches)), config.set_up_timeout
        )
    except TimeoutError:
        raise LoadTestError(f"making the games took over {config.set_up_timeout:g} s") from None
    except Failed as failed:
        errors = ", ".join(f"{kind} ({n})" for kind, n in sorted_errors(run.stats.errors))
        raise LoadTestError(f"making the games failed ({failed}): {errors}") from None
    run.say(f"  {len(game_ids)} games made; playing each to ply {config.start_ply}")
    rng = random.Random(run.rng.getrandbits(64))  # the thread's own, drawn from the run's seed
    play = sync_to_async(play_to_ply, thread_sensitive=True)
    return await play(game_ids, config.start_ply, rng, run.say)


# --- The run ------------------------------------------------------------------------------------


class Run:
    """The shared state of one run: its configuration, clock, random numbers and figures."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.clock = asyncio.get_running_loop().time
        self.stats = Stats(clock=self.clock)
        self.rng = random.Random(config.seed)
        self.stopping = asyncio.Event()
        self._first_games = 0  # the matches that made (or failed to make) their first game
        self._all_made = asyncio.Event()

    def first_game_made(self) -> None:
        self._first_games += 1
        if self._first_games >= self.config.games:
            self._all_made.set()

    async def all_games_made(self) -> None:
        """Wait until every match has made its first game, or the run stops."""
        made = asyncio.ensure_future(self._all_made.wait())
        stopped = asyncio.ensure_future(self.stopping.wait())
        _, pending = await asyncio.wait({made, stopped}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()

    async def sleep(self, seconds: float) -> None:
        """Sleep, but wake at once when the run stops."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    def say(self, line: str) -> None:
        self.config.out.write(line + "\n")
        self.config.out.flush()


async def _progress(run: Run, started: float) -> None:
    """A line every few seconds: moves so far, the rate since the last line, errors."""
    last_moves, last_time = 0, started
    while not run.stopping.is_set():
        await run.sleep(run.config.progress_every)
        now, stats = run.clock(), run.stats
        rate = (stats.moves - last_moves) / max(now - last_time, 1e-9)
        recent = stats.relay[-200:]
        run.say(
            f"  {now - started:5.0f} s  sockets {stats.sockets_opened:5d}  moves {stats.moves:6d}"
            f"  {rate:6.1f}/s  relay p50 {percentile(recent, 50) * 1000:6.0f} ms"
            f"  games over {stats.games_finished}  errors {sum(stats.errors.values())}"
        )
        last_moves, last_time = stats.moves, now


def slice_end(run: Run, matches: Sequence[Match]) -> SliceEnd:
    """The readings of a slice's end, now."""
    plies = 0
    for match in matches:
        tables = [p.table for p in match.players if p.table is not None]
        if any(table.status == "active" for table in tables):
            plies += max(table.ply for table in tables)
    return SliceEnd(run.clock(), resident_kb_of(run.config.pids), plies)


async def _slices(run: Run, matches: Sequence[Match], ends: list[SliceEnd]) -> None:
    """At the end of each ``--slice`` before the run's deadline: keep its readings in ``ends``
    and say the slice's figures (the relays of its last turns may still be on their way: the
    report counts them)."""
    every, stats = run.config.slice_seconds, run.stats
    deadline = stats.play_start + run.config.seconds
    while every:
        due = stats.play_start + every * (len(ends) + 1)
        if due >= deadline:
            return
        await run.sleep(due - run.clock())
        if run.stopping.is_set():
            return
        start = ends[-1].at if ends else stats.play_start
        ends.append(slice_end(run, matches))
        line = stats.slice_of(start, ends[-1])
        run.say(
            f"  slice {len(ends)}, {line.start:.0f}-{line.end:.0f} s: {line.moves} moves, relay "
            f"p50 / p95 / p99 {line.relay.p50:.1f} / {line.relay.p95:.1f} / {line.relay.p99:.1f}"
            f" ms, games ended {line.games_ended}, errors {line.errors}; plies in play"
            f" {line.plies_in_play}"
            + "".join(f"; pid {pid} {megabytes(kb)} MB" for pid, kb in line.resident_kb.items())
        )


#: The client's loop-lag probe sleeps this long, over and over.
LAG_PROBE_SECONDS = 0.01


async def _watch_loop(run: Run) -> None:
    """Sample how late the client's event loop wakes from a short sleep until the run stops."""
    stats = run.stats
    while not run.stopping.is_set():
        slept = run.clock()
        await asyncio.sleep(LAG_PROBE_SECONDS)
        woke = run.clock()
        stats.lag.append(max(0.0, woke - slept - LAG_PROBE_SECONDS))
        stats.lag_at.append(woke)


@contextlib.contextmanager
def without_cycle_collection() -> Iterator[None]:
    """The client's cycle collector kept out of the play, then run once.

    With 1,000 sockets' objects alive, a full collection stopped the client for 70-150 ms and
    found nothing to free; the turns it held back then reached the server together, a burst no
    crowd of separate browsers sends, and the relays that arrived meanwhile were timed late.
    What the play leaves in cycles waits for the end, the run being bounded: 7,579 objects after
    500 games for 60 s."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.collect()


async def _settle(run: Run, matches: Sequence[Match]) -> dict[int, list[int]]:
    """After the play: every game's table as the server has it, against each socket's last table
    (waiting a little for sockets a message behind). Returns each game's socket versions."""

    async def check(match: Match) -> tuple[int, list[int]] | None:
        first = match.players[0]
        if not match.game_ids or first.game_id != match.game_ids[-1]:
            return None
        deadline = run.clock() + run.config.relay_timeout
        while True:
            try:
                status, html, _ = await first.request("GET", f"/games/{first.game_id}/", "GET")
            except Failed:
                return None
            table = read_table(html, run.clock()) if status == 200 else None
            if table is None:
                run.stats.error(f"HTTP {status}: GET table at the end")
                return None
            versions = [p.socket_version for p in match.players]
            if all(v == table.version for v in versions) or run.clock() > deadline:
                break
            await asyncio.sleep(0.5)
        if any(v != table.version for v in versions):
            run.stats.error("stale socket: its last table is not the server's version")
        return first.game_id, versions

    results = await asyncio.gather(*(check(m) for m in matches))
    return dict(r for r in results if r is not None)


def make_players(
    run: Run, sessions: Mapping[str, str], connector: aiohttp.TCPConnector
) -> list[Player]:
    """The run's players, each with a cookie jar of its own (holding its minted session, with
    ``--players db``) on the shared ``connector``; with several addresses, a game's two players
    (numbers 2i and 2i + 1) on different ones."""
    config = run.config
    timeout = aiohttp.ClientTimeout(total=config.http_timeout)
    session_cookie = "sessionid"
    if sessions:
        from django.conf import settings

        session_cookie = settings.SESSION_COOKIE_NAME
    players = []
    for number, name in enumerate(config.player_names()):
        url = config.urls[number % len(config.urls)]
        jar = aiohttp.CookieJar(unsafe=True)  # unsafe: accept cookies from an IP address
        if name in sessions:
            jar.update_cookies({session_cookie: sessions[name]}, response_url=URL(url))
        http = aiohttp.ClientSession(
            connector=connector, connector_owner=False, cookie_jar=jar, timeout=timeout
        )
        players.append(Player(run, name, http, url))
    return players


async def set_up_players(run: Run, players: Sequence[Player], sessions: Mapping[str, str]) -> None:
    """Log each player in (a minted session's lobby read for its CSRF token, or a sign-up over
    HTTP), a few at a time; :class:`LoadTestError` when that fails or takes too long."""
    config = run.config
    run.say(f"Run {config.run_id}: setting up {len(players)} players via {config.players_via}")
    gate = asyncio.Semaphore(SIGN_UP_CONCURRENCY if not sessions else 64)

    async def ready(number: int, player: Player) -> None:
        async with gate:
            if sessions:
                await player.read_csrf()
            else:
                address = sign_up_address(player.url, config.run_id, number)
                await player.log_in(PASSWORD, address)

    try:
        await asyncio.wait_for(
            asyncio.gather(*(ready(n, p) for n, p in enumerate(players))),
            config.set_up_timeout,
        )
    except TimeoutError:
        raise LoadTestError(
            f"setting up the players took over {config.set_up_timeout:g} s"
        ) from None
    except Failed as failed:
        raise LoadTestError(f"setting up the players failed: {failed}") from None


async def _play(config: Config, sessions: dict[str, str]) -> tuple[Report, dict[int, list[int]]]:
    run = Run(config)
    stats = run.stats
    load_start = os.getloadavg()
    speed_before = speed_probe()
    set_up_started = run.clock()
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=None)
    players = make_players(run, sessions, connector)
    prelude = Prelude(0, 0, 0, 0.0)
    try:
        await set_up_players(run, players, sessions)
        if config.own_sockets:
            await asyncio.gather(*(p.open_own_socket() for p in players))
        matches = [Match(run, players[2 * i], players[2 * i + 1]) for i in range(config.games)]
        ready = f"  players ready in {run.clock() - set_up_started:.1f} s"
        if config.start_ply:
            run.say(f"{ready}; making the games")
            prelude = await start_under_way(run, matches)
            ready = f"  players and games ready in {run.clock() - set_up_started:.1f} s"
        set_up_seconds = run.clock() - set_up_started
        run.say(f"{ready}; starting {config.games} games")

        with without_cycle_collection():
            started = stats.play_start = run.clock()
            cpu_play_start = own_cpu_seconds()
            host_play_start = HostCpu.read()
            server_play_start = {pid: process_cpu_seconds(pid) for pid in config.pids}

            async def start(index: int, match: Match) -> None:
                await run.sleep(config.ramp * index / config.games)
                if not run.stopping.is_set():
                    await match.play()

            progress = asyncio.create_task(_progress(run, started))
            ends: list[SliceEnd] = []
            slicing = asyncio.create_task(_slices(run, matches, ends))
            lag_probe = asyncio.create_task(_watch_loop(run))
            tasks = [asyncio.create_task(start(i, m)) for i, m in enumerate(matches)]
            await run.sleep(config.seconds)
            run.stopping.set()
            stopped = run.clock()
            server_stopped = {pid: process_cpu_seconds(pid) for pid in config.pids}
            last_end = slice_end(run, matches)
            host_cpu = HostCpu.between(host_play_start, HostCpu.read())
            # The players finish the turn in hand (and wait for its relay) before they leave.
            await asyncio.wait(tasks, timeout=config.relay_timeout + config.http_timeout)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, progress, slicing, lag_probe, return_exceptions=True)
        elapsed = stopped - started
        socket_versions = await _settle(run, matches)
        cpu = own_cpu_seconds() - cpu_play_start
        server = {
            str(pid): process_cpu_seconds(pid) - server_play_start[pid] for pid in config.pids
        }
    finally:
        await asyncio.gather(*(p.close_sockets() for p in players), return_exceptions=True)
        await asyncio.gather(*(p.http.close() for p in players), return_exceptions=True)
        await connector.close()
    opened = stats.last_first_table - stats.first_socket_started if stats.sockets_opened else 0.0
    seated = None
    if stats.first_tables >= 2 * config.games and stats.last_first_table < stopped:
        since = stats.last_first_table
        turns = [t for t, sent in zip(stats.turn, stats.turn_sent, strict=True) if sent >= since]
        relays = [r for r, sent in zip(stats.relay, stats.relay_sent, strict=True) if sent >= since]
        lags = [x for x, at in zip(stats.lag, stats.lag_at, strict=True) if since <= at <= stopped]
        seated_cpu = sum(server_stopped[pid] - cpu for pid, cpu in stats.server_cpu_seated.items())
        seated = Seated(
            stopped - since,
            len(turns),
            Latency.of(turns),
            Latency.of(relays),
            seated_cpu,
            Latency.of(lags),
            stats.post_parts_since(since),
        )
    slices = []
    if config.slice_seconds:
        starts = [started, *(end.at for end in ends)]
        slices = [
            stats.slice_of(start, end) for start, end in zip(starts, [*ends, last_end], strict=True)
        ]
    report = Report(
        url=" ".join(config.urls),
        games=config.games,
        think=config.think,
        players_via=config.players_via,
        via=config.via,
        seconds=elapsed,
        moves=stats.moves,
        moves_per_second=stats.moves / elapsed if elapsed else 0.0,
        turn=Latency.of(stats.turn),
        relay=Latency.of(stats.relay),
        socket_connect=Latency.of(stats.connect),
        client_lag=Latency.of(stats.lag),
        post_parts=stats.post_parts_since(-math.inf),
        sockets_opened=stats.sockets_opened,
        own_sockets_opened=stats.own_sockets_opened,
        sockets_open_seconds=opened,
        games_started=stats.games_started,
        games_finished=stats.games_finished,
        games_resigned=stats.games_resigned,
        errors=dict(stats.errors),
        client_cpu_seconds=cpu,
        server_cpu_seconds=server,
        load_average_start=load_start,
        load_average_end=os.getloadavg(),
        speed_probe_seconds=(speed_before, speed_probe()),
        host_cpu=host_cpu,
        set_up_seconds=set_up_seconds,
        all_seated=seated,
        ramp=config.ramp,
        seat_first=config.seat_first,
        game_ids=sorted(i for m in matches for i in m.game_ids),
        slice_seconds=config.slice_seconds,
        slices=slices,
        resident_kb_seated={str(pid): kb for pid, kb in stats.resident_kb_seated.items()},
        resident_kb_end={str(pid): kb for pid, kb in last_end.resident_kb.items()},
        start_ply=config.start_ply,
        start_ply_short=prelude.short,
        start_ply_seconds=prelude.seconds,
    )
    return report, socket_versions


def run(config: Config) -> Report:
    """Run the load test described by ``config`` and return its report (also printed).

    The final checks run afterwards, outside the event loop, so they may use the ORM."""
    config.check()
    limit = raise_open_files_limit()
    if limit < 4 * config.games + 64:
        raise LoadTestError(f"the open-files limit ({limit}) is too low for {config.games} games")
    sessions: dict[str, str] = {}
    if config.players_via == "db":
        sessions = make_players_in_db(config.player_names(), PASSWORD)
    report, socket_versions = asyncio.run(_play(config, sessions))
    for final_check in config.final_checks:
        problems = list(final_check(report.game_ids, socket_versions))
        report.problems += problems
        if problems:
            report.errors[f"final check: {getattr(final_check, '__name__', 'check')}"] = len(
                problems
            )
    return report
