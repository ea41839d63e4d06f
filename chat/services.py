"""Everything that changes the chat's stored state: the only writers (DESIGN.md).

A line is checked here for what the chat knows (who writes, their account, a moderator's mute,
length, pace); live play calls :func:`chat_post` under its own service, which tells the game's
viewers after the commit. Moderation calls :func:`chat_silence` for a moderator's mute.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.selectors import is_closed
from chat.models import ChatMessage, ChatMute, Silence
from chat.rooms import Room

#: The longest chat message, in characters.
CHAT_MAX_LENGTH = ChatMessage._meta.get_field("text").max_length
#: At most CHAT_BURST messages from one player within CHAT_WINDOW.
CHAT_BURST = 5
CHAT_WINDOW = timedelta(seconds=10)


class ChatError(Exception):
    """A line or a mute that cannot be taken; the message is for the person who sent it."""


def _refusal(room: Room, user: object, now: datetime) -> str | None:
    """Why ``user`` may not write in ``room`` now, or ``None`` if they may."""
    if room.seat_of(user) is None:
        return _("Only the two players write in a game's chat; spectators read it.")
    if not room.open:
        return _("The chat opens when two people play.")
    # Read afresh: a socket's user was read when it opened, and a ban or closing the account
    # makes it inactive.
    account = get_user_model().objects.filter(pk=getattr(user, "pk", None)).first()
    if account is None or not account.is_active:
        if account is not None and is_closed(account):
            return _("Your account is closed.")
        return _("Your account is banned.")
    silence = Silence.objects.filter(user_id=user.pk).first()
    if silence is not None and silence.in_force(now):
        return muted_notice(silence.until)
    return None


def muted_notice(until: datetime) -> str:
    """What a player muted in chat by a moderator is told (here and under their chat form)."""
    when = formats.date_format(timezone.localtime(until), "SHORT_DATETIME_FORMAT")
    notice = _("A moderator has muted you in chat until %(until)s.") % {"until": when}
    # English's format ends in "p.m.": a sentence ending there takes no second full stop.
    return notice.replace(f"{when}.", when) if when.endswith(".") else notice


def too_long() -> str:
    """Why a chat line longer than ``CHAT_MAX_LENGTH`` is refused (here and by the socket)."""
    return ngettext(
        "A message may be at most %(limit)d character long.",
        "A message may be at most %(limit)d characters long.",
        CHAT_MAX_LENGTH,
    ) % {"limit": CHAT_MAX_LENGTH}


@transaction.atomic
def chat_post(*, room: Room, user: object, text: str, now: datetime | None = None) -> ChatMessage:
    """One line of chat from a player at ``room``'s table."""
    now = now or timezone.now()
    refusal = _refusal(room, user, now)
    if refusal:
        raise ChatError(refusal)
    text = " ".join(text.split())
    if not text:
        raise ChatError(_("Write something first."))
    if len(text) > CHAT_MAX_LENGTH:
        raise ChatError(too_long())
    recent = ChatMessage.objects.filter(author=user, created_at__gt=now - CHAT_WINDOW).count()
    if recent >= CHAT_BURST:
        raise ChatError(_("You are writing too fast: wait a few seconds."))
    return ChatMessage.objects.create(game_id=room.game_id, author=user, text=text, created_at=now)


@transaction.atomic
def chat_mute_set(*, user: object, other: object, muted: bool) -> bool:
    """Hide (or show again) ``other``'s chat from ``user``, in every game. Returns ``muted``."""
    if getattr(user, "pk", None) == getattr(other, "pk", None):
        raise ChatError(_("You cannot mute yourself."))
    if muted:
        ChatMute.objects.get_or_create(user=user, muted=other)
    else:
        ChatMute.objects.filter(user=user, muted=other).delete()
    return muted


def chat_silence(*, user: object, until: datetime) -> Silence:
    """A moderator's mute: ``user``'s lines are refused until ``until`` (moderation logs it)."""
    silence, _created = Silence.objects.update_or_create(user=user, defaults={"until": until})
    return silence
