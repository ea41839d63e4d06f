"""The play mode's report (:class:`Report`): every figure of a run, as a small text table or
JSON."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tools.loadtest.figures import Figures, Latency, Seated, Slice, megabytes
from tools.loadtest.host import HostCpu


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
