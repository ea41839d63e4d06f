"""Logging in: Django's model backend, under the name the players' sessions already store."""

from django.contrib.auth import backends


class ModelBackend(backends.ModelBackend):
    """Django's ``ModelBackend``."""


#: The backend a player's session names (``AUTHENTICATION_BACKENDS``), for code that logs a
#: player in without a password.
PATH = f"{ModelBackend.__module__}.{ModelBackend.__qualname__}"
