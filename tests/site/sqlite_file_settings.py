"""The site's settings on an SQLite file of a test's own (``SQLITE_FILE``), for the processes a
test starts: servers it kills (test_crash_recovery.py), commands it runs (test_backups.py)."""

import os

from yourtrumps_site.settings import *  # noqa: F403
from yourtrumps_site.settings import DATABASES

DATABASES = {"default": {**DATABASES["default"], "NAME": os.environ["SQLITE_FILE"]}}
