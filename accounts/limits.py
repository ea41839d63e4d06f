"""Abuse limits: how often one address or one player may sign up, open invitation links, import
records, ask for analyses or send reports (issue 46).

django-ratelimit counts the requests in Django's cache (``settings.CACHES``), in a fixed window
per limit and address or player: the database cache when the site runs embedded, Django's Redis
cache when ``REDIS_URL`` is set, so that every process shares the counts. Each limit's rate is a
setting (``LIMIT_*``). The request past it is refused by :func:`too_many`: 429 with
``Retry-After`` (the seconds until its window ends) and a page saying what was limited and when
to try again, or for htmx that notice alone, shown where the answer would have gone. When the
cache fails (its table missing, Redis down), a limit logs a warning and lets the request through.
The database cache's table is made by ``migrate`` (accounts' migration 0006).

The apps' views declare their limits (a :class:`Limit` each) and wrap themselves in
:func:`limited`; this module sits in the lowest app so that every app may import it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import wraps

from django.conf import settings
from django.db import DatabaseError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.timesince import timeuntil
from django_ratelimit.core import get_usage
from redis.exceptions import RedisError

View = Callable[..., HttpResponse]
logger = logging.getLogger(__name__)

#: What the cache backends raise when their store fails: the database cache (its table missing,
#: the database gone), Django's Redis cache (Redis down or too slow), a socket underneath either.
STORE_ERRORS: tuple[type[Exception], ...] = (DatabaseError, RedisError, OSError)


@dataclass(frozen=True, slots=True)
class Limit:
    """One abuse limit: its ``name`` (the count's group, shared by the views it wraps), the
    setting that holds its rate, whose requests it counts (django-ratelimit's ``key``: ``ip``,
    ``user`` or ``user_or_ip``) and with which methods, and what a refused visitor reads."""

    name: str
    setting: str
    key: str
    message: str | Promise
    methods: tuple[str, ...] = ("POST",)


def client_address(request: HttpRequest) -> str:
    """Where a request comes from: the connection's address or, with ``TRUST_X_FORWARDED_FOR``,
    the last one in ``X-Forwarded-For``, which the site's own proxy added (any before it are the
    client's to write). django-ratelimit (``RATELIMIT_IP_META_KEY``) and the login lockout
    (``AXES_CLIENT_IP_CALLABLE``) both ask this."""
    if settings.TRUST_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").rsplit(",", 1)[-1].strip()
        with contextlib.suppress(ValueError):
            return str(ipaddress.ip_address(forwarded))
    return str(request.META.get("REMOTE_ADDR", ""))


def seconds_to_wait(request: HttpRequest, limit: Limit) -> int | None:
    """Count ``request`` against ``limit``: ``None`` while within it, else the seconds until
    its window ends, and ``None`` too when the cache that keeps the counts fails."""
    # On SQLite the transaction takes the write lock as it begins (BEGIN IMMEDIATE), so the
    # database cache's read and write of a count never interleave with another request's.
    # (Django's Redis cache counts atomically by itself.)
    try:
        with transaction.atomic():
            usage = get_usage(
                request,
                group=limit.name,
                key=limit.key,
                rate=getattr(settings, limit.setting),
                method=list(limit.methods),
                increment=True,
            )
    except STORE_ERRORS as error:
        # Fail open: a limit only slows abuse down, and a broken store must not refuse everyone.
        logger.warning("The abuse limit %r let a request through uncounted: %r", limit.name, error)
        return None
    if usage is None or not usage["should_limit"]:
        return None
    # A window counts up to its last second (``time_left`` is 0 then): it is over a second later.
    return max(1, usage["time_left"] + 1)


def limited(limit: Limit) -> Callable[[View], View]:
    """Wrap a view in ``limit``: a request past it gets :func:`too_many` instead."""

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            wait = seconds_to_wait(request, limit)
            if wait is not None:
                return too_many(request, limit.message, wait)
            return view(request, *args, **kwargs)

        return wrapped

    return decorate


def in_words(seconds: int) -> str:
    """A wait in the visitor's language, in whole minutes rounded up: ``12 minutes``,
    ``1 hour, 5 minutes``."""
    now = timezone.now()
    return timeuntil(now + timedelta(minutes=max(1, math.ceil(seconds / 60))), now)


def too_many(request: HttpRequest, message: str | Promise, wait: int | None = None) -> HttpResponse:
    """The answer to a request refused by a limit: 429 with ``message`` and, when a time frees
    the limit (``wait`` seconds), ``Retry-After`` and when to try again. A page, or for htmx the
    notice alone."""
    context = {"message": message, "wait": in_words(wait) if wait is not None else None}
    template = "_too_many.html" if request.htmx else "429.html"
    response = render(request, template, context, status=429)
    if wait is not None:
        response["Retry-After"] = str(wait)
    return response
