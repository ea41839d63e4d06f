"""``manage.py restore [FILE]``: replace the site's database with a backup from ``manage.py
backup`` (:mod:`yourtrumps_site.backups`), then say what it holds."""

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections

from yourtrumps_site import backups


class Command(BaseCommand):
    help = (
        "Replace everything in the database with a backup made by `manage.py backup`. Stop the "
        "site first (every server and task worker): a restore while it serves is not supported. "
        "PostgreSQL (DATABASE_URL) needs pg_restore. Asks for confirmation unless --yes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "file", nargs="?", type=Path, help="the backup (default: the newest under backups/)"
        )
        parser.add_argument("--yes", action="store_true", help="restore without asking")

    def handle(self, *args: Any, file: Path | None, yes: bool, **options: Any) -> None:
        database = connections[DEFAULT_DB_ALIAS].settings_dict
        try:
            file = backups.restore_file(database, file)
            if not yes:
                self._confirm(f"Replace everything in {backups.describe(database)} with {file}?")
            backups.restore(database, file, self.stdout.write)
        except backups.BackupError as error:
            raise CommandError(str(error)) from error
        connections.close_all()  # the counts read the restored database afresh
        self.stdout.write(f"The database now holds {backups.counts()}.")

    def _confirm(self, question: str) -> None:
        if not sys.stdin.isatty():
            raise CommandError("Not restoring: pass --yes, or run it in a terminal to confirm.")
        answer = input(f"{question} The site must be stopped. Type 'yes' to restore: ")
        if answer.strip().lower() != "yes":
            raise CommandError("Not restoring: not confirmed.")
