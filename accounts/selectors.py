"""Reads of players' accounts that pages and the apps above share: a player's name as shown,
whether an account is closed, whether its email address is proven."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from accounts.models import Profile


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
