"""Two players and their games (:class:`Match`): a seek and a join, the turns (who moves, what
it picks, how long the relay took), a resignation at the drawn ply, a rematch when a game ends."""

from __future__ import annotations

import asyncio
import contextlib

from tools.loadtest.figures import OUTSIDE
from tools.loadtest.player import Failed, Player
from tools.loadtest.shared import Run
from tools.loadtest.table import GAME_URL, TableView

#: A match that fails this many turns in a row stops (its errors are counted), rather than spin.
MAX_FAILURES_IN_A_ROW = 5
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
                # A game that the turn in hand at the stop ends is counted at the stop, in the
                # last slice, where that turn was counted.
                run.stats.finished_at.append(min(run.clock(), run.stopped_at))
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
