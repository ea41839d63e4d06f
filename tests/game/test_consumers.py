"""Live updates: a move reaches the other player's socket and a spectator's; the lobby lives."""

import threading

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import connection

from game.routing import websocket_urlpatterns
from game.selectors import history_of
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join
from yourtrumps_site import asgi

pytestmark = pytest.mark.django_db(transaction=True)
application = URLRouter(websocket_urlpatterns)
site = URLRouter(asgi.websocket_routes)  # with the site's catch-all for what matches no route


async def connect(path, user):
    communicator = WebsocketCommunicator(application, path)
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    if path == "/ws/lobby/":  # a lobby socket starts from the seeks as they stand
        assert 'id="seeks" hx-swap-oob="outerHTML"' in await communicator.receive_from(timeout=5)
    return communicator


@database_sync_to_async
def make_game():
    users = get_user_model().objects
    alice = users.create_user("alice", password="pw-alice-123")
    bob = users.create_user("bob", password="pw-bob-123")
    seek = game_create_seek(user=alice, trump="S")
    return game_join(game_id=seek.pk, user=bob, trump="H"), alice, bob


@database_sync_to_async
def play_first_turn(game, alice, bob):
    history = history_of(game)
    mover = (alice, bob)[history.position.to_move]
    waiting = bob if mover == alice else alice
    move = str(history.legal_moves()[0])
    game_play_move(game_id=game.pk, user=mover, notation=move, expected_ply=0)
    return move, waiting


async def test_a_move_reaches_the_opponent_and_a_spectator():
    game, alice, bob = await make_game()
    path = f"/ws/games/{game.pk}/"
    sockets = {
        name: await connect(path, user)
        for name, user in (("alice", alice), ("bob", bob), ("spectator", AnonymousUser()))
    }
    for socket in sockets.values():  # each gets the table as the server has it on connecting
        assert 'data-ply="0"' in await socket.receive_from(timeout=5)
    move, waiting = await play_first_turn(game, alice, bob)
    pushed = {}
    for name, socket in sockets.items():  # the turn's update, from the version each has
        pushed[name] = await socket.receive_from(timeout=5)
        assert pushed[name].startswith('<div id="table-turn"'), name
        assert 'data-ply="1"' in pushed[name] and f'data-base="{game.version}"' in pushed[name]
        assert '<ol hx-swap-oob="beforeend:#move-log">' in pushed[name]
        assert f'<span class="notation">{move}</span></li></ol>' in pushed[name], name
    # Each viewer gets their own table: the player now to move may take; a spectator may not.
    assert 'name="move" value="take"' in pushed[waiting.username]
    assert 'name="move"' not in pushed["spectator"]
    for socket in sockets.values():
        await socket.disconnect()


def _queries_logged_after_one() -> tuple[str, int]:
    """This thread's name and how many queries its connection has logged, after one more."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return threading.current_thread().name, len(connection.queries_log)


async def test_each_piece_of_a_socket_s_database_work_logs_only_its_own_queries(settings):
    # With DEBUG, Django logs a thread's queries and forgets them when a request starts: the
    # sockets' long-lived threads forget them before each piece of work instead.
    from game.consumers import sockets

    work = sockets.in_db_thread(_queries_logged_after_one)
    settings.DEBUG = True
    seen = [await work() for _ in range(6)]
    assert all(thread.startswith("socket-db") for thread, _ in seen)  # the sockets' own threads
    assert [logged for _, logged in seen] == [1] * 6


@pytest.mark.parametrize("game_id", ["999999", "0", str(2**63), "1" * 40])
async def test_an_unknown_game_is_refused(game_id):
    """Also an id no game can have (beyond the database's integers): not read, refused alike."""
    communicator = WebsocketCommunicator(site, f"/ws/games/{game_id}/")
    communicator.scope["user"] = AnonymousUser()
    connected, code = await communicator.connect()
    assert not connected and code == 4404
    await communicator.disconnect()  # the consumer ends now, not when the test's loop is torn down


async def test_a_lobby_socket_starts_from_the_seeks_opened_before_it_connected():
    @database_sync_to_async
    def open_seek():
        carol = get_user_model().objects.create_user("carol", password="pw-carol-123")
        return game_create_seek(user=carol, trump="C")

    await open_seek()  # while the page's socket was away (a Redis restart, say)
    lobby = WebsocketCommunicator(application, "/ws/lobby/")
    lobby.scope["user"] = AnonymousUser()
    assert (await lobby.connect())[0]
    html = await lobby.receive_from(timeout=5)
    assert 'id="seeks" hx-swap-oob="outerHTML"' in html and "carol" in html
    await lobby.disconnect()


async def test_the_lobby_updates_when_a_seek_opens():
    lobby = await connect("/ws/lobby/", AnonymousUser())

    @database_sync_to_async
    def open_seek():
        carol = get_user_model().objects.create_user("carol", password="pw-carol-123")
        return game_create_seek(user=carol, trump="C")

    await open_seek()
    html = await lobby.receive_from(timeout=5)
    assert 'id="seeks" hx-swap-oob="outerHTML"' in html and "carol" in html
    await lobby.disconnect()


async def test_a_creator_in_the_lobby_is_sent_to_the_table_when_their_seek_is_joined():
    @database_sync_to_async
    def players():
        users = get_user_model().objects
        return users.create_user("alice"), users.create_user("bob")

    alice, bob = await players()
    seek = await database_sync_to_async(game_create_seek)(user=alice, trump="S")
    creator, other = await connect("/ws/lobby/", alice), await connect("/ws/lobby/", bob)
    table = await connect(f"/ws/games/{seek.pk}/", alice)  # the seek's own page, open too
    await table.receive_from(timeout=5)  # its table, waiting
    await database_sync_to_async(game_join)(game_id=seek.pk, user=bob, trump="H")
    heard = [await creator.receive_from(timeout=5) for _ in range(2)]  # the seeks, the notice
    joined = next(html for html in heard if 'id="seek-joined"' in html)
    assert 'hx-swap-oob="outerHTML"' in joined
    assert f'data-table="/games/{seek.pk}/"' in joined
    assert "seek-joined" not in await other.receive_from(timeout=5)  # the seeks alone
    assert await other.receive_nothing(timeout=0.2)
    assert 'data-status="active"' in await table.receive_from(timeout=5)  # its new table
    assert await table.receive_nothing(timeout=0.2)  # and nothing else: the socket stays open
    for socket in (creator, other, table):
        await socket.disconnect()


async def test_the_lobby_sockets_share_one_read_of_the_seeks_per_change(monkeypatch):
    from game.consumers import lobby

    reads = []
    real = lobby._read_seeks

    async def counting():
        reads.append(1)
        return await real()

    monkeypatch.setattr(lobby, "_read_seeks", counting)
    users = get_user_model().objects
    carol, dave = [
        await database_sync_to_async(users.create_user)(name, password=f"pw-{name}-123")
        for name in ("carol", "dave")
    ]
    sockets = [await connect("/ws/lobby/", user) for user in (carol, dave, AnonymousUser())]
    reads.clear()  # each socket's own, on connecting
    await database_sync_to_async(game_create_seek)(user=carol, trump="C")
    lists = [await socket.receive_from(timeout=5) for socket in sockets]
    assert reads == [1]
    assert all("carol" in html for html in lists)
    assert "Your game" in lists[0] and "Your game" not in lists[1] + lists[2]
    for socket in sockets:
        await socket.disconnect()


async def test_each_viewer_s_table_is_rendered_once_per_version_from_one_read_and_shared(
    monkeypatch,
):
    from game.consumers import table as table_socket

    rendered, reads = [], []
    real, real_tables_for = table_socket.render_turn, table_socket.tables_for

    def counting(table):
        rendered.append(table.viewer)
        return real(table)

    def reading(game, viewers, notations=None):
        reads.append(sorted(viewers, key=str))
        return real_tables_for(game, viewers, notations)

    monkeypatch.setattr(table_socket, "render_turn", counting)
    monkeypatch.setattr(table_socket, "tables_for", reading)
    game, alice, bob = await make_game()
    path = f"/ws/games/{game.pk}/"
    watchers = [await connect(path, AnonymousUser()) for _ in range(4)]
    players = [await connect(path, alice), await connect(path, alice)]  # two tabs
    for socket in watchers + players:
        await socket.receive_from(timeout=5)
    rendered.clear()
    reads.clear()
    await play_first_turn(game, alice, bob)
    watched = {await socket.receive_from(timeout=5) for socket in watchers}
    mine = {await socket.receive_from(timeout=5) for socket in players}
    assert len(watched) == 1 and len(mine) == 1  # the same bytes to every socket of a viewer
    assert 'data-ply="1"' in next(iter(watched)) and watched != mine
    assert sorted(rendered, key=str) == [0, None]  # once for alice's seat, once for watchers
    assert reads == [[0, None]]  # both from one read of the game
    for socket in watchers + players:
        assert await socket.receive_nothing(timeout=0.2)  # and once only
        await socket.disconnect()


async def _trips_to_the_database_thread(monkeypatch):
    """The versions the sockets' tables were read and rendered at in the database thread."""
    from game.consumers import table as table_socket

    trips = []
    real = table_socket._read_and_render

    async def tripping(game_id, version, viewers, turn):
        trips.append(version)
        return await real(game_id, version, viewers, turn)

    monkeypatch.setattr(table_socket, "_read_and_render", tripping)
    return trips


async def players_sockets(game, alice, bob):
    """Both players' sockets on ``game``, each past the table it got on connecting."""
    path = f"/ws/games/{game.pk}/"
    sockets = [await connect(path, alice), await connect(path, bob)]
    for socket in sockets:
        await socket.receive_from(timeout=5)
    return sockets


@pytest.mark.parametrize("kept", [True, False])
async def test_a_game_kept_here_has_its_tables_rendered_with_no_trip_to_a_thread(monkeypatch, kept):
    # A turn played here through the table's POST leaves the game kept at its new version: its
    # sockets' tables need no read, so they are rendered where the sockets hear of it. A game
    # this process does not keep is read, for both tables at once, in the database thread.
    from game.live import LIVE_GAMES

    trips = await _trips_to_the_database_thread(monkeypatch)
    game, alice, bob = await make_game()
    sockets = await players_sockets(game, alice, bob)
    if not kept:
        LIVE_GAMES.clear()  # as if this process had missed a version
    move, _ = await play_first_turn(game, alice, bob)
    for socket in sockets:
        pushed = await socket.receive_from(timeout=5)
        assert 'data-ply="1"' in pushed and f'<span class="notation">{move}</span></li>' in pushed
    assert trips == ([] if kept else [game.version + 1])
    for socket in sockets:
        await socket.disconnect()


@database_sync_to_async
def play_to_the_end(game, alice, bob):
    """Play ``game``'s first legal turns through the service, as the table's POSTs do, until it
    is over; its final version."""
    for _ in range(1000):
        history = history_of(game)
        if history.outcome is not None:
            break
        mover = (alice, bob)[history.position.to_move]
        move = str(history.legal_moves()[0])
        game_play_move(game_id=game.pk, user=mover, notation=move, expected_ply=history.ply)
    game.refresh_from_db()
    assert game.status == game.Status.FINISHED
    return game.version


async def test_the_players_sockets_show_the_result_when_a_game_ends(monkeypatch):
    # A game over is rendered in the database thread (its result looks up a rematch), in play on
    # the event loop: the last table each player gets says who won, with the rematch.
    trips = await _trips_to_the_database_thread(monkeypatch)
    game, alice, bob = await make_game()
    sockets = await players_sockets(game, alice, bob)
    final = await play_to_the_end(game, alice, bob)
    for socket in sockets:
        pushed = await socket.receive_from(timeout=5)
        while f'data-version="{final}"' not in pushed:
            pushed = await socket.receive_from(timeout=5)
        assert '<section class="result" role="status">' in pushed
        assert "Rematch</button>" in pushed
    # The whole table is read in the thread: the end's, or an earlier version's when the turns
    # outran the sockets (that table then shows the newer version, and the sockets catch up).
    assert trips and max(trips) <= final
    for socket in sockets:
        await socket.disconnect()


async def test_a_turn_sent_over_the_socket_lands_and_reaches_both_players():
    game, alice, bob = await make_game()
    path = f"/ws/games/{game.pk}/"
    sockets = {"alice": await connect(path, alice), "bob": await connect(path, bob)}
    for socket in sockets.values():
        await socket.receive_from(timeout=5)
    history = await database_sync_to_async(history_of)(game)
    mover = ("alice", "bob")[history.position.to_move]
    move = str(history.legal_moves()[0])
    await sockets[mover].send_json_to({"move": move, "ply": 0})
    for name, socket in sockets.items():  # the mover's table comes over the socket too
        pushed = await socket.receive_from(timeout=5)
        assert 'data-ply="1"' in pushed, name
        assert f'<span class="notation">{move}</span></li>' in pushed, name
    assert str((await database_sync_to_async(history_of)(game)).moves[0]) == move
    for socket in sockets.values():
        await socket.disconnect()


async def test_a_turn_over_the_socket_is_rendered_for_every_viewer_at_once_with_no_read(
    monkeypatch,
):
    # The thread plays the turn and keeps the game at its new version; the event loop then
    # renders each viewer's update from it, once, for all three viewers together.
    from game.consumers import table as table_socket

    asked = []
    real = table_socket._TABLES.render_all
    trips = await _trips_to_the_database_thread(monkeypatch)

    async def render_all(game_id, version, viewers, turn):
        asked.append((version, len(viewers), turn is not None))
        return await real(game_id, version, viewers, turn)

    monkeypatch.setattr(table_socket._TABLES, "render_all", render_all)
    game, alice, bob = await make_game()
    path = f"/ws/games/{game.pk}/"
    sockets = [await connect(path, alice), await connect(path, bob)]
    sockets.append(await connect(path, AnonymousUser()))
    for socket in sockets:
        await socket.receive_from(timeout=5)
    history = await database_sync_to_async(history_of)(game)
    move = str(history.legal_moves()[0])
    await sockets[history.position.to_move].send_json_to({"move": move, "ply": 0})
    updates = [await socket.receive_from(timeout=5) for socket in sockets]
    assert all('data-ply="1"' in update for update in updates)
    assert len(set(updates)) == 3  # each seat's own, and the spectator's
    assert asked == [(game.version + 1, 3, True)] and trips == []
    for socket in sockets:
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()


async def test_a_socket_that_missed_a_version_gets_the_whole_table(monkeypatch):
    game, alice, bob = await make_game()
    sockets = await players_sockets(game, alice, bob)
    await play_first_turn(game, alice, bob)
    for socket in sockets:
        await socket.receive_from(timeout=5)
    from game.consumers import table as table_socket

    consumer_versions = []
    real = table_socket.GameConsumer.game_changed

    async def missing_one(self, event):  # as if this socket had missed the version before
        if event["version"] == game.version + 2:
            self.version -= 1
        consumer_versions.append(event["version"])
        return await real(self, event)

    monkeypatch.setattr(table_socket.GameConsumer, "game_changed", missing_one)
    history = await database_sync_to_async(history_of)(game)
    move = str(history.legal_moves()[0])
    mover = (alice, bob)[history.position.to_move]
    await database_sync_to_async(game_play_move)(
        game_id=game.pk, user=mover, notation=move, expected_ply=1
    )
    for socket in sockets:
        pushed = await socket.receive_from(timeout=5)
        assert pushed.startswith('<div id="table" hx-swap-oob="outerHTML"')
        assert 'data-ply="2"' in pushed and "move-log__turn" in pushed
        await socket.disconnect()


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        ({"move": "take", "ply": 0}, "nothing to take"),
        ({"move": "XX", "ply": 0}, ""),
        ({"move": "take", "ply": 7}, "moved on"),
        ({"move": "take", "ply": "0"}, "without its ply"),
    ],
)
async def test_a_refused_turn_is_answered_to_its_sender_alone(frame, why):
    game, alice, bob = await make_game()
    path = f"/ws/games/{game.pk}/"
    history = await database_sync_to_async(history_of)(game)
    mover, other = (alice, bob) if history.position.to_move == 0 else (bob, alice)
    sender, watcher = await connect(path, mover), await connect(path, other)
    for socket in (sender, watcher):
        await socket.receive_from(timeout=5)
    await sender.send_json_to(frame)
    answer = await sender.receive_from(timeout=5)
    assert 'class="notice notice--error"' in answer and why in answer
    assert 'data-ply="0"' in answer
    assert await watcher.receive_nothing(timeout=0.3)
    assert (await database_sync_to_async(history_of)(game)).moves == ()
    for socket in (sender, watcher):
        await socket.disconnect()


async def test_a_spectator_s_turn_is_refused():
    game, _, _ = await make_game()
    spectator = await connect(f"/ws/games/{game.pk}/", AnonymousUser())
    await spectator.receive_from(timeout=5)
    await spectator.send_json_to({"move": "take", "ply": 0})
    assert "Only the players of this game can move." in await spectator.receive_from(timeout=5)
    await spectator.disconnect()


async def test_the_table_cache_renders_a_game_s_viewers_together_and_forgets_them_as_they_go():
    from game.tables import TableCache, Update

    calls = []

    async def render_all(game_id, version, viewers, turn):
        calls.append(sorted(viewers, key=str))
        return {viewer: Update(3, f"table {game_id} for {viewer}") for viewer in viewers}

    cache = TableCache(render_all)
    cache.watch(7, 0, "alice")
    cache.watch(7, 1, "bob")
    cache.watch(7, 1, "bob")  # a second tab
    assert (await cache.get(7, 0, 3)).html == "table 7 for 0"
    assert (await cache.get(7, 1, 3)).html == "table 7 for 1"  # rendered with seat 0's
    assert calls == [[0, 1]]
    cache.watch(7, "watching", None)  # a new viewer: their table alone is rendered
    assert (await cache.get(7, "watching", 3)).html == "table 7 for watching"
    assert calls == [[0, 1], ["watching"]]
    cache.unwatch(7, "watching")
    cache.unwatch(7, 1)
    assert (await cache.get(7, 1, 3)).html == "table 7 for 1"  # its other tab still watches
    cache.unwatch(7, 1)
    cache.unwatch(7, 0)
    with pytest.raises(LookupError):  # nobody watches: nothing kept, nothing to render for
        await cache.get(7, 0, 3)
    assert len(calls) == 2
    assert cache._viewers == {} and cache._latest == {}  # the refused get kept nothing
