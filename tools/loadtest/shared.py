"""What every player and match of one run shares (:class:`Run`): its configuration, clock,
random numbers and figures, and the event that stops it."""

from __future__ import annotations

import asyncio
import contextlib
import random

from tools.loadtest.config import Config
from tools.loadtest.figures import Stats


class Run:
    """The shared state of one run: its configuration, clock, random numbers and figures."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.clock = asyncio.get_running_loop().time
        self.stats = Stats(clock=self.clock)
        self.rng = random.Random(config.seed)
        self.stopping = asyncio.Event()
        #: When the play stopped (run clock): the turns in hand are finished after it.
        self.stopped_at = float("inf")
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

    def stop(self) -> None:
        self.stopped_at = self.clock()
        self.stopping.set()

    async def sleep(self, seconds: float) -> None:
        """Sleep, but wake at once when the run stops."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    def say(self, line: str) -> None:
        self.config.out.write(line + "\n")
        self.config.out.flush()
