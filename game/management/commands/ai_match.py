"""``manage.py ai_match --a hard --b medium --games 200 [--seconds 0.5] [--deck 36] [--record F]
[--b-from CHECKOUT]``."""

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from game.ai import LEVELS
from game.ai.arena import RecordError, run
from game.ai.bots import BOTS
from game.ai.elsewhere import ElsewhereError
from game.engine import Rules


class Command(BaseCommand):
    help = (
        "Play two computer levels against each other from seeded deals (each deal twice, "
        "seats swapped) and report the score, an Elo difference and the time per turn."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--a", required=True, choices=LEVELS + BOTS, help="the level measured")
        parser.add_argument(
            "--b",
            required=True,
            choices=LEVELS + BOTS,
            help="its opponent: a level, or a deterministic bot (lowest-beat, lowest, trumps-last)",
        )
        parser.add_argument("--games", type=int, default=200, help="an even number of games")
        parser.add_argument(
            "--seconds", type=float, default=None, help="thinking time per turn (default: level's)"
        )
        parser.add_argument("--deck", type=int, choices=(36, 32, 24), default=36)
        parser.add_argument("--must-beat", action="store_true", help="play the must_beat variant")
        parser.add_argument(
            "--workers", type=int, default=1, help="games played at once, one process each"
        )
        parser.add_argument(
            "--b-from",
            type=Path,
            help="a checkout of this project (an older version) whose level --b is B",
        )
        parser.add_argument(
            "--record",
            type=Path,
            help="a file to keep each finished game in; run again to play only the games missing",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        games = options["games"]
        if games < 2 or games % 2:
            raise CommandError("--games must be an even number, at least 2 (each deal twice)")
        rules = Rules(deck=options["deck"], must_beat=options["must_beat"])
        try:
            run(
                options["a"],
                options["b"],
                games,
                options["seconds"],
                rules,
                options["workers"],
                say=lambda line: self.stdout.write(line),
                record=options["record"],
                b_from=options["b_from"],
            )
        except (RecordError, ElsewhereError) as error:
            raise CommandError(str(error)) from error
