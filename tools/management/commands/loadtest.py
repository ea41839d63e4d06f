"""``manage.py loadtest --url http://127.0.0.1:8000 --games 500 --think 0.5-1 --seconds 60``.

A thin shell over :mod:`tools.loadtest` (read its docstring for what a run does and measures).
"""

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tools import loadtest, pairing
from tools.loadtest.config import Config, LoadTestError, parse_think


class Command(BaseCommand):
    help = (
        "Play many live games at once against a running server on this machine (loopback only) "
        "through its own pages and websockets, and report latencies, moves/s, errors and CPU."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--url",
            action="append",
            help="the server (loopback; default http://127.0.0.1:8000); repeat it for the "
            "processes of one site, to put each game's players on different ones",
        )
        parser.add_argument("--games", type=int, default=50, help="games played at once")
        parser.add_argument(
            "--think", default="0.5-1", help="a player's thinking time per turn, seconds: LOW-HIGH"
        )
        parser.add_argument("--seconds", type=float, default=60, help="how long to play")
        parser.add_argument("--ramp", type=float, default=5, help="start the games over this long")
        parser.add_argument(
            "--seat-first",
            action="store_true",
            help="make every game before any socket opens, then open them all at once (how "
            "long a crowd takes to sit down)",
        )
        parser.add_argument("--deck", type=int, choices=(24, 32, 36), default=36)
        parser.add_argument(
            "--players",
            choices=("http", "db"),
            default="http",
            help="sign players up over HTTP (honest, slow: a password hash each), or create them "
            "in bulk through the ORM with minted sessions (only with the server's own database)",
        )
        parser.add_argument(
            "--pid",
            action="append",
            default=[],
            help="a server process whose CPU and resident memory to measure (repeat, or separate "
            "with commas)",
        )
        parser.add_argument(
            "--relay-timeout",
            type=float,
            default=10,
            help="seconds after which a move the opponent's socket has not shown is lost",
        )
        parser.add_argument(
            "--via",
            choices=("socket", "post"),
            default="socket",
            help="send each turn over the game's socket, as the table does while it is open "
            "(default), or as the table's POST, its way without a socket",
        )
        parser.add_argument("--progress", type=float, default=2, help="seconds between lines")
        parser.add_argument(
            "--slice",
            type=float,
            default=0,
            metavar="SECONDS",
            help="cut the play into slices this long: each one's moves, relay p50/p95/p99, errors "
            "and the --pid processes' resident memory, as it ends and in the report",
        )
        parser.add_argument(
            "--resign-after",
            type=int,
            default=0,
            metavar="PLIES",
            help="resign each game at a ply drawn between 1 and twice this (so this many on "
            "average), as people end games, each at its own moment, that random turns would make "
            "thousands of plies long (default 0: play every game out)",
        )
        parser.add_argument(
            "--start-ply",
            type=int,
            default=0,
            metavar="N",
            help="before any socket opens, play every game to ply N through the site's services "
            "in this process, random turns that do not end it, so that the play starts on games "
            "well under way (needs --players db; implies --seat-first)",
        )
        parser.add_argument(
            "--own-sockets",
            action="store_true",
            help="each player also keeps its own socket (/ws/me/) open, as every page of a "
            "logged-in player does",
        )
        parser.add_argument(
            "--mode",
            choices=("play", "pairing"),
            default="play",
            help="play games (default), or have twice --games players enter the quick-pairing pool "
            "over --ramp seconds and measure how fast each is paired (tools/pairing.py)",
        )
        parser.add_argument(
            "--clock", default="3+2", help="the pairing mode's time control (default 3+2)"
        )
        parser.add_argument(
            "--pair-timeout",
            type=float,
            default=30,
            help="the pairing mode's wait for the last pairing after the last arrival, seconds",
        )
        parser.add_argument("--seed", type=int, help="seed the players' random choices")
        parser.add_argument("--json", type=Path, help="also write the figures to this file")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            pids = [int(p) for item in options["pid"] for p in item.split(",") if p.strip()]
        except ValueError:
            raise CommandError("--pid takes process ids") from None
        try:
            config = Config(
                urls=options["url"] or ["http://127.0.0.1:8000"],
                games=options["games"],
                think=parse_think(options["think"]),
                seconds=options["seconds"],
                ramp=options["ramp"],
                seat_first=options["seat_first"],
                deck=options["deck"],
                players_via=options["players"],
                via=options["via"],
                relay_timeout=options["relay_timeout"],
                progress_every=options["progress"],
                slice_seconds=options["slice"],
                resign_after=options["resign_after"],
                own_sockets=options["own_sockets"],
                start_ply=options["start_ply"],
                pids=pids,
                seed=options["seed"],
                out=self.stdout,
                mode=options["mode"],
                pool_clock=options["clock"],
                pair_timeout=options["pair_timeout"],
            )
            report = (pairing if config.mode == "pairing" else loadtest).run(config)
        except LoadTestError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(report.format())
        if options["json"]:
            options["json"].write_text(report.to_json() + "\n")
            self.stdout.write(f"Figures written to {options['json']}")
