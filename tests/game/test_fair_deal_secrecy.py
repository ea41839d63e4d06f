"""The server's secret and the seed it makes are sent nowhere before the game ends: not in a
page, an answer to a POST, a socket message, the admin, a record or a replay
(``Game.deal_revealed`` says why). A game is played over the sockets and by POSTs, and everything
sent is searched for them; after the end the deal page shows both (the search can find them)."""

import io
import zipfile

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from game.models import Game
from game.routing import websocket_urlpatterns
from game.selectors import history_of

pytestmark = pytest.mark.django_db(transaction=True)
application = URLRouter(websocket_urlpatterns)
PART0, PART1 = "a0" * 32, "0b" * 32


class Sent:
    """Everything the site sent in the test: pages, answers, socket messages."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def answer(self, response) -> str:
        if response.get("Content-Type") == "application/zip":
            with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
                text = "".join(archive.read(name).decode() for name in archive.namelist())
        else:
            text = response.content.decode() + str(response.headers)
        self.texts.append(text)
        return text

    async def get(self, client: Client, url: str, **headers: str) -> str:
        return self.answer(await sync_to_async(client.get)(url, headers=headers))

    async def post(self, client: Client, url: str, data: dict[str, str], **headers: str) -> str:
        return self.answer(await sync_to_async(client.post)(url, data, headers=headers))

    async def drain(self, sockets: list[WebsocketCommunicator]) -> None:
        for socket in sockets:
            while not await socket.receive_nothing(timeout=0.3):
                self.texts.append(await socket.receive_from())

    def holds(self, text: str) -> bool:
        return any(text in sent for sent in self.texts)


async def connect(path: str, user: object) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, path)
    socket.scope["user"] = user
    connected, _ = await socket.connect()
    assert connected
    return socket


@database_sync_to_async
def people() -> tuple[object, object, Client, Client, Client]:
    users = get_user_model().objects
    alice = users.create_user("alice", password="pw-alice-123")
    bob = users.create_user("bob", password="pw-bob-123")
    staff = users.create_superuser("mod", password="pw-mod-12345")
    clients = Client(), Client(), Client()
    for client, user in zip(clients, (alice, bob, staff), strict=True):
        client.force_login(user)
    return alice, bob, *clients


@database_sync_to_async
def newest_game() -> Game:
    return Game.objects.select_related("seat0", "seat1").latest("pk")


@database_sync_to_async
def turn_of(game_id: int) -> tuple[int, str, int]:
    """Who is to move, a turn they may play (a take only when nothing else is legal) and the ply."""
    history = history_of(Game.objects.get(pk=game_id))
    moves = [m for m in history.legal_moves() if not m.is_take] or list(history.legal_moves())
    return history.position.to_move, str(moves[0]), history.ply


async def test_the_secret_and_the_seed_are_sent_nowhere_before_the_game_ends():
    alice, bob, alices, bobs, staff = await people()
    guest, sent = Client(), Sent()
    lobby = await connect("/ws/lobby/", bob)
    await sent.get(alices, reverse("game:lobby"))
    options = {"trump": "S", "deck": "24", "clock": "3+2", "rated": "on", "part": PART0}
    await sent.post(alices, reverse("game:seek_create"), options, hx_request="true")
    game = await newest_game()
    urls = {
        name: reverse(name, args=[game.pk])
        for name in ("game:table", "game:move", "archive:deal", "archive:replay")
    }
    for client in (alices, bobs, guest):
        await sent.get(client, reverse("game:lobby"))
        await sent.get(client, urls["game:table"])
    await sent.post(bobs, reverse("game:join", args=[game.pk]), {"trump": "H", "part": PART1})
    sockets = [
        await connect(f"/ws/games/{game.pk}/", user) for user in (alice, bob, AnonymousUser())
    ]
    sockets.append(lobby)
    clients = (alices, bobs)
    for turn in range(8):  # by socket and by POST in turn
        seat, move, ply = await turn_of(game.pk)
        if turn % 2:
            await sockets[seat].send_json_to({"move": move, "ply": ply})
        else:
            data = {"move": move, "ply": str(ply)}
            await sent.post(clients[seat], urls["game:move"], data, hx_request="true")
        await sent.drain(sockets)
        assert (await turn_of(game.pk))[2] == ply + 1, f"turn {turn} was not played"
    for client in (alices, bobs, guest, staff):
        for url in (urls["game:table"], urls["archive:deal"], urls["archive:replay"]):
            await sent.get(client, url)
    for url in (f"/admin/game/game/{game.pk}/change/", "/admin/game/game/", "/admin/game/move/"):
        await sent.get(staff, url)
    record = await sync_to_async(guest.get)(reverse("archive:record", args=[game.pk]))
    assert record.status_code == 404
    await sent.get(alices, reverse("archive:my_records"))
    game = await newest_game()
    assert game.status == Game.Status.ACTIVE and (game.part0, game.part1) == (PART0, PART1)

    assert not sent.holds(game.secret) and not sent.holds(str(game.seed))
    assert sent.holds(game.commitment)

    resign = reverse("game:action", args=[game.pk, "resign"])
    await sent.post(alices, resign, {}, hx_request="true")
    await sent.drain(sockets)
    deal = await sent.get(guest, urls["archive:deal"])
    assert game.secret in deal and str(game.seed) in deal and "Verified" in deal
    for socket in sockets:
        await socket.disconnect()
