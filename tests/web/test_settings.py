"""The settings' environment helpers, called directly (the settings module is not reloaded)."""

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from yourtrumps_site.settings import (
    channel_layers_config,
    database_config,
    env_bool,
    env_int,
    env_list,
    secret_key,
)


def test_database_is_sqlite_in_the_project_when_database_url_is_unset(tmp_path: Path) -> None:
    config = database_config(None, base_dir=tmp_path)

    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == tmp_path / "db.sqlite3"
    assert config["TEST"]["NAME"] == tmp_path / "db.sqlite3-test"  # a file, not in memory


def test_database_is_postgresql_when_database_url_is_set(tmp_path: Path) -> None:
    config = database_config("postgres://postgres:secret@127.0.0.1:5432/test", base_dir=tmp_path)

    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("test", "postgres", "secret")
    assert (config["HOST"], config["PORT"]) == ("127.0.0.1", 5432)


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
    assert channel_layers_config(None) == {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}
    }


def test_channel_layer_is_redis_when_redis_url_is_set() -> None:
    assert channel_layers_config("redis://127.0.0.1:6379/0") == {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": ["redis://127.0.0.1:6379/0"]},
        }
    }


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
