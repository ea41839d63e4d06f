"""Quick pairing: the pool of players waiting for an opponent of near rating in one time control.

A player enters through a socket of the lobby (``game.consumers.lobby.PoolConsumer``) and is
paired on arrival with the waiting player of the closest rating whom both accept; until then the
socket asks again about once a second, each time with a wider range (:func:`rating_range`). Once
paired, both sockets are told the new table's address after the commit; closing a socket leaves
the pool. A player with a timed game in play against a person cannot enter: its clock runs
meanwhile.

The pool lives in the database (:class:`game.models.PoolEntry`), so that every server process
pairs from the same one. A pairing locks the waiting entries it takes
(``select_for_update(skip_locked=True)`` on PostgreSQL; on SQLite its immediate transactions
write one at a time) and deletes them with the new game in one transaction (an arrival paired at
once writes none): nobody is paired twice, and a pairing that meets a locked entry looks for the
next instead of waiting for it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.db.models.functions import Abs
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.ratings import speed_of
from accounts.selectors import ratings_now
from game.live import tell_after_commit
from game.models import Game, PoolEntry
from game.options import GameOptions
from game.services import GameError
from game.services.starting import game_create_paired

#: The time controls of the pool (minutes, increment in seconds): the issue's four, one to three
#: speeds (``accounts.ratings.speed_of``); fewer pools, each with more players waiting.
POOL_TIME_CONTROLS = ((1, 1), (3, 2), (5, 3), (10, 5))
#: The rating difference a player accepts as they enter, and its growth each second they wait.
RANGE_START = 100
RANGE_GROWTH = 50
#: After this long a waiting player accepts any rating.
ANY_RATING_AFTER = timedelta(seconds=10)
#: How often a waiting socket asks again (``game.consumers.lobby.PoolConsumer``).
ASK_EVERY = timedelta(seconds=1)
#: An entry whose socket has not asked for this long (its server stopped without closing it) is
#: paired with nobody.
UNSEEN_AFTER = timedelta(seconds=5)
#: How many of the closest candidates an arrival considers.
CANDIDATES = 20


def rating_range(waited: timedelta) -> int | None:
    """How far from their own a rating may be for a player who has waited ``waited`` to accept
    it; ``None`` for any.

    >>> [rating_range(timedelta(seconds=s)) for s in (0, 3.5, 10)]
    [100, 250, None]
    """
    if waited >= ANY_RATING_AFTER:
        return None
    return RANGE_START + RANGE_GROWTH * int(max(waited, timedelta(0)).total_seconds())


def _accepts(entry: PoolEntry, rating: int, now: datetime) -> bool:
    """Whether the player of ``entry`` accepts an opponent rated ``rating`` at ``now``."""
    allowed = rating_range(now - entry.entered_at)
    return allowed is None or abs(entry.rating - rating) <= allowed


@dataclass(frozen=True)
class Waiting:
    """Still in the pool: one's rating as entered and the range one accepts (``None``: any)."""

    rating: int
    range: int | None


@dataclass(frozen=True)
class Paired:
    """Paired: the new game, whose table both sockets are told of."""

    game: Game


def _waiting(entry: PoolEntry, now: datetime) -> Waiting:
    return Waiting(entry.rating, rating_range(now - entry.entered_at))


@dataclass(frozen=True)
class PoolClock:
    """A time control of the pool as the lobby offers it: ``3+2`` and its speed's name."""

    value: str
    speed: str


def pool_clocks() -> list[PoolClock]:
    return [
        PoolClock(f"{minutes}+{increment}", str(speed_of(minutes * 60, increment).label))
        for minutes, increment in POOL_TIME_CONTROLS
    ]


def pool_enter(
    *,
    user: object,
    channel_name: str,
    time_control: tuple[int, int],
    rated: bool = True,
    now: datetime | None = None,
) -> Waiting | Paired:
    """``user`` enters the pool for ``time_control`` through the socket ``channel_name``: paired
    at once with someone near their rating who waits, else waiting. An entry of theirs from
    another page is replaced (that page is told). Refused (:class:`GameError`) for an account
    banned or closed (as the socket read it: a ban closes the socket), a time control not
    offered, and a player with a timed game in play against a person: its clock runs while they
    play here."""
    now = now or timezone.now()
    if tuple(time_control) not in POOL_TIME_CONTROLS:
        raise GameError(_("That time control is not offered."))
    if not getattr(user, "is_active", False):
        raise GameError(_("Your account cannot play."))
    user_id = getattr(user, "pk", None)
    playing = Game.objects.filter(
        Q(seat0_id=user_id) | Q(seat1_id=user_id),
        status=Game.Status.ACTIVE,
        ai_level="",
        clock_initial__isnull=False,
    )
    if playing.exists():
        raise GameError(_("Finish your game in play before you look for another."))
    options = GameOptions(time_control=time_control, rated=rated)
    rating = ratings_now([user_id], options.speed, now)[user_id].rating
    entry = PoolEntry(
        user=user,
        clock_initial=options.clock_initial,
        clock_increment=options.clock_increment,
        rated=options.rated,
        rating=round(rating),
        channel_name=channel_name,
        entered_at=now,
        seen_at=now,
    )
    with transaction.atomic():
        for before in PoolEntry.objects.select_for_update().filter(user_id=user_id):
            tell_after_commit(before.channel_name, {"type": "pool.left"})
            before.delete()
        # Paired on arrival needs no entry of one's own. An arrival at the same moment on another
        # process is seen only once committed: the two meet on their next ask.
        opponent = _opponent(entry, now)
        if opponent is not None:
            return Paired(_pair(entry, opponent))
        entry.save()
    return _waiting(entry, now)


def pool_ask(*, channel_name: str, now: datetime | None = None) -> Waiting | Paired | None:
    """The socket ``channel_name``'s entry asks to be paired, with the range it now accepts:
    :class:`Paired`, or :class:`Waiting` (also while another pairing holds the entry: that one
    tells the socket), or ``None`` when the entry is gone (paired, left, or replaced)."""
    now = now or timezone.now()
    with transaction.atomic():
        entry = _locked(PoolEntry.objects.filter(channel_name=channel_name))
        if entry is None:  # gone, or being paired by someone else right now
            held = PoolEntry.objects.filter(channel_name=channel_name).first()
            return None if held is None else _waiting(held, now)
        entry.seen_at = now
        entry.save(update_fields=["seen_at"])
        opponent = _opponent(entry, now)
        if opponent is None:
            return _waiting(entry, now)
        return Paired(_pair(entry, opponent))


def _locked(entries: QuerySet[PoolEntry]) -> PoolEntry | None:
    """The first of ``entries`` with its player, locked for this transaction; ``None`` if there
    is none, or another transaction holds it (on PostgreSQL, the entry's row alone is locked)."""
    locking = entries.select_for_update(skip_locked=True, of=("self",))
    return locking.select_related("user").first()


def _opponent(entry: PoolEntry, now: datetime) -> PoolEntry | None:
    """The waiting entry closest in rating to ``entry`` that both players accept, locked; ``None``
    if there is none free. Candidates are read unlocked, then locked one at a time, skipping any
    that another pairing holds or has taken meanwhile."""
    candidates = PoolEntry.objects.filter(
        clock_initial=entry.clock_initial,
        clock_increment=entry.clock_increment,
        rated=entry.rated,
        seen_at__gte=now - UNSEEN_AFTER,
        user__is_active=True,
    ).exclude(user_id=entry.user_id)
    allowed = rating_range(now - entry.entered_at)
    if allowed is not None:
        candidates = candidates.filter(
            rating__gte=entry.rating - allowed, rating__lte=entry.rating + allowed
        )
    closest = candidates.order_by(Abs(F("rating") - entry.rating), "entered_at")[:CANDIDATES]
    for candidate in closest:
        if _accepts(candidate, entry.rating, now):
            locked = _locked(PoolEntry.objects.filter(pk=candidate.pk))
            if locked is not None:
                return locked
    return None


def _pair(entry: PoolEntry, opponent: PoolEntry) -> Game:
    """The game of ``entry`` (locked, or an arrival not saved) and ``opponent`` (locked): the one
    who waited longer sits first, as a seek's maker does. Their entries go, and both sockets are
    told once committed."""
    first, second = sorted((opponent, entry), key=lambda e: e.entered_at)
    game = game_create_paired(seat0=first.user, seat1=second.user, options=_options(entry))
    PoolEntry.objects.filter(pk__in=[e.pk for e in (entry, opponent) if e.pk is not None]).delete()
    message = {"type": "pool.paired", "url": game.get_absolute_url()}
    for paired in (first, second):
        tell_after_commit(paired.channel_name, message)
    return game


def _options(entry: PoolEntry) -> GameOptions:
    """The options of the games an entry waits for: its time control, rated or not, on the pool's
    pack (36 cards) without variants."""
    time_control = (entry.clock_initial // 60, entry.clock_increment)
    return GameOptions(time_control=time_control, rated=entry.rated)


def pool_leave(*, channel_name: str) -> None:
    """The socket ``channel_name`` closed: its entry, if still waiting, leaves the pool."""
    PoolEntry.objects.filter(channel_name=channel_name).delete()
