"""The settings' environment helpers, called directly (the settings module is not reloaded)."""

from pathlib import Path

import pytest
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.core.exceptions import ImproperlyConfigured
from django.db.utils import ConnectionHandler
from django.utils.module_loading import import_string

from yourtrumps_site.serving.channel_layer import EmbeddedChannelLayer
from yourtrumps_site.settings import (
    caches_config,
    channel_layers_config,
    database_config,
    email_config,
    env_bool,
    env_int,
    env_list,
    env_rate,
    secret_key,
)


def test_database_is_sqlite_in_the_project_when_database_url_is_unset(tmp_path: Path) -> None:
    config = database_config(None, base_dir=tmp_path)

    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["CONN_MAX_AGE"] is None  # each thread keeps its connection
    assert config["NAME"] == tmp_path / "db.sqlite3"
    assert config["TEST"]["NAME"] == tmp_path / "db.sqlite3-test"  # a file, not in memory


def test_sqlite_takes_concurrent_writers_in_turn(tmp_path: Path, django_db_blocker) -> None:
    """WAL, a busy timeout and BEGIN IMMEDIATE: writers queue instead of `database is locked`
    (tests/game/test_concurrency.py has 50 of them queue for real)."""
    config = database_config(None, base_dir=tmp_path)
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"

    # The options reach a real connection (the test database gets them too: TEST only renames).
    connection = ConnectionHandler({"default": config})["default"]
    try:
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone() == ("wal",)
            cursor.execute("PRAGMA synchronous")
            assert cursor.fetchone() == (1,)  # NORMAL
            cursor.execute("PRAGMA busy_timeout")
            assert cursor.fetchone() == (20_000,)
    finally:
        connection.close()


def test_database_is_postgresql_through_a_pool_when_database_url_is_set(tmp_path: Path) -> None:
    config = database_config("postgres://postgres:secret@127.0.0.1:5432/test", base_dir=tmp_path)

    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("test", "postgres", "secret")
    assert (config["HOST"], config["PORT"]) == ("127.0.0.1", 5432)
    pool = config["OPTIONS"]["pool"]
    assert (pool["min_size"], pool["max_size"], pool["timeout"]) == (2, 16, 10)
    assert config["CONN_MAX_AGE"] == 0  # Django refuses persistent connections beside a pool
    assert config["CONN_HEALTH_CHECKS"] is True  # the pool hands out only live connections


def test_postgresql_pool_is_sized_from_the_argument_and_keeps_url_options(tmp_path: Path) -> None:
    url = "postgres://postgres@db.example:5432/yt?sslmode=require"

    config = database_config(url, base_dir=tmp_path, pool_size=40)

    assert config["OPTIONS"]["sslmode"] == "require"
    assert config["OPTIONS"]["pool"]["max_size"] == 40
    assert database_config(url, base_dir=tmp_path, pool_size=1)["OPTIONS"]["pool"]["min_size"] == 1
    with pytest.raises(ImproperlyConfigured, match="DB_POOL_SIZE must be at least 1"):
        database_config(url, base_dir=tmp_path, pool_size=0)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://root@127.0.0.1/test", "must be a PostgreSQL URL"),
        ("127.0.0.1:5432/test", "must be a PostgreSQL URL"),
        ("postgres://postgres@127.0.0.1:5432", "must name a database"),
    ],
)
def test_database_url_that_is_not_postgresql_fails_loudly(
    url: str, message: str, tmp_path: Path
) -> None:
    with pytest.raises(ImproperlyConfigured, match=message):
        database_config(url, base_dir=tmp_path)


def test_channel_layer_is_in_memory_when_redis_url_is_unset() -> None:
    (layer,) = channel_layers_config(None).values()
    assert issubclass(import_string(layer["BACKEND"]), InMemoryChannelLayer)


async def test_the_in_memory_layer_sweeps_expired_messages_at_most_once_a_second() -> None:
    layer = EmbeddedChannelLayer(expiry=0)  # a message expires as soon as it is sent
    await layer.group_add("game-1", "test.socket")
    await layer.group_send("game-1", {"type": "game.changed"})  # the first sweep: nothing to do
    await layer.group_send("game-1", {"type": "game.changed"})  # within the second: no sweep
    assert layer.channels["test.socket"].qsize() == 2
    layer._swept_at -= layer.sweep_every  # a second later
    await layer.group_send("game-1", {"type": "game.changed"})
    # The sweep dropped the expired messages and, as Channels does, the channel's memberships.
    assert "test.socket" not in layer.channels and not layer.groups["game-1"]


def test_channel_layer_is_redis_pub_sub_when_redis_url_is_set() -> None:
    """Pub/sub: a process subscribes to its sockets' groups and channels, so there is no inbox
    in Redis to overflow (the list layer's capacity dropped group messages) and no group
    membership to expire."""
    layer = channel_layers_config("redis://127.0.0.1:6379/0")["default"]

    assert issubclass(import_string(layer["BACKEND"]), RedisPubSubChannelLayer)
    (host,) = layer["CONFIG"]["hosts"]
    assert host["address"] == "redis://127.0.0.1:6379/0"
    assert not {"capacity", "expiry", "group_expiry"} & set(layer["CONFIG"])


def test_redis_connections_fail_rather_than_hang_and_are_kept_alive_while_quiet() -> None:
    (host,) = channel_layers_config("redis://127.0.0.1:6379/0")["default"]["CONFIG"]["hosts"]

    assert 0 < host["socket_timeout"] < 60 and 0 < host["socket_connect_timeout"] < 60
    assert host["socket_keepalive"] is True and host["health_check_interval"] > 0


def test_the_cache_is_the_database_s_without_redis_and_django_s_redis_cache_with_it() -> None:
    embedded = caches_config(None)["default"]
    assert embedded["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"
    assert embedded["OPTIONS"]["MAX_ENTRIES"] >= 10_000  # a crowd's counts are kept

    shared = caches_config("redis://127.0.0.1:6379/0", key_prefix="site-a")["default"]
    assert shared["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert shared["LOCATION"] == "redis://127.0.0.1:6379/0" and shared["KEY_PREFIX"] == "site-a"
    assert 0 < shared["OPTIONS"]["socket_timeout"] < 60


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://127.0.0.1:6379/0", "must be a Redis URL"),
        ("127.0.0.1:6379", "must be a Redis URL"),
        ("redis:///0", "must name a host"),
    ],
)
def test_redis_url_that_is_not_redis_fails_loudly(url: str, message: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=message):
        channel_layers_config(url)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        *[(raw, True) for raw in ["true", "TRUE", "1", "yes", "on"]],
        *[(raw, False) for raw in ["false", "0", "No", "off"]],
    ],
)
def test_env_bool_reads_the_usual_spellings(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool
) -> None:
    monkeypatch.setenv("YT_FLAG", raw)

    assert env_bool("YT_FLAG", default=not expected) is expected


@pytest.mark.parametrize("raw", [None, "", "   "])
def test_env_bool_falls_back_to_the_default_when_unset_or_empty(
    monkeypatch: pytest.MonkeyPatch, raw: str | None
) -> None:
    if raw is None:
        monkeypatch.delenv("YT_FLAG", raising=False)
    else:
        monkeypatch.setenv("YT_FLAG", raw)

    assert env_bool("YT_FLAG", default=True) is True
    assert env_bool("YT_FLAG", default=False) is False


def test_env_bool_fails_loudly_on_anything_else(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YT_FLAG", "maybe")

    with pytest.raises(ImproperlyConfigured, match=r"YT_FLAG must be one of .*'maybe'"):
        env_bool("YT_FLAG", default=False)


def test_env_int(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YT_NUMBER", raising=False)
    assert env_int("YT_NUMBER", default=7) == 7

    monkeypatch.setenv("YT_NUMBER", "3600")
    assert env_int("YT_NUMBER", default=7) == 3600

    monkeypatch.setenv("YT_NUMBER", "an hour")
    with pytest.raises(ImproperlyConfigured, match="YT_NUMBER must be a whole number"):
        env_int("YT_NUMBER", default=7)

    monkeypatch.setenv("YT_NUMBER", "-1")
    with pytest.raises(ImproperlyConfigured, match="YT_NUMBER must not be negative"):
        env_int("YT_NUMBER", default=7)


def test_env_rate_takes_django_ratelimit_s_rates_and_fails_loudly_on_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("YT_RATE", raising=False)
    assert env_rate("YT_RATE", "10/h") == "10/h"
    for rate in ("5/s", "30/15m", "150/d"):
        monkeypatch.setenv("YT_RATE", rate)
        assert env_rate("YT_RATE", "10/h") == rate
    for wrong in ("ten an hour", "10/w", "10/0m", "10", "/h"):
        monkeypatch.setenv("YT_RATE", wrong)
        with pytest.raises(ImproperlyConfigured, match="YT_RATE must be a rate such as 10/h"):
            env_rate("YT_RATE", "10/h")


def test_env_list_splits_on_commas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YT_HOSTS", raising=False)
    assert env_list("YT_HOSTS", default=["localhost"]) == ["localhost"]

    monkeypatch.setenv("YT_HOSTS", " example.org, www.example.org ,")
    assert env_list("YT_HOSTS", default=["localhost"]) == ["example.org", "www.example.org"]


def test_env_list_fails_loudly_when_it_lists_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YT_HOSTS", " , ,")

    with pytest.raises(ImproperlyConfigured, match="YT_HOSTS must list at least one item"):
        env_list("YT_HOSTS", default=["localhost"])


def test_secret_key_has_a_development_default_only_under_debug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    assert secret_key(debug=True).startswith("django-insecure-")

    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set when DEBUG is false"):
        secret_key(debug=False)

    monkeypatch.setenv("SECRET_KEY", "a-real-secret")
    assert secret_key(debug=False) == "a-real-secret"


EMAIL_VARIABLES = (
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "DEFAULT_FROM_EMAIL",
)


@pytest.fixture
def email_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in EMAIL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_mail_is_printed_on_the_console_when_email_host_is_unset(
    email_env: pytest.MonkeyPatch,
) -> None:
    config = email_config()

    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert config["DEFAULT_FROM_EMAIL"] == "Your Trumps <noreply@localhost>"


def test_mail_goes_through_smtp_with_starttls_when_email_host_is_set(
    email_env: pytest.MonkeyPatch,
) -> None:
    email_env.setenv("EMAIL_HOST", "smtp.example.org")
    email_env.setenv("EMAIL_HOST_USER", "site")
    email_env.setenv("EMAIL_HOST_PASSWORD", "secret")
    email_env.setenv("DEFAULT_FROM_EMAIL", "Your Trumps <games@example.org>")

    config = email_config()

    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (config["EMAIL_HOST"], config["EMAIL_PORT"]) == ("smtp.example.org", 587)
    assert (config["EMAIL_HOST_USER"], config["EMAIL_HOST_PASSWORD"]) == ("site", "secret")
    assert (config["EMAIL_USE_TLS"], config["EMAIL_USE_SSL"]) == (True, False)
    assert config["EMAIL_TIMEOUT"] == 10  # a stuck server fails a send, not a request for ever
    assert (
        config["DEFAULT_FROM_EMAIL"] == config["SERVER_EMAIL"] == "Your Trumps <games@example.org>"
    )


def test_smtp_over_ssl_takes_its_own_port(email_env: pytest.MonkeyPatch) -> None:
    email_env.setenv("EMAIL_HOST", "smtp.example.org")
    email_env.setenv("DEFAULT_FROM_EMAIL", "games@example.org")
    email_env.setenv("EMAIL_USE_SSL", "true")

    config = email_config()

    assert (config["EMAIL_PORT"], config["EMAIL_USE_TLS"], config["EMAIL_USE_SSL"]) == (
        465,
        False,
        True,
    )
    email_env.setenv("EMAIL_PORT", "2465")
    assert email_config()["EMAIL_PORT"] == 2465


def test_smtp_settings_that_cannot_work_fail_loudly(email_env: pytest.MonkeyPatch) -> None:
    email_env.setenv("EMAIL_HOST", "smtp.example.org")
    with pytest.raises(ImproperlyConfigured, match="DEFAULT_FROM_EMAIL must be set"):
        email_config()

    email_env.setenv("DEFAULT_FROM_EMAIL", "games@example.org")
    email_env.setenv("EMAIL_USE_SSL", "true")
    email_env.setenv("EMAIL_USE_TLS", "true")
    with pytest.raises(ImproperlyConfigured, match="cannot both be true"):
        email_config()
