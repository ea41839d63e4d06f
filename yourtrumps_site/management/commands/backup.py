"""``manage.py backup [FILE]``: a consistent copy of the site's database, taken while it serves
(:mod:`yourtrumps_site.backups`)."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections

from yourtrumps_site import backups


class Command(BaseCommand):
    help = (
        "Back up the database while the site serves: SQLite through its online backup API, "
        "PostgreSQL (DATABASE_URL) with pg_dump, which must be installed. Restore with "
        "`manage.py restore`."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "file",
            nargs="?",
            type=Path,
            help="the backup to write, which must not exist "
            "(default: backups/<sqlite|postgresql>-<UTC time>.<sqlite3|dump>)",
        )

    def handle(self, *args: Any, file: Path | None, **options: Any) -> None:
        database = connections[DEFAULT_DB_ALIAS].settings_dict
        try:
            backups.backup(database, file or backups.default_file(database), self.stdout.write)
        except backups.BackupError as error:
            raise CommandError(str(error)) from error
