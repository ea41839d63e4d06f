"""``manage.py moderator NAME`` makes a user a moderator; ``--remove`` takes it back."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from moderation.services import moderator_grant, moderator_revoke


class Command(BaseCommand):
    help = "Make a user a moderator (the Moderators group and admin access), or undo it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--remove", action="store_true", help="take moderation away")

    def handle(self, *args: Any, username: str, remove: bool, **options: Any) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user is called {username!r}.")
        if remove:
            moderator_revoke(user=user)
            self.stdout.write(f"{username} is no longer a moderator.")
        else:
            moderator_grant(user=user)
            self.stdout.write(f"{username} is now a moderator.")
