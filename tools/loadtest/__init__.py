"""A load generator for the live game: many pairs of players playing at once against a real server.

``manage.py loadtest --url http://127.0.0.1:8000 --games 500 --think 0.5-1 --seconds 60`` runs it.
Every pair plays as two browsers would, through the site's own URLs:

1. **Players.** By default each one signs up over HTTP (``load-<run>-<n>``; an existing name logs
   in instead), with a cookie jar of its own. That is the honest path but a slow one: each
   sign-up hashes a password on the server (a few hundred ms of its CPU), so 1,000 players take
   minutes. The site allows a few sign-ups per address (``LIMIT_SIGNUPS``), so each player signs
   up from a loopback address of its own (:func:`set_up.sign_up_address`), as a crowd comes from
   many; where that cannot be (an IPv6 URL, a system other than Linux) the server's limit must be
   raised for the run. ``--players db`` creates them in bulk through the ORM (one password hash
   for all) and mints their login sessions with Django's session machinery; that only works when
   this command runs with the server's own settings and database, and it skips nothing that is
   measured: from there on, every game, move and socket goes through the real server.
2. **Games.** One player posts a seek (``/play/seek/``), the other joins it with another trump
   (``/games/<id>/join/``); the games start spread over ``--ramp`` seconds. When a game ends, its
   first player asks for a rematch, the second agrees and the first follows it (they must land on
   the same game), so the load stays at N games. ``--start-ply N`` (``--players db``; it implies
   ``--seat-first``) makes every game first and plays it to ply N through the site's services in
   this process (:func:`database.play_to_ply`), so that the sockets open on games well under way.
3. **Sockets.** Both players open ``/ws/games/<id>/`` with their session cookie and an ``Origin``
   matching the URL, and wait for the table each socket sends on connect; how long opening all
   sockets took is reported. With ``--own-sockets`` each player also keeps open, from before
   its first game, the socket of its own (``/ws/me/``: notices, challenges) that every page of
   a logged-in player opens.
4. **Moves.** The player to move reads the turns from its latest table (the hidden ``move``
   inputs of its forms; a beat's second cards are there too, hidden until the beating card is
   picked), thinks a random time in ``--think``, picks a card and then one of the turns it starts,
   and sends it as the table does: over the game's socket (``--via socket``, timed until the
   mover's own socket shows the new ply) or as the table's htmx POST without a socket (``--via
   post``: ``ply``, ``move``, the CSRF token). The **relay** is the time from sending the turn to
   the *opponent's* socket delivering a table whose ``data-ply`` shows the new ply; one that has
   not come within ``--relay-timeout`` is a lost relay (the opponent then reloads its table and
   play goes on). A POST's answer says in its ``Server-Timing`` header (the server's
   ``SERVER_TIMING``, on with ``DEBUG``) how long it waited for a slot in the site's handler,
   for its thread (its body read), in the view, and sending what it published; the rest of its
   time was spent outside that handler (the server's HTTP work, the way there and back, this
   client), and the report gives each part's figures beside the POST's.
5. **Once all seated.** A crowd's set-up (the seeks, joins and pages of every game) takes the
   server longer than ``--ramp`` when there are hundreds of games, and the turns played meanwhile
   share it with them. The figures are therefore given twice: over the whole run, and for the
   turns sent once every game's sockets were open (the live crowd the targets speak of).
   ``--slice SECONDS`` also cuts the play into slices (from its start; the last one ends with the
   run): each one's moves, relay p50/p95/p99 and errors, said as it ends and given again in the
   report, so that a long run shows whether the server keeps pace as games come and go.
6. **The end.** At the deadline the players stop, the last relays land, every game's table is
   fetched once more over HTTP and each socket's last table must carry the same ``data-version``.
   Then optional ``final_checks`` (callables given the game ids) may check the stored games; the
   test in ``tests/tools/test_loadtest.py`` passes :func:`database.database_checks`.

One asyncio loop drives everything (aiohttp for HTTP and websockets); per message the client only
runs a few regular expressions on the ``#table`` tag, so that it is not the bottleneck. Its own CPU
is reported beside the server's (``--pid``, read from ``/proc/<pid>/stat``) so a reader can tell.
Each ``--pid`` process's resident memory (``VmRSS``) is read once every socket is open, at the end
of each slice and at the end: the caches a server keeps per game must not grow as games end.
Only loopback addresses are accepted, and a run is bounded in players and in time.

The modules, from the entry point down: ``runner`` (:func:`run`), ``set_up`` (players, first
games), ``match`` (a pair's games and turns), ``player`` (one person's requests and sockets),
``shared`` (what a run's players share), ``database`` (the server's ORM, in this process),
``table`` (reading the site's HTML), ``report``, ``figures``, ``host`` and ``config`` (the options).
The pairing mode is ``tools.pairing``.
"""

from tools.loadtest.runner import run

__all__ = ["run"]
