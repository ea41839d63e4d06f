"""Writes to players' accounts."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction


@transaction.atomic
def user_sign_up(*, username: str, password: str, email: str = "") -> AbstractBaseUser:
    """Create a player's account; the form has validated the name and the password."""
    return get_user_model().objects.create_user(username=username, password=password, email=email)
