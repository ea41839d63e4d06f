"""The session engine: Django's database sessions, read with SQL built once.

Every request and every socket's arrival reads its session; the ORM building that query each
time was a seventh of a socket's arrival (py-spy, 1,000 sockets opening at once).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.sessions.backends import db
from django.utils import timezone

from yourtrumps_site.serving.prepared import Prepared

if TYPE_CHECKING:
    from django.contrib.sessions.models import Session

# The model is looked up when first read, as Django's own store does (it is imported early).
_SESSION = Prepared(lambda: db.SessionStore.get_model_class().objects.filter(session_key=""))


class SessionStore(db.SessionStore):
    """Django's database session; an expired session is treated as none, as Django's query
    (``expire_date__gt=now``) does, only checked here after the read."""

    def _get_session_from_db(self) -> Session | None:
        session = _SESSION.instance(self.session_key) if self.session_key else None
        if session is None or session.expire_date <= timezone.now():
            self._session_key = None
            return None
        return session
