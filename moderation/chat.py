"""The game chat's websocket side, used by ``game.consumers.GameConsumer``.

Async helpers that parse what a socket sent, call :func:`moderation.services.chat_post`, and
render the chat for one viewer as out-of-band swaps for htmx's websocket extension: ``#chat-log``
(everyone, re-rendered on each change, without the lines of people the viewer muted) and
``#chat-form`` (the sender alone: emptied, or with their text and why it was refused).
"""

from __future__ import annotations

import json
import re
from functools import cache

from django.template.loader import render_to_string
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from game.live import user_group
from game.models import Game
from moderation.selectors import chat_for, chat_lines, has_chat, is_banned
from moderation.services import CHAT_MAX_LENGTH, ModerationError, chat_post, too_long
from yourtrumps_site.serving.socket_threads import in_socket_thread

#: The close code of a socket refused or closed because its user is banned.
BANNED_CODE = 4403

#: The longest frame read: a full chat line, every character escaped (``\uXXXX``), with room for
#: the fields and headers htmx's ``ws-send`` adds. Anything longer is refused unread.
MAX_FRAME = 6 * CHAT_MAX_LENGTH + 2048
#: ``ws-send`` sends ``{"chat": ..., "HEADERS": {...}}``: two levels. A deeper frame is refused
#: before parsing, since ``json.loads`` recurses once per level (thousands raise RecursionError).
MAX_DEPTH = 4

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]")


def oob(html: str, element_id: str) -> str:
    """``html`` marked as an out-of-band swap of its element ``element_id`` (htmx's websocket
    extension swaps each such element in place)."""
    marker = f'id="{element_id}"'
    return html.replace(marker, f'{marker} hx-swap-oob="outerHTML"', 1)


def refused(user: object) -> bool:
    """A banned user's sockets are refused (their session is refused too; this also covers a
    socket whose user was read before the ban)."""
    return bool(getattr(user, "is_authenticated", False)) and (
        not user.is_active or is_banned(user)
    )


refuses_socket = in_socket_thread(refused)


def socket_user_group(user: object) -> str | None:
    """The group that reaches all of a logged-in user's sockets (to close them on a ban)."""
    if not getattr(user, "is_authenticated", False):
        return None
    return user_group(user.pk)


def _game(game_id: int) -> Game:
    return Game.objects.select_related("seat0", "seat1").get(pk=game_id)


def log_of(game: Game, user: object) -> str:
    """The chat's lines as ``user`` sees them; nothing for a game without a chat, read or not (a
    seek's or a computer game's socket arrives without reading it). A chat never written in is
    shown without reading it: ``game.chat_started`` must be as read since the last line."""
    if not has_chat(game):
        return ""
    if not game.chat_started:
        return _empty_log(get_language())
    html = render_to_string("moderation/_chat_log.html", {"lines": chat_lines(game, user)})
    return oob(html, "chat-log")


@cache
def _empty_log(language: str) -> str:
    """A chat never written in, in ``language``: the same on every table, so rendered once (a
    tenth of a socket's arrival when it was rendered for each)."""
    return oob(render_to_string("moderation/_chat_log.html", {"lines": []}), "chat-log")


@in_socket_thread
def render_log(game_id: int, user: object) -> str:
    """:func:`log_of` the game ``game_id``."""
    return log_of(_game(game_id), user)


def _nesting_within(text: str, limit: int) -> bool:
    """Whether no array or object in ``text`` (JSON) nests deeper than ``limit`` levels."""
    depth = 0
    for bracket in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > limit:
            return False
    return True


def parse_line(text_data: str | None) -> tuple[str | None, str | None]:
    """The chat line a frame carries, or why it cannot be taken: ``(line, None)`` or
    ``(None, error)``. Checks size, nesting and types before trusting anything in it."""
    unreadable = _("That message could not be read: reload the page.")
    if not isinstance(text_data, str):
        return None, unreadable
    if len(text_data) > MAX_FRAME:
        return None, too_long()
    if not _nesting_within(text_data, MAX_DEPTH):
        return None, unreadable
    try:
        data = json.loads(text_data)
    except (ValueError, RecursionError):
        return None, unreadable
    line = data.get("chat") if isinstance(data, dict) else None
    if not isinstance(line, str):
        return None, unreadable
    if "\x00" in line:
        return None, _("A message cannot contain the NUL character (code 0).")
    return line, None


@in_socket_thread
def receive(game_id: int, user: object, text_data: str | None) -> str:
    """Post the line a socket sent (htmx's ``ws-send``: the form's fields as JSON); answer with
    the sender's chat form, which says why when the line was refused. Any frame at all gets an
    answer, never an exception: a game gone since the socket opened gets none."""
    text, error = parse_line(text_data)
    try:
        if text is not None:
            try:
                chat_post(game_id=game_id, user=user, text=text)
            except ModerationError as refused:
                error = str(refused)
            else:
                text = ""
        game = _game(game_id)
    except Game.DoesNotExist:
        return ""
    context = {"chat": chat_for(game, user), "error": error, "draft": text or ""}
    return oob(render_to_string("moderation/_chat_form.html", context), "chat-form")
