"""Logging in: Django's model backend, reading a session's user with SQL built once.

Every request and every socket's arrival of a logged-in player reads their user: the ORM
building that query each time was a fifteenth of a move sent as the table's POST (py-spy, 500
games) and a tenth of a socket's arrival.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import backends, get_user_model
from django.core.exceptions import ValidationError

from yourtrumps_site.serving.prepared import Prepared

_USER = Prepared(lambda: get_user_model()._default_manager.filter(pk=0))


class ModelBackend(backends.ModelBackend):
    """Django's ``ModelBackend``, its session's user read by :data:`_USER`."""

    def get_user(self, user_id: Any) -> Any:
        try:  # the id as stored in the session (text): the database gets the field's own type
            pk = get_user_model()._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        user = _USER.instance(pk)
        return user if user is not None and self.user_can_authenticate(user) else None


#: The backend a player's session names (``AUTHENTICATION_BACKENDS``), for code that logs a
#: player in without a password.
PATH = f"{ModelBackend.__module__}.{ModelBackend.__qualname__}"
