"""Websocket URL patterns, served by ``yourtrumps_site.asgi``. Game consumers come later."""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
