"""``{% table_chat game %}``: the game's chat under its table, as the viewing user sees it."""

from typing import Any

from django import template

from chat.selectors import chat_for
from game.models import Game
from game.selectors import chat_room

register = template.Library()


@register.inclusion_tag("chat/_table_chat.html", takes_context=True)
def table_chat(context: dict[str, Any], game: Game) -> dict[str, Any]:
    return {
        "chat": chat_for(chat_room(game), context.get("user")),
        "csrf_token": context.get("csrf_token"),
    }
