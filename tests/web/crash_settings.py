"""The site's settings on a database of the crash test's own (``CRASH_TEST_DB``, an SQLite file),
for real server processes that the test starts and kills (tests/web/test_crash_recovery.py)."""

import os

from yourtrumps_site.settings import *  # noqa: F403
from yourtrumps_site.settings import DATABASES

DATABASES = {"default": {**DATABASES["default"], "NAME": os.environ["CRASH_TEST_DB"]}}
