"""The chat's socket messages, for the table's socket (``game.consumers.table.GameConsumer``).

What a frame from htmx's ``ws-send`` carries (:func:`parse_line`, checked before anything in it
is trusted), and the chat rendered for one viewer as out-of-band swaps for htmx's websocket
extension: ``#chat-log`` (everyone, re-rendered on each change, without the lines of people the
viewer muted) and ``#chat-form`` (the sender alone).
"""

from __future__ import annotations

import json
import re
from functools import cache

from django.template.loader import render_to_string
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from chat.rooms import Room
from chat.selectors import chat_for, chat_lines
from chat.services import CHAT_MAX_LENGTH, too_long

#: The longest frame read: a full chat line, every character escaped (``\uXXXX``), with room for
#: the fields and headers htmx's ``ws-send`` adds. Anything longer is refused unread.
MAX_FRAME = 6 * CHAT_MAX_LENGTH + 2048
#: ``ws-send`` sends ``{"chat": ..., "HEADERS": {...}}``: two levels. A deeper frame is refused
#: before parsing, since ``json.loads`` recurses once per level (thousands raise RecursionError).
MAX_DEPTH = 4

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]")


def log_html(room: Room, user: object) -> str:
    """The chat's lines as ``user`` sees them, as an out-of-band swap of ``#chat-log``; nothing
    for a game without a chat. A chat never written in is shown without reading it."""
    if not room.open:
        return ""
    if not room.started:
        return _empty_log(get_language())
    return render_to_string("chat/_chat_log.html", {"lines": chat_lines(room, user), "oob": True})


@cache
def _empty_log(language: str) -> str:
    """A chat never written in, in ``language``: the same on every table, so rendered once (a
    tenth of a socket's arrival when it was rendered for each)."""
    return render_to_string("chat/_chat_log.html", {"lines": [], "oob": True})


def form_html(room: Room, user: object, error: str | None, draft: str) -> str:
    """The sender's chat form as an out-of-band swap of ``#chat-form``: emptied after a line
    was taken, or with their text and why it was refused."""
    context = {"chat": chat_for(room, user), "error": error, "draft": draft, "oob": True}
    return render_to_string("chat/_chat_form.html", context)


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
