"""Websockets in their visitor's language, as the page that opened them.

A socket's consumer renders tables, the lobby and the chat long after the page's request, in
threads of its own: without this, every push came in English. The language is the one Django's
``LocaleMiddleware`` gives the page (the language cookie, which the menu and a login set, else
the browser's ``Accept-Language``), worked out from the socket's handshake, and stays active
for the whole connection (thread hops copy it, as ``sync_to_async`` copies the context).
"""

from __future__ import annotations

from typing import Any

from channels.middleware import BaseMiddleware
from django.http import HttpRequest
from django.utils import translation


def language_of(scope: dict[str, Any]) -> str:
    """The language of a socket's handshake (its cookies, parsed by Channels'
    ``CookieMiddleware``, and headers), by the rules of ``LocaleMiddleware``."""
    request = HttpRequest()
    request.COOKIES = scope.get("cookies", {})
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            request.META["HTTP_ACCEPT_LANGUAGE"] = value.decode("latin-1")
    return translation.get_language_from_request(request)


class SocketLanguageMiddleware(BaseMiddleware):
    """Activate :func:`language_of` the socket for everything its consumer does."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        with translation.override(language_of(scope)):
            return await super().__call__(scope, receive, send)
