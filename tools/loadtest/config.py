"""The load test's options (:class:`Config`, which ``manage.py loadtest`` fills in) and what
refuses a run that must not happen: a host off this machine, a run too big or too long."""

from __future__ import annotations

import os
import re
import secrets
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TextIO
from urllib.parse import urlsplit

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
MAX_GAMES = 1000
MAX_SECONDS = 3600.0
#: ``--start-ply``'s bound: each of its plies is a service call per game, before the play.
MAX_START_PLY = 1000


class LoadTestError(Exception):
    """A run that cannot start: a bad argument, a refused host, a set-up that failed."""


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


#: A check run after the play on the ids of every game played and, for the games still open at
#: the end, the ``data-version`` of each player's last socket table; it returns problems.
FinalCheck = Callable[[Sequence[int], Mapping[int, Sequence[int]]], Iterable[str]]


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
