"""Websocket URL patterns, served by ``yourtrumps_site.asgi``."""

from django.urls import path, register_converter

from game.consumers.lobby import LobbyConsumer, PoolConsumer
from game.consumers.table import GameConsumer
from game.consumers.user import UserConsumer


class GameIdConverter:
    """A game's id as the database can hold it (a positive 64-bit integer): a socket for any
    other number matches no route and is refused as a game that does not exist, before any read
    (the database takes the id as it is)."""

    regex = "[0-9]{1,19}"
    largest = 2**63 - 1

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 0 < number <= self.largest:
            raise ValueError(f"no game can have the id {value}")
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(GameIdConverter, "game_id")

websocket_urlpatterns = [
    path("ws/games/<game_id:pk>/", GameConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/pool/", PoolConsumer.as_asgi()),
    path("ws/me/", UserConsumer.as_asgi()),
]
