"""The load test's pairing mode (``manage.py loadtest --mode pairing``): a crowd entering the
quick-pairing pool (``game.pool``).

``--games N`` makes twice N players, set up as the play mode sets them up (``--players``;
with several ``--url``, alternately on each). Each opens the pool's socket (``/ws/pool/``) at
its own moment of ``--ramp`` seconds (evenly spread, in a random order), sends the time control
(``--clock``, rated) as the lobby's script does, and waits for its new table's address.
Measured:

- how many were paired, and into how many games: each game's address must reach exactly two
  players;
- for each player, the **wait**: from the partner's arrival (the later of the two frames sent)
  to the table's address reaching this socket;
- errors: a socket refused or closed by the server, a refusal, a player not paired within
  ``--pair-timeout`` seconds of the last arrival.

With ``--players db`` the stored games are checked afterwards (:func:`database_checks`): each
game seats the two players told of it, in play on the time control, and nobody is left in the pool.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import aiohttp

from tools.loadtest.config import Config, LoadTestError
from tools.loadtest.database import make_players_in_db
from tools.loadtest.figures import Figures, Latency
from tools.loadtest.host import own_cpu_seconds, process_cpu_seconds, raise_open_files_limit
from tools.loadtest.player import Player
from tools.loadtest.set_up import PASSWORD, make_players, set_up_players
from tools.loadtest.shared import Run
from tools.loadtest.table import GAME_URL


@dataclass
class Arrival:
    """One player's trip through the pool (the run's clock): when its frame was sent, when the
    table's address reached it, and the game's id."""

    player: Player
    arrived: float | None = None
    told: float | None = None
    game_id: int | None = None


@dataclass
class PairingReport(Figures):
    """What a pairing run measured; :meth:`format` prints it."""

    url: str
    clock: str
    players: int
    paired: int
    games: int
    ramp: float
    #: From the first arrival to the last.
    arrivals_seconds: float
    #: From the partner's arrival to the table's address reaching the player, one per player.
    wait: Latency
    errors: dict[str, int]
    client_cpu_seconds: float
    server_cpu_seconds: dict[str, float]
    load_average_start: tuple[float, float, float]
    load_average_end: tuple[float, float, float]
    #: The players told of each game, by its id.
    pairs: dict[int, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def format(self) -> str:
        lines = [
            f"Pairing load test against {self.url}: {self.players} players entering the "
            f"{self.clock} pool over {self.ramp:g} s",
            f"  arrivals spread over {self.arrivals_seconds:.2f} s; {self.paired} paired into "
            f"{self.games} games",
            Latency.header(30),
            self.wait.row("wait from the partner arriving", 30),
            *self.cost_lines(),
            *self.problem_lines(),
        ]
        return "\n".join(lines)


async def _enter(run: Run, arrival: Arrival, at: float) -> None:
    """At ``at`` seconds, open the pool's socket, ask for the run's time control, and wait for
    the table's address (or count why not)."""
    await asyncio.sleep(at)
    player, stats = arrival.player, run.stats
    url = "ws" + player.url.removeprefix("http") + "/ws/pool/"
    try:
        async with player.http.ws_connect(url, headers={"Origin": player.url}) as ws:
            await ws.send_str(json.dumps({"clock": run.config.pool_clock, "rated": True}))
            arrival.arrived = run.clock()
            async for message in ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    continue
                answer = json.loads(message.data)
                if "url" in answer:
                    arrival.told = run.clock()
                    game = GAME_URL.search(answer["url"])
                    arrival.game_id = int(game.group(1)) if game else None
                    return
                if "error" in answer:
                    stats.error(f"refused: {answer['error']}")
                    return
            stats.error(f"pool socket closed by the server: code {ws.close_code}")
    except aiohttp.WSServerHandshakeError as error:
        stats.error(f"pool socket refused: HTTP {error.status}")
    except (aiohttp.ClientError, TimeoutError) as error:
        stats.error(f"pool socket failed: {type(error).__name__} {error}"[:120])


def waits(arrivals: Sequence[Arrival]) -> tuple[list[float], dict[int, list[str]], list[str]]:
    """Each paired player's wait from its partner's arrival, the players told of each game, and
    the problems: a game told to other than two players."""
    told: dict[int, list[Arrival]] = defaultdict(list)
    for arrival in arrivals:
        if arrival.game_id is not None:
            told[arrival.game_id].append(arrival)
    samples, problems = [], []
    for game_id, pair in sorted(told.items()):
        if len(pair) != 2:
            problems.append(f"game {game_id} was told to {len(pair)} players")
            continue
        partner_arrived = max(a.arrived for a in pair if a.arrived is not None)
        samples += [a.told - partner_arrived for a in pair if a.told is not None]
    names = {game_id: sorted(a.player.name for a in pair) for game_id, pair in told.items()}
    return samples, names, problems


async def _pair(config: Config, sessions: Mapping[str, str]) -> PairingReport:
    run = Run(config)
    load_start = os.getloadavg()
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=None)
    players = make_players(run, sessions, connector)
    try:
        await set_up_players(run, players, sessions)
        count = len(players)
        order = run.rng.sample(range(count), count)
        arrivals = [Arrival(player) for player in players]
        run.say(f"  {count} players ready; entering the {config.pool_clock} pool")
        cpu_start = own_cpu_seconds()
        server_start = {pid: process_cpu_seconds(pid) for pid in config.pids}
        tasks = [
            asyncio.create_task(_enter(run, arrivals[n], config.ramp * rank / count))
            for rank, n in enumerate(order)
        ]
        _, pending = await asyncio.wait(tasks, timeout=config.ramp + config.pair_timeout)
        for task in pending:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for _ in pending:
            run.stats.error(f"not paired within {config.pair_timeout:g} s of the last arrival")
        cpu = own_cpu_seconds() - cpu_start
        server = {str(pid): process_cpu_seconds(pid) - server_start[pid] for pid in config.pids}
    finally:
        await asyncio.gather(*(p.http.close() for p in players), return_exceptions=True)
        await connector.close()
    samples, names, problems = waits(arrivals)
    arrived = [a.arrived for a in arrivals if a.arrived is not None]
    return PairingReport(
        url=" ".join(config.urls),
        clock=config.pool_clock,
        players=count,
        paired=sum(a.game_id is not None for a in arrivals),
        games=len(names),
        ramp=config.ramp,
        arrivals_seconds=max(arrived) - min(arrived) if arrived else 0.0,
        wait=Latency.of(samples),
        errors=dict(run.stats.errors),
        client_cpu_seconds=cpu,
        server_cpu_seconds=server,
        load_average_start=load_start,
        load_average_end=os.getloadavg(),
        pairs=names,
        problems=problems,
    )


def database_checks(pairs: Mapping[int, Sequence[str]], clock: str) -> list[str]:
    """Check the stored games of a pairing run (the server's database): each seats the two
    players told of it, in play on ``clock``, nobody sits in two, and nobody is left waiting."""
    from game.models import Game, PoolEntry

    minutes, increment = (int(part) for part in clock.split("+"))
    problems = []
    seated: Counter[str] = Counter()
    games = Game.objects.filter(pk__in=pairs).select_related("seat0", "seat1")
    for game in games:
        players = sorted(user.username for user in (game.seat0, game.seat1) if user is not None)
        seated.update(players)
        if players != sorted(pairs[game.pk]):
            problems.append(f"game {game.pk} seats {players}, told {list(pairs[game.pk])}")
        timed = (game.clock_initial, game.clock_increment) == (minutes * 60, increment)
        if not (timed and game.rated and game.status in (Game.Status.ACTIVE, Game.Status.FINISHED)):
            problems.append(f"game {game.pk} is not a rated {clock} game in play")
    if len(games) != len(pairs):
        problems.append(f"{len(pairs) - len(games)} games told of are not stored")
    problems += [f"{name} sits in {n} games" for name, n in seated.items() if n > 1]
    left = PoolEntry.objects.filter(user__username__in=list(seated)).count()
    if left:
        problems.append(f"{left} paired players are still in the pool")
    return problems


def run(config: Config) -> PairingReport:
    """Run the pairing load test described by ``config`` and return its report."""
    config.check()
    if raise_open_files_limit() < 2 * config.games + 64:
        raise LoadTestError(f"the open-files limit is too low for {2 * config.games} players")
    sessions: dict[str, str] = {}
    if config.players_via == "db":
        sessions = make_players_in_db(config.player_names(), PASSWORD)
    report = asyncio.run(_pair(config, sessions))
    if config.players_via == "db":
        problems = database_checks(report.pairs, config.pool_clock)
        report.problems += problems
        if problems:
            report.errors["final check: database_checks"] = len(problems)
    return report
