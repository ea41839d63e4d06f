"""Websocket URL patterns, served by ``yourtrumps_site.asgi``."""

from django.urls import path

from game import consumers

websocket_urlpatterns = [
    path("ws/games/<int:pk>/", consumers.GameConsumer.as_asgi()),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
]
