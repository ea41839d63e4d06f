"""The game app's answers to what accounts tells it (``accounts.signals``): accounts, the lowest
layer, may not import games, so the game side reacts."""

from typing import Any

from django.dispatch import receiver

from accounts.signals import account_closed
from game.services.endings import games_leave


@receiver(account_closed)
def leave_games_of_closed_account(sender: object, *, user: object, **kwargs: Any) -> None:
    """A closed account's seeks are cancelled and its games in play resigned."""
    games_leave(user=user)
