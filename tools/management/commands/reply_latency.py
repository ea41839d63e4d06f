"""``manage.py reply_latency``: how long after its pause the computer starts thinking.

Plays a few games against the computer through the services (a person's turn,
then waiting for the reply), with the task workers of a running site (``make
run``) or ``manage.py db_worker`` processes doing the replies, and prints the
delay from each reply falling due (its commit plus ``COMPUTER_PAUSE``) to a
worker starting it. A benchmark: it prints figures, it judges nothing.
"""

from __future__ import annotations

import statistics
import time
from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from game.models import Game
from game.selectors import stored_state
from game.services.play import game_play_move
from game.services.starting import game_create_vs_computer


class Command(BaseCommand):
    help = "Measure the delay from a computer's reply falling due to a worker starting it."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--games", type=int, default=4)
        parser.add_argument("--turns", type=int, default=10, help="person's turns per game")
        parser.add_argument("--level", default="easy")

    def handle(self, *args: Any, **options: Any) -> None:
        person, _ = get_user_model().objects.get_or_create(username="reply-latency-bench")
        since = time.time()
        games = [
            game_create_vs_computer(user=person, level=options["level"], trump="S")
            for _ in range(options["games"])
        ]
        for _ in range(options["turns"]):
            for game in games:
                self._play(game, person)
        ids = [game.pk for game in games]
        replies = [
            row
            for row in DBTaskResult.objects.filter(
                task_path="game.tasks.computer_reply", status=TaskResultStatus.SUCCESSFUL
            ).values("args_kwargs", "run_after", "started_at", "enqueued_at")
            if row["args_kwargs"]["args"][0] in ids and row["enqueued_at"].timestamp() >= since
        ]
        if not replies:
            raise CommandError("no reply was played: are task workers running?")
        delays = sorted((r["started_at"] - r["run_after"]).total_seconds() * 1000 for r in replies)
        self.stdout.write(
            f"{len(delays)} replies: due -> started median {statistics.median(delays):.1f} ms, "
            f"p90 {delays[int(0.9 * (len(delays) - 1))]:.1f} ms, max {delays[-1]:.1f} ms"
        )

    def _play(self, game: Game, person: object) -> None:
        """The person's turn when it is theirs, after waiting (up to 30 s) for the computer's."""
        deadline = time.monotonic() + 30
        while True:
            game.refresh_from_db()
            state = stored_state(game)
            if game.status != Game.Status.ACTIVE:
                return
            if state.position.to_move == 0:
                break
            if time.monotonic() > deadline:
                raise CommandError(f"game {game.pk}: no reply in 30 s: are task workers running?")
            time.sleep(0.01)
        notation = str(state.legal_moves()[0])
        game_play_move(game_id=game.pk, user=person, notation=notation, expected_ply=state.ply)
