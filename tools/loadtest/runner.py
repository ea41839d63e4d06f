"""A run (:func:`run`): the players set up, the games played for ``--seconds`` beside the
progress lines, the ``--slice`` readings and the client's loop-lag probe, then every game's
table settled against the sockets' and the report made."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import os
from collections.abc import Iterator, Sequence

import aiohttp

from tools.loadtest.config import Config, LoadTestError
from tools.loadtest.database import Prelude, make_players_in_db
from tools.loadtest.figures import Latency, Seated, SliceEnd, megabytes, percentile
from tools.loadtest.host import (
    HostCpu,
    own_cpu_seconds,
    process_cpu_seconds,
    raise_open_files_limit,
    resident_kb_of,
    speed_probe,
)
from tools.loadtest.match import Match
from tools.loadtest.player import Failed
from tools.loadtest.report import Report
from tools.loadtest.set_up import PASSWORD, make_players, set_up_players, start_under_way
from tools.loadtest.shared import Run
from tools.loadtest.table import read_table


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
            run.stop()
            stopped = run.stopped_at
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
