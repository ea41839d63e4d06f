"""Settings of the Your Trumps site, read from the environment with embedded defaults.

With nothing set, the site runs on its own: SQLite (``db.sqlite3`` beside ``manage.py``) and the
in-memory channel layer. Setting ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` (channels-redis)
lets several Daphne processes share one database and one channel layer.

Environment variables:

- ``DEBUG``: ``true``/``false`` (also ``1``/``0``, ``yes``/``no``, ``on``/``off``); default true.
- ``SECRET_KEY``: required when ``DEBUG`` is false; a development key is used otherwise.
- ``ALLOWED_HOSTS``: comma-separated host names; default ``localhost,127.0.0.1``.
- ``CSRF_TRUSTED_ORIGINS``: comma-separated origins (``https://example.org``); default none.
- ``DATABASE_URL``: ``postgres://user:password@host:5432/name``; unset means SQLite.
- ``REDIS_URL``: ``redis://host:6379/0``; unset means the in-memory channel layer.
- ``HTTPS``: secure cookies and a redirect to https; default true when ``DEBUG`` is false.
- ``TRUST_X_FORWARDED_PROTO``: trust a proxy's ``X-Forwarded-Proto`` header; default false.
- ``SECURE_HSTS_SECONDS``: the HSTS max-age; default 0 (off).

A value that cannot be understood stops the start-up with ``ImproperlyConfigured`` naming the
variable, rather than falling back to a default.
"""

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

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


_POSTGRES_SCHEMES = frozenset({"postgres", "postgresql"})
_REDIS_SCHEMES = frozenset({"redis", "rediss", "unix"})


def database_config(url: str | None, *, base_dir: Path) -> dict[str, Any]:
    """The default database: PostgreSQL from ``url``, or SQLite in ``base_dir`` without one.

    The SQLite test database is a file (not in-memory) so that live-server tests, whose server
    runs in another thread or process, see the same data.
    """
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": base_dir / "db.sqlite3",
            "TEST": {"NAME": base_dir / "db.sqlite3-test"},
        }
    parts = urlsplit(url)
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise ImproperlyConfigured(
            "DATABASE_URL must be a PostgreSQL URL such as "
            f"postgres://user@127.0.0.1:5432/name; got the scheme {parts.scheme!r}"
        )
    if not parts.path.strip("/"):
        raise ImproperlyConfigured("DATABASE_URL must name a database: postgres://host:5432/name")
    return dict(dj_database_url.parse(url))


def channel_layers_config(url: str | None) -> dict[str, Any]:
    """The channel layers: channels-redis on ``url``, or the in-memory layer without one.

    The in-memory layer only reaches consumers in the same process: fine for one Daphne process,
    wrong for several.
    """
    if not url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    parts = urlsplit(url)
    if parts.scheme not in _REDIS_SCHEMES:
        raise ImproperlyConfigured(
            f"REDIS_URL must be a Redis URL such as redis://127.0.0.1:6379/0; got the scheme "
            f"{parts.scheme!r}"
        )
    if parts.scheme != "unix" and not parts.hostname:
        raise ImproperlyConfigured("REDIS_URL must name a host: redis://host:6379/0")
    return {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [url]},
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
SECRET_KEY = secret_key(debug=DEBUG)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",  # first, so that `runserver` is Daphne's ASGI server
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "game",
    "accounts",
    "moderation",  # after game: its admin extends the game's
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
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
]

# --- Services: database and channel layer ------------------------------------------------------

DATABASES = {"default": database_config(env_str("DATABASE_URL"), base_dir=BASE_DIR)}
CHANNEL_LAYERS = channel_layers_config(env_str("REDIS_URL"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Passwords -------------------------------------------------------------------------------

# The computer's replies: a pause before each (``COMPUTER_PAUSE_MS``, default 600 ms) so a
# person can follow, and the processes its searches run in.
COMPUTER_PAUSE = env_int("COMPUTER_PAUSE_MS", 600) / 1000
COMPUTER_WORKERS = 1
# Game analyses (replays): thinking time per position (``ANALYSIS_MS``), in their own pool so
# that they never delay a computer's reply.
ANALYSIS_SECONDS = env_int("ANALYSIS_MS", 500) / 1000
ANALYSIS_WORKERS = 1

# --- Logging in: django-axes locks out password guessing --------------------------------------
# Axes' backend comes first and refuses a locked-out login before Django checks the password.
# A lockout counts failures per username from one address, for AXES_COOLOFF_TIME hours.

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = 1  # hour
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
AXES_RESET_ON_SUCCESS = True

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "game:lobby"
LOGOUT_REDIRECT_URL = "game:home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Languages -------------------------------------------------------------------------------

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("gl", _("Galician")),
    ("he", _("Hebrew")),
    ("hy", _("Armenian")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
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
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", default=0)
if env_bool("TRUST_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
