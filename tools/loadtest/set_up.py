"""The players and their first games, before the play: each player's HTTP session (holding a
minted session with ``--players db``), a sign-up over HTTP from a loopback address of its own,
and with ``--start-ply`` every first game made and played on to the ply."""

from __future__ import annotations

import asyncio
import ipaddress
import random
import sys
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

import aiohttp
from yarl import URL

from tools.loadtest.config import MAX_GAMES, LoadTestError
from tools.loadtest.database import Prelude, play_to_ply
from tools.loadtest.figures import sorted_errors
from tools.loadtest.match import Match
from tools.loadtest.player import Failed, Player
from tools.loadtest.shared import Run

#: Where the players' sign-up addresses are taken from: all of 127.0.0.0/8 is this machine on
#: Linux, and 127.1.0.0 up keeps clear of the 127.0.x.y that hosts files name.
SIGN_UP_ADDRESSES = ipaddress.IPv4Address("127.1.0.0")
#: Games made at once before the play (``--start-ply``): each is a seek and a join over HTTP.
MAKE_GAMES_CONCURRENCY = 64
#: Sign-ups over HTTP at once: each costs the server a password hash, so more only queue up.
SIGN_UP_CONCURRENCY = 8
#: Not like the player's name: Django's similarity check would refuse it.
PASSWORD = "tumbleweed-lantern-quorum-42"


def sign_up_address(url: str, run_id: str, number: int) -> str | None:
    """The loopback address player ``number`` signs up from, or ``None`` (the usual one) where
    this machine cannot give each its own: off Linux, or on an IPv6 URL. Each run takes a block
    of its own (by its id), so that runs an hour apart do not count against one another.

    >>> sign_up_address("http://127.0.0.1:8000", "00000a", 3)
    '127.1.78.35'
    """
    if not sys.platform.startswith("linux") or ":" in (urlsplit(url).hostname or ":"):
        return None
    block = 2 * MAX_GAMES
    blocks = (2**24 - 2**16) // block  # 127.1.0.0 to the end of 127/8
    return str(SIGN_UP_ADDRESSES + int(run_id, 16) % blocks * block + number)


def make_players(
    run: Run, sessions: Mapping[str, str], connector: aiohttp.TCPConnector
) -> list[Player]:
    """The run's players, each with a cookie jar of its own (holding its minted session, with
    ``--players db``) on the shared ``connector``; with several addresses, a game's two players
    (numbers 2i and 2i + 1) on different ones."""
    config = run.config
    timeout = aiohttp.ClientTimeout(total=config.http_timeout)
    session_cookie = "sessionid"
    if sessions:
        from django.conf import settings

        session_cookie = settings.SESSION_COOKIE_NAME
    players = []
    for number, name in enumerate(config.player_names()):
        url = config.urls[number % len(config.urls)]
        jar = aiohttp.CookieJar(unsafe=True)  # unsafe: accept cookies from an IP address
        if name in sessions:
            jar.update_cookies({session_cookie: sessions[name]}, response_url=URL(url))
        http = aiohttp.ClientSession(
            connector=connector, connector_owner=False, cookie_jar=jar, timeout=timeout
        )
        players.append(Player(run, name, http, url))
    return players


async def set_up_players(run: Run, players: Sequence[Player], sessions: Mapping[str, str]) -> None:
    """Log each player in (a minted session's lobby read for its CSRF token, or a sign-up over
    HTTP), a few at a time; :class:`LoadTestError` when that fails or takes too long."""
    config = run.config
    run.say(f"Run {config.run_id}: setting up {len(players)} players via {config.players_via}")
    gate = asyncio.Semaphore(SIGN_UP_CONCURRENCY if not sessions else 64)

    async def ready(number: int, player: Player) -> None:
        async with gate:
            if sessions:
                await player.read_csrf()
            else:
                address = sign_up_address(player.url, config.run_id, number)
                await player.log_in(PASSWORD, address)

    try:
        await asyncio.wait_for(
            asyncio.gather(*(ready(n, p) for n, p in enumerate(players))),
            config.set_up_timeout,
        )
    except TimeoutError:
        raise LoadTestError(
            f"setting up the players took over {config.set_up_timeout:g} s"
        ) from None
    except Failed as failed:
        raise LoadTestError(f"setting up the players failed: {failed}") from None


async def start_under_way(run: Run, matches: Sequence[Match]) -> Prelude:
    """``--start-ply``: every match's first game made over HTTP (seek, join; a few at a time),
    then played to the ply by :func:`play_to_ply` in a thread (the ORM is synchronous), before
    any game socket opens. :class:`LoadTestError` when a game cannot be made."""
    from asgiref.sync import sync_to_async

    config = run.config
    gate = asyncio.Semaphore(MAKE_GAMES_CONCURRENCY)

    async def make(match: Match) -> int:
        async with gate:
            return await match.make_first_game()

    try:
        game_ids = await asyncio.wait_for(
            asyncio.gather(*(make(m) for m in matches)), config.set_up_timeout
        )
    except TimeoutError:
        raise LoadTestError(f"making the games took over {config.set_up_timeout:g} s") from None
    except Failed as failed:
        errors = ", ".join(f"{kind} ({n})" for kind, n in sorted_errors(run.stats.errors))
        raise LoadTestError(f"making the games failed ({failed}): {errors}") from None
    run.say(f"  {len(game_ids)} games made; playing each to ply {config.start_ply}")
    rng = random.Random(run.rng.getrandbits(64))  # the thread's own, drawn from the run's seed
    play = sync_to_async(play_to_ply, thread_sensitive=True)
    return await play(game_ids, config.start_ply, rng, run.say)
