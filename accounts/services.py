"""Writes to players' accounts."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from accounts.models import Profile


@transaction.atomic
def user_sign_up(
    *, username: str, password: str, email: str = "", language: str = ""
) -> AbstractBaseUser:
    """Create a player's account; the form has validated the name and the password. ``language``:
    the one they signed up in, kept for their next logins."""
    user = get_user_model().objects.create_user(username=username, password=password, email=email)
    if language:
        profile_set_language(user=user, language=language)
    return user


def profile_set_language(*, user: AbstractBaseUser, language: str) -> None:
    """Keep ``language`` (a code of ``settings.LANGUAGES``) as the player's own."""
    if language not in dict(settings.LANGUAGES):
        raise ValueError(f"not a language of the site: {language!r}")
    Profile.objects.update_or_create(user=user, defaults={"language": language})
