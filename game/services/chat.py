"""A game's chat: the lines its players post, told to its viewers once committed."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from chat import services as chat_services
from chat.models import ChatMessage
from game.live import game_group, send_after_commit
from game.models import Game
from game.selectors import chat_room


@transaction.atomic
def game_chat_post(
    *, game_id: int, user: object, text: str, now: datetime | None = None
) -> ChatMessage:
    """A line of the game's chat from one of its players (the chat checks it and refuses it with
    a ``chat.services.ChatError``). The game's viewers are told after the commit; its first line
    marks the game's chat as started, for the sockets that arrive later."""
    game = Game.objects.select_related("seat0", "seat1").get(pk=game_id)
    message = chat_services.chat_post(room=chat_room(game), user=user, text=text, now=now)
    if not game.chat_started:
        Game.objects.filter(pk=game.pk).update(chat_started=True)
    send_after_commit(game_group(game.pk), {"type": "chat.changed"})
    return message
