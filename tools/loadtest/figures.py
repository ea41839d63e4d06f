"""What a run measures: latencies (:class:`Latency`), the samples and counters every match adds
to (:class:`Stats`), the ``--slice`` cuts of the play, and what every report ends with
(:class:`Figures`: errors, CPU, load average, JSON)."""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

#: What a POST's time is shared out into: the site handler's parts (its ``Server-Timing``
#: header), then the rest.
POST_PARTS = ("queue", "thread", "view", "publish")
OUTSIDE = "outside"


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
