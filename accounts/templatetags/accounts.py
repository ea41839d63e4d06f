"""``{{ user|player_name }}``: a player's name as shown (:func:`accounts.selectors.player_name`),
for templates that name a user rather than a game's seat."""

from django import template
from django.contrib.auth.models import AbstractBaseUser

from accounts import selectors

register = template.Library()


@register.filter
def player_name(user: AbstractBaseUser) -> str:
    return selectors.player_name(user)
