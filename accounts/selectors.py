"""Reads of players' accounts that pages and the apps above share: a player's name as shown,
whether an account is closed, whether its email address is proven, and players' ratings."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from accounts.glicko2 import Glicko
from accounts.models import ChallengesFrom, Profile, Rating, RatingChange
from accounts.ratings import PROVISIONAL_DEVIATION, START, Speed, as_of, is_provisional, shown


def is_closed(user: AbstractBaseUser) -> bool:
    """Whether ``user`` closed their account. Closing deactivates it, so an active account (all
    but the closed and the banned) needs no query; the answer is kept on the instance."""
    if user.is_active:
        return False
    try:
        return user.profile.closed_at is not None
    except Profile.DoesNotExist:
        return False


def player_name(user: AbstractBaseUser) -> str:
    """The name ``user`` plays under, as every page, table, replay and record shows it; a closed
    account's name is no longer shown."""
    return _("Closed account") if is_closed(user) else user.get_username()


def closed_accounts() -> QuerySet[Profile]:
    """The ids of the users who closed their account, as a query to nest in another."""
    return Profile.objects.filter(closed_at__isnull=False).values("user_id")


def is_closed_name(username: str) -> bool:
    """Whether the account called ``username`` is closed (the login form says so)."""
    return Profile.objects.filter(user__username=username, closed_at__isnull=False).exists()


def email_verified(user: AbstractBaseUser) -> bool:
    """Whether ``user``'s email address is the one they proved theirs by following its link."""
    email = getattr(user, "email", "")
    if not email:
        return False
    verified = Profile.objects.filter(user_id=user.pk).values_list("verified_email", flat=True)
    return any(address.casefold() == email.casefold() for address in verified)


def challenges_from(user: AbstractBaseUser) -> ChallengesFrom:
    """Whose challenges ``user`` hears (their settings; everyone's until they choose)."""
    chosen = Profile.objects.filter(user_id=user.pk).values_list("challenges_from", flat=True)
    return ChallengesFrom(chosen.first() or ChallengesFrom.EVERYONE)


# --- Ratings ----------------------------------------------------------------------------------


def ratings_now(user_ids: Iterable[int], speed: str, now: datetime) -> dict[int, Glicko]:
    """Each player's rating in ``speed`` as it stands at ``now`` (its deviation grown by the
    time since their last rated game in it; a player never rated in it at the start)."""
    ids = set(user_ids)
    rows = Rating.objects.filter(user_id__in=ids, speed=speed)
    current = {row.user_id: as_of(row.glicko, row.rated_at, now) for row in rows}
    return {user_id: current.get(user_id, START) for user_id in ids}


@dataclass(frozen=True)
class SpeedRating:
    """A player's rating in one speed as it stands now, for their profile and the leaderboard."""

    speed: Speed
    glicko: Glicko
    games: int

    @property
    def provisional(self) -> bool:
        return is_provisional(self.glicko.deviation)

    @property
    def shown(self) -> str:
        return shown(self.glicko.rating, self.provisional)

    @property
    def deviation(self) -> int:
        return round(self.glicko.deviation)


def player_ratings(user: AbstractBaseUser, now: datetime) -> list[SpeedRating]:
    """``user``'s ratings in the speeds they have played rated games in, in the speeds' order."""
    rows = {row.speed: row for row in Rating.objects.filter(user_id=user.pk, games__gt=0)}
    return [
        SpeedRating(speed, as_of(row.glicko, row.rated_at, now), row.games)
        for speed in Speed
        if (row := rows.get(speed)) is not None
    ]


def rating_history(user: AbstractBaseUser, speed: str, limit: int = 100) -> list[float]:
    """``user``'s rating in ``speed`` before their first change of the last ``limit``, then after
    each of them: their games' results and the annulments that took results back, in order."""
    changes = RatingChange.objects.filter(user_id=user.pk, speed=speed).order_by("-pk")
    rows = list(changes.values_list("rating_before", "rating_after")[:limit])[::-1]
    return [rows[0][0], *(after for _, after in rows)] if rows else []


@dataclass(frozen=True)
class Ranked:
    """A leaderboard's line: the player and their rating as it stands."""

    rank: int
    user: AbstractBaseUser
    rating: SpeedRating


def leaderboard(speed: Speed, now: datetime, size: int = 50) -> list[Ranked]:
    """The ``size`` best ratings in ``speed`` whose holders' accounts are active (neither closed
    nor banned) and which are not provisional as things stand: a player away long enough for
    their deviation to grow back to the mark leaves the board until they play again."""
    candidates = (
        Rating.objects.filter(speed=speed, user__is_active=True)
        .filter(deviation__lt=PROVISIONAL_DEVIATION)  # grown since: checked below
        .select_related("user")
        .order_by("-rating", "user_id")
    )
    board: list[Ranked] = []
    for row in candidates.iterator(chunk_size=size):
        rating = SpeedRating(speed, as_of(row.glicko, row.rated_at, now), row.games)
        if not rating.provisional:
            board.append(Ranked(len(board) + 1, row.user, rating))
            if len(board) == size:
                break
    return board


def game_rating_changes(game_id: int) -> dict[int, RatingChange]:
    """The changes a game made to its players' ratings, by user id; none for a casual game, and
    none once annulled (the changes were taken back)."""
    changes = list(RatingChange.objects.filter(game_id=game_id))
    if any(change.annulment for change in changes):
        return {}
    return {change.user_id: change for change in changes}
