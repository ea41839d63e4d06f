"""A logged-in user's own socket (``ws/me/``), open on every page of theirs: the challenges to
them as they arrive, and the answers to theirs."""

from __future__ import annotations

from typing import Any

from game.consumers.sockets import LoggedInSocket, in_db_thread
from game.models import Challenge
from game.selectors import challenge_with_players
from game.templatetags.challenges import notices_html


def _notices(user: Any, challenge_id: int | None) -> str:
    """``#challenges`` for ``user``'s socket, ready to swap in: when ``challenge_id`` is one of
    theirs that was just answered (accepted, declined, expired), that answer with it."""
    changed = challenge_with_players(challenge_id) if challenge_id is not None else None
    answered = (Challenge.Status.ACCEPTED, Challenge.Status.DECLINED, Challenge.Status.EXPIRED)
    answer = (
        changed
        if changed is not None and changed.challenger_id == user.pk and changed.status in answered
        else None
    )
    html = notices_html(user, answer=answer)
    return f'<div id="challenges" hx-swap-oob="innerHTML">{html}</div>'


class UserConsumer(LoggedInSocket):
    """A logged-in user's own socket, open on every page of theirs (``base.html``): in their
    user group, it shows the challenges to them as they arrive and the answers to theirs. Its
    work is a read and a render per change, in the sockets' threads."""

    async def opened(self, user: Any) -> None:
        # A reconnect may have missed changes: start from the challenges as they stand.
        await self.send(text_data=await in_db_thread(_notices)(user, None))

    async def challenge_changed(self, event: dict[str, Any]) -> None:
        user = self.scope["user"]
        html = await in_db_thread(_notices)(user, event["challenge"])
        await self.send(text_data=html)
