"""Settings of the Your Trumps site, read from the environment with embedded defaults.

With nothing set, the site runs on its own: SQLite (``db.sqlite3`` beside ``manage.py``) and the
in-memory channel layer. Setting ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` (channels-redis)
lets several Daphne processes share one database and one channel layer.

Environment variables:

- ``DEBUG``: ``true``/``false`` (also ``1``/``0``, ``yes``/``no``, ``on``/``off``); default true.
- ``DEBUG_ERROR_PAGES``: with ``DEBUG``, Django's technical pages for a 404 and a 500 rather
  than the site's own; default false.
- ``SECRET_KEY``: required when ``DEBUG`` is false; a development key is used otherwise.
- ``ALLOWED_HOSTS``: comma-separated host names; default ``localhost,127.0.0.1``.
- ``CSRF_TRUSTED_ORIGINS``: comma-separated origins (``https://example.org``); default none.
- ``DATABASE_URL``: ``postgres://user:password@host:5432/name``; unset means SQLite.
- ``DB_POOL_SIZE``: PostgreSQL connections one process may hold (its pool's maximum); default 16.
- ``REDIS_URL``: ``redis://host:6379/0``; unset means the in-memory channel layer and the database
  cache.
- ``CACHE_KEY_PREFIX``: put before every key the site keeps in its cache, so that sites (or test
  runs) sharing one Redis keep their counts apart; default none.
- ``HTTP_THREADS``: HTTP requests one process runs at once (the rest wait their turn); 0 for no
  bound; default 4 on SQLite, no bound on PostgreSQL.
- ``SOCKET_THREADS``: threads for one process's websockets' database work (Channels' own
  sync thread is shared by the whole process); default 1 on SQLite, 4 on PostgreSQL.
- ``SERVER_TIMING``: a ``Server-Timing`` header on every answer (where its time went in the site's
  handler); default true when ``DEBUG`` is true.
- ``HTTPS``: secure cookies and a redirect to https; default true when ``DEBUG`` is false.
- ``TRUST_X_FORWARDED_PROTO``: trust a proxy's ``X-Forwarded-Proto`` header; default false.
- ``TRUST_X_FORWARDED_FOR``: the site is behind one proxy of its own, which adds the client's
  address to ``X-Forwarded-For``: the abuse limits and the login lockout count by that address
  instead of the connection's (the proxy's); default false.
- ``LIMIT_SIGNUPS``, ``LIMIT_INVITES``, ``LIMIT_IMPORTS``, ``LIMIT_ANALYSES``, ``LIMIT_REPORTS``:
  the abuse limits (``accounts.limits``), each a rate ``N/h`` (``s``, ``m``, ``h`` or ``d``,
  optionally ``N/15m``): sign-ups per address (default ``10/h``), invitation links opened per
  address (``20/h``), records imported and analyses asked per player (``30/h``, ``10/h``),
  reports sent per player (``10/d``).
- ``LIMIT_CHALLENGES``: challenges sent per player (default ``60/h``): one player may challenge
  another only once at a time, and this keeps them from challenging everyone in turn.
- ``LIMIT_PASSWORD_RESETS``, ``LIMIT_EMAIL_LINKS``: the same for mail: password reset links asked
  for per address (default ``5/h``), email verification links sent per player (``5/h``).
- ``LIMIT_OPEN_SEEKS``: how many games one player may have waiting for an opponent; default 5.
- ``TASK_WORKER``: who runs the background tasks (the computer's replies, analyses, flag
  checks): ``embedded`` (default: ``manage.py runserver`` serves the queues from threads of
  its own, searching in child processes that die with it; a bare ``daphne`` runs none) or
  ``external`` (only ``manage.py db_worker`` processes, any number, anywhere).
- ``TASK_POLL_MS``: how long an idle task worker sleeps before looking again for work, so the
  most a task waits past its due time; default 500.
- ``COMPUTER_PAUSE_MS``: the computer's pause before it starts thinking; default 600.
- ``ANALYSIS_MS``: an analysis's thinking time per position; default 500.
- ``SECURE_HSTS_SECONDS``: the HSTS max-age, sent on https answers; default 0 (off).
- ``SECURE_HSTS_INCLUDE_SUBDOMAINS``, ``SECURE_HSTS_PRELOAD``: HSTS's two flags; default false.
- ``EMAIL_HOST``: the SMTP server that sends the site's mail (email verification, password
  reset); unset means the mails are printed where the server runs (Django's console backend).
  With it: ``EMAIL_PORT`` (default 587, or 465 with ``EMAIL_USE_SSL``), ``EMAIL_HOST_USER``,
  ``EMAIL_HOST_PASSWORD``, ``EMAIL_USE_TLS`` (STARTTLS; default true unless ``EMAIL_USE_SSL``),
  ``EMAIL_USE_SSL`` (default false) and ``DEFAULT_FROM_EMAIL`` (the sender, then required).

A value that cannot be understood stops the start-up with ``ImproperlyConfigured`` naming the
variable, rather than falling back to a default.

Under load (issue 18), the services are set up so that no user sees their limits:

- SQLite runs in WAL mode (readers never wait for the writer), with a 20 s busy timeout and
  ``BEGIN IMMEDIATE`` transactions: a writer takes the write lock when its transaction starts, so
  two writers queue instead of one failing with ``database is locked`` when it upgrades a read.
- PostgreSQL connections come from a pool per process (psycopg's, through Django), at most
  ``DB_POOL_SIZE``; a request waits up to 10 s for a free one. Size it for everything sharing the
  server: PostgreSQL's default ``max_connections=100`` leaves 97 to ordinary users, and the default
  16 lets five processes (say four Daphne and one task worker) hold 80, with room for migrations
  and ``psql``. One process needs about as many as its threads that touch the database:
  ``HTTP_THREADS`` requests, ``SOCKET_THREADS`` for the sockets and the embedded task workers.
- The Redis channel layer: see :func:`channel_layers_config`.
"""

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Environment helpers ---------------------------------------------------------------------
# Each reads one variable and fails loudly on a value it cannot understand. An empty value counts
# as unset.

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def env_str(name: str, default: str | None = None) -> str | None:
    """The variable's value with surrounding blanks removed, or ``default`` if unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or default


def env_bool(name: str, default: bool) -> bool:
    """A boolean variable: true/false, 1/0, yes/no or on/off, in any case."""
    value = env_str(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of true/false, 1/0, yes/no, on/off; got {value!r}"
    )


def env_int(name: str, default: int) -> int:
    """A non-negative integer variable."""
    value = env_str(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {value!r}") from None
    if number < 0:
        raise ImproperlyConfigured(f"{name} must not be negative; got {number}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blanks around items are dropped, an empty list is an error."""
    value = env_str(name)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise ImproperlyConfigured(f"{name} must list at least one item; got {value!r}")
    return items


#: A rate as django-ratelimit reads it: a count, a slash, and a period (an optional multiple of
#: ``s``, ``m``, ``h`` or ``d``): ``10/h``, ``30/15m``.
_RATE = re.compile(r"\d+/(?:[1-9]\d*)?[smhd]")


def env_rate(name: str, default: str) -> str:
    """A rate variable: how many requests per period, such as ``10/h`` or ``30/15m``."""
    value = env_str(name) or default
    if not _RATE.fullmatch(value):
        raise ImproperlyConfigured(
            f"{name} must be a rate such as 10/h (per s, m, h or d, or 15m); got {value!r}"
        )
    return value


_POSTGRES_SCHEMES = frozenset({"postgres", "postgresql"})
_REDIS_SCHEMES = frozenset({"redis", "rediss", "unix"})


#: SQLite for concurrent writers (Django 5.2): WAL, so that reads never wait for the writer;
#: ``synchronous=NORMAL``, safe in WAL against a crashed process (a power cut may lose the last
#: commits, never corrupt); ``BEGIN IMMEDIATE``, so that a writer queues for the lock when its
#: transaction starts instead of failing with ``database is locked`` when a read turns into a write
#: (the busy timeout does not apply to that upgrade); and a 20 s busy timeout to queue in.
SQLITE_OPTIONS: dict[str, Any] = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}
DEFAULT_DB_POOL_SIZE = 16
#: Seconds a request waits for a free pooled PostgreSQL connection before it fails.
DB_POOL_TIMEOUT = 10


def database_config(
    url: str | None, *, base_dir: Path, pool_size: int = DEFAULT_DB_POOL_SIZE
) -> dict[str, Any]:
    """The default database: PostgreSQL from ``url``, or SQLite in ``base_dir`` without one.

    The SQLite test database is a file (not in-memory) so that live-server tests, whose server
    runs in another thread or process, see the same data; each thread keeps its SQLite connection
    (``CONN_MAX_AGE = None``: the request, socket and task threads live long). PostgreSQL
    connections come from a pool of at most ``pool_size`` per process (see the module's docstring
    for its size).
    """
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": base_dir / "db.sqlite3",
            "OPTIONS": dict(SQLITE_OPTIONS),
            # Each thread keeps its connection (the request, socket and task threads live long).
            "CONN_MAX_AGE": None,
            "TEST": {"NAME": base_dir / "db.sqlite3-test"},
        }
    if pool_size < 1:
        raise ImproperlyConfigured(f"DB_POOL_SIZE must be at least 1; got {pool_size}")
    parts = urlsplit(url)
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise ImproperlyConfigured(
            "DATABASE_URL must be a PostgreSQL URL such as "
            f"postgres://user@127.0.0.1:5432/name; got the scheme {parts.scheme!r}"
        )
    if not parts.path.strip("/"):
        raise ImproperlyConfigured("DATABASE_URL must name a database: postgres://host:5432/name")
    config = dict(dj_database_url.parse(url))
    # The pool keeps the connections: Django refuses persistent connections beside it.
    config["CONN_MAX_AGE"] = 0
    # With a pool, Django makes this the pool's check: only live connections are handed out.
    # After a PostgreSQL restart the pooled ones are dead and their first query would fail (a
    # 500); the check costs one round trip per checkout.
    config["CONN_HEALTH_CHECKS"] = True
    config["OPTIONS"] = {
        **config.get("OPTIONS", {}),
        "pool": {
            "min_size": min(2, pool_size),  # two kept open, so a quiet site answers at once
            "max_size": pool_size,
            "timeout": DB_POOL_TIMEOUT,
        },
    }
    return config


#: How long a command to Redis may wait for its answer before it fails: a finite timeout turns a
#: Redis that stopped answering into an error instead of a publish or socket that hangs for ever.
#: (The pub/sub layer's reader waits for messages with a timeout of its own, so quiet sockets are
#: not affected; with channels-redis's list layer, redis-py 8's default of 5 s equalled its
#: blocking read and every quiet socket died: ``tests/site/test_redis_idle.py``.)
REDIS_SOCKET_TIMEOUT = 15


def channel_layers_config(url: str | None) -> dict[str, Any]:
    """The channel layers: channels-redis's pub/sub layer on ``url``, as shipped, or the in-memory
    layer without one (``serving.channel_layer.EmbeddedChannelLayer``).

    The in-memory layer only reaches consumers in the same process: fine for one Daphne process,
    wrong for several. With Redis each process holds two connections to it: one subscribed to
    the groups and channels of its sockets, read by one task that hands each message to the
    sockets it is for, and one it publishes on. channels-redis's list layer (``core``) instead
    kept every process's messages in a list in Redis, and made four round trips to Redis for
    each message a process received and three for each group message sent, each socket's receive
    loop taking turns at the read: on ``make serve`` at 500 games, a third of the CPU of a move
    (git log of docs/load.md). Pub/sub has no capacity to overflow and no group expiry: a message
    reaches the processes subscribed when it is published, which every socket of a game is from
    its arrival on (it joins the group before it reads the game).
    """
    if not url:
        embedded = "yourtrumps_site.serving.channel_layer.EmbeddedChannelLayer"
        return {"default": {"BACKEND": embedded}}
    parts = urlsplit(url)
    if parts.scheme not in _REDIS_SCHEMES:
        raise ImproperlyConfigured(
            f"REDIS_URL must be a Redis URL such as redis://127.0.0.1:6379/0; got the scheme "
            f"{parts.scheme!r}"
        )
    if parts.scheme != "unix" and not parts.hostname:
        raise ImproperlyConfigured("REDIS_URL must name a host: redis://host:6379/0")
    host = {
        "address": url,
        "socket_timeout": REDIS_SOCKET_TIMEOUT,
        "socket_connect_timeout": 5,
        # Find connections that a firewall or NAT dropped while quiet: TCP keepalive while they
        # idle, and a PING on a subscribed connection quiet for 30 s.
        "socket_keepalive": True,
        "health_check_interval": 30,
    }
    return {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [host]},
        }
    }


CONSOLE_EMAIL = "django.core.mail.backends.console.EmailBackend"
SMTP_EMAIL = "django.core.mail.backends.smtp.EmailBackend"
#: Seconds an SMTP exchange may take before sending fails (and is logged), rather than holding
#: a request for ever.
SMTP_TIMEOUT = 10


def email_config() -> dict[str, Any]:
    """Django's email settings from the environment: SMTP through ``EMAIL_HOST`` when it is set,
    else the console backend (a development run prints each mail, links included)."""
    host = env_str("EMAIL_HOST")
    if not host:
        sender = env_str("DEFAULT_FROM_EMAIL", "Your Trumps <noreply@localhost>")
        return {"EMAIL_BACKEND": CONSOLE_EMAIL, "DEFAULT_FROM_EMAIL": sender}
    sender = env_str("DEFAULT_FROM_EMAIL")
    if not sender:
        raise ImproperlyConfigured("DEFAULT_FROM_EMAIL must be set when EMAIL_HOST is")
    use_ssl = env_bool("EMAIL_USE_SSL", default=False)
    use_tls = env_bool("EMAIL_USE_TLS", default=not use_ssl)
    if use_ssl and use_tls:
        raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be true")
    return {
        "EMAIL_BACKEND": SMTP_EMAIL,
        "EMAIL_HOST": host,
        "EMAIL_PORT": env_int("EMAIL_PORT", 465 if use_ssl else 587),
        "EMAIL_HOST_USER": env_str("EMAIL_HOST_USER", ""),
        "EMAIL_HOST_PASSWORD": env_str("EMAIL_HOST_PASSWORD", ""),
        "EMAIL_USE_TLS": use_tls,
        "EMAIL_USE_SSL": use_ssl,
        "EMAIL_TIMEOUT": SMTP_TIMEOUT,
        "DEFAULT_FROM_EMAIL": sender,
        "SERVER_EMAIL": sender,
    }


#: The database cache's table (made by ``migrate``: accounts' 0006), and how many counts it keeps
#: before it drops some: Django's default of 300 would forget a crowd's counts early.
CACHE_TABLE = "django_cache"
CACHE_MAX_ENTRIES = 10_000


def caches_config(redis_url: str | None, key_prefix: str = "") -> dict[str, Any]:
    """Django's cache, where the abuse limits keep their counts (``accounts.limits``): Django's own
    Redis backend on ``redis_url``, so that every process shares them, or the database cache
    without one (a table made by ``migrate``, accounts' migration 0006). Each key
    starts with ``key_prefix``, so that sites (or test runs) sharing one Redis keep apart."""
    if not redis_url:
        return {
            "default": {
                "BACKEND": "django.core.cache.backends.db.DatabaseCache",
                "LOCATION": CACHE_TABLE,
                "KEY_PREFIX": key_prefix,
                "OPTIONS": {"MAX_ENTRIES": CACHE_MAX_ENTRIES},
            }
        }
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": key_prefix,
            "OPTIONS": {"socket_timeout": REDIS_SOCKET_TIMEOUT, "socket_connect_timeout": 5},
        }
    }


def secret_key(*, debug: bool) -> str:
    """``SECRET_KEY`` from the environment; only a debug run may fall back to a development key."""
    key = env_str("SECRET_KEY")
    if key:
        return key
    if debug:
        return "django-insecure-development-key-do-not-use-in-production"
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false")


# --- Core ------------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", default=True)
# Read by yourtrumps_site.middleware.ErrorPagesMiddleware.
DEBUG_ERROR_PAGES = env_bool("DEBUG_ERROR_PAGES", default=False)
SECRET_KEY = secret_key(debug=DEBUG)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    # First: its `runserver` is Daphne's, listening with room for a crowd; its `db_worker`
    # extends django-tasks-db's; `serve` runs several of each (yourtrumps_site/serving/).
    "yourtrumps_site.serving",
    "yourtrumps_site",  # `backup` and `restore`
    "daphne",  # before staticfiles, so that `runserver` is Daphne's ASGI server
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "chat",  # a game's chat lines and mutes: live play imports it, it imports no app of ours
    "game",
    "archive",  # finished and imported games: records, replays, analyses
    "accounts",
    "moderation",  # after game: its admin extends the game's
    "tools",  # the load test, fuzzer and benches: commands only, imported by nothing
    "axes",
    "django_tasks",
    "django_tasks_db",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # outermost but one: every answer gets the policy
    "yourtrumps_site.middleware.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # After the user and messages are known, so that the error and refusal pages are the site's.
    "yourtrumps_site.middleware.ErrorPagesMiddleware",
    "yourtrumps_site.middleware.RefuseNulMiddleware",
    "yourtrumps_site.middleware.NotFoundMiddleware",
    "yourtrumps_site.middleware.BusyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "yourtrumps_site.urls"
ASGI_APPLICATION = "yourtrumps_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "moderation.context_processors.moderation",
            ],
        },
    },
    {
        # The live table's partials (game/jinja2.py says why they are Jinja2's).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "NAME": "jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "game.jinja2.environment"},
    },
]

# --- Services: database and channel layer ------------------------------------------------------

DATABASES = {
    "default": database_config(
        env_str("DATABASE_URL"),
        base_dir=BASE_DIR,
        pool_size=env_int("DB_POOL_SIZE", DEFAULT_DB_POOL_SIZE),
    )
}
CHANNEL_LAYERS = channel_layers_config(env_str("REDIS_URL"))
CACHES = caches_config(env_str("REDIS_URL"), key_prefix=env_str("CACHE_KEY_PREFIX") or "")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# How many HTTP requests run their middleware and view at once in one process
# (yourtrumps_site/serving/handler.py); the rest wait their turn on the event loop, holding no
# thread.
# On SQLite a few, so that the request holding the write lock is not starved of the GIL; on
# PostgreSQL requests wait on the database and Redis, and a bound only queued them (500 games on
# two processes: 40 moves/s unbounded, under 10 with 4), so none unless one is set. 0: no bound.
_SQLITE = DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
HTTP_THREADS = env_int("HTTP_THREADS", 4 if _SQLITE else 0)
# The sockets' database work runs on a pool of its own (Channels' ``executor=``), not on the one
# thread Channels shares among all of a process's sync code, behind which a crowd's logins, turns
# and pool arrivals queued for seconds. On SQLite one: its writes take turns anyway.
SOCKET_THREADS = env_int("SOCKET_THREADS", 1 if _SQLITE else 4) or 1
# What a request published is sent from the event loop once it has its answer: the live app's
# pair of functions that keep a thread's messages and send them, named for the serving package's
# handler (it imports no app).
SERVING_HELD_MESSAGES = ("game.live.held_messages", "game.live.send_held")
# Each answer's ``Server-Timing`` header: where its time went in the site's handler
# (yourtrumps_site/serving/handler.py), for a browser's developer tools and ``manage.py
# loadtest``. Off in production by default: it tells any client how busy the server is.
SERVER_TIMING = env_bool("SERVER_TIMING", default=DEBUG)

# --- Passwords -------------------------------------------------------------------------------

# The computer's replies: a pause before each (``COMPUTER_PAUSE_MS``, default 600 ms) so a
# person can follow; the reply is a task that runs once the pause has passed.
COMPUTER_PAUSE = env_int("COMPUTER_PAUSE_MS", 600) / 1000
# Game analyses (replays): thinking time per position (``ANALYSIS_MS``); each user may have this
# many queued or running at a time.
ANALYSIS_SECONDS = env_int("ANALYSIS_MS", 500) / 1000
ANALYSES_PER_USER = 2

# --- Background tasks: django-tasks, stored in the database (game/tasks.py, archive/tasks.py) --
# The computer's replies, the analyses and the flag checks have a queue each, so that a long
# analysis never delays a reply, nor a search a flag: a worker process serves one queue
# (`manage.py db_worker --queue-name computer`).
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["computer", "analysis", "clock"],
    }
}
TASK_WORKER = env_str("TASK_WORKER", "embedded")
if TASK_WORKER not in ("embedded", "external"):
    raise ImproperlyConfigured(f"TASK_WORKER must be embedded or external; got {TASK_WORKER!r}")
# How long an idle task worker sleeps before looking again (django-tasks-db's interval): a task
# starts within this of falling due. An idle look is one indexed read per queue.
TASK_POLL_SECONDS = env_int("TASK_POLL_MS", 500) / 1000
# What a task worker runs, on start and every 3 s, to ask again for the work of its queue that a
# crash lost (yourtrumps_site/serving/recovery.py): the apps' functions, by name, since the
# serving package imports no app.
SERVING_TASK_RECOVERIES = {
    "computer": ["game.tasks.ask_for_lost_replies"],
    "analysis": ["archive.tasks.resume_analyses"],
    "clock": ["game.tasks.ask_for_lost_flag_checks"],
}
# Where the tasks' searches and reviews run (game.cpu): the serving package's runner, which sends
# them to child processes under runserver's embedded workers; the apps never import it.
CPU_RUNNER = "yourtrumps_site.serving.cpu.run"

# --- Logging in: django-axes locks out password guessing --------------------------------------
# Axes' backend comes first and refuses a locked-out login before Django checks the password.
# A lockout counts failures per username from one address, for AXES_COOLOFF_TIME hours.

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's ModelBackend, under the name the players' sessions store (accounts.backends).
    "accounts.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = 1  # hour
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
AXES_RESET_ON_SUCCESS = True

# --- Abuse limits (accounts.limits): django-ratelimit's counts in the cache above ---------------
# Each limit counts one address's or one player's requests in a fixed window; the one past its
# rate is refused (429, with Retry-After). Numbers in lichess's spirit: it allows 10 sign-ups
# per address in 10 minutes (and 150 a day); a person needs one, a school behind one address a
# few an hour.
LIMIT_SIGNUPS = env_rate("LIMIT_SIGNUPS", "10/h")  # per address
LIMIT_INVITES = env_rate("LIMIT_INVITES", "20/h")  # invitation links opened per address
LIMIT_IMPORTS = env_rate("LIMIT_IMPORTS", "30/h")  # records imported per player
# Analyses asked per player; at most ANALYSES_PER_USER of them under way at once besides.
LIMIT_ANALYSES = env_rate("LIMIT_ANALYSES", "10/h")
LIMIT_REPORTS = env_rate("LIMIT_REPORTS", "10/d")  # reports sent per player
LIMIT_CHALLENGES = env_rate("LIMIT_CHALLENGES", "60/h")  # challenges sent per player
# Mail the site sends on request: no one makes it flood an address.
LIMIT_PASSWORD_RESETS = env_rate("LIMIT_PASSWORD_RESETS", "5/h")  # reset links asked per address
LIMIT_EMAIL_LINKS = env_rate("LIMIT_EMAIL_LINKS", "5/h")  # verification links per player
# Not a rate: how many games one player may have waiting for an opponent at once
# (game.services.starting).
LIMIT_OPEN_SEEKS = env_int("LIMIT_OPEN_SEEKS", 5)
# Whose address a request comes from: the connection's (REMOTE_ADDR) unless the site says it is
# behind a proxy of its own (TRUST_X_FORWARDED_FOR); the login lockout counts by the same.
TRUST_X_FORWARDED_FOR = env_bool("TRUST_X_FORWARDED_FOR", default=False)
RATELIMIT_IP_META_KEY = "accounts.limits.client_address"
AXES_CLIENT_IP_CALLABLE = "accounts.limits.client_address"

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "game:lobby"
LOGOUT_REDIRECT_URL = "game:home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Email: verification links and password resets (accounts) ------------------------------
# EMAIL_BACKEND and DEFAULT_FROM_EMAIL, and with EMAIL_HOST the SMTP server's settings.
globals().update(email_config())

# --- Languages -------------------------------------------------------------------------------

# A visitor's language: the one they chose in the menu (Django's language cookie, also set from
# their profile when they log in, accounts.views), else the browser's Accept-Language, else English.
# Each language is named in itself, as the menu shows it: a reader finds their own at a glance.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("gl", "Galego"),
    ("he", "עברית"),
    ("hy", "Հայերեն"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600  # a year, rather than until the browser closes
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static files ----------------------------------------------------------------------------
# WhiteNoise serves them under Daphne. Hashed, compressed files (which need `collectstatic`) in
# production only; the tests switch to plain storage (tests/conftest.py).

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Security when deployed ------------------------------------------------------------------

HTTPS = env_bool("HTTPS", default=not DEBUG)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
LANGUAGE_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
if env_bool("TRUST_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy (django-csp): scripts and styles from our own static files only, no
# inline script, no inline style and no eval. htmx keeps to that through the ``htmx-config`` meta
# tag in base.html (``allowEval`` off; no indicator styles, which it would add inline, as the
# site shows none; and no style among the attributes it copies to a swapped-in element).
# ``connect-src 'self'`` covers the game's websockets on the same host (CSP level 3).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# Permissions-Policy: yourtrumps_site.middleware.PERMISSIONS_POLICY, every feature off.
