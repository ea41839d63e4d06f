"""A read whose SQL is built once (``yourtrumps_site.serving.prepared``)."""

from datetime import datetime

import pytest
from django.contrib.auth import get_user_model

from game import services
from game.models import Game
from yourtrumps_site.serving.prepared import Prepared

pytestmark = pytest.mark.django_db


def test_a_prepared_read_builds_its_sql_once_and_reads_with_each_calls_values():
    users = get_user_model().objects
    alice, bob = users.create_user("alice"), users.create_user("bob")
    builds = []

    def build():
        builds.append(1)
        return users.filter(pk=0).order_by().values_list("username", "is_active")

    read = Prepared(build)
    assert read.first(alice.pk) == ("alice", True)  # the ORM's types: SQLite's 1 is True
    assert read.first(bob.pk) == ("bob", True)
    assert read.first(-1) is None
    assert len(builds) == 1


def test_a_prepared_read_gives_every_row_in_the_querys_order():
    users = get_user_model().objects
    first = users.create_user("carol")
    for name in ("alice", "bob"):
        users.create_user(name)
    read = Prepared(lambda: users.filter(pk__gte=0).order_by("username").values_list("username"))
    assert read.all(first.pk) == [("alice",), ("bob",), ("carol",)]
    assert read.all(first.pk + 1) == [("alice",), ("bob",)]
    assert read.all(first.pk + 3) == []


def test_a_prepared_read_makes_the_instance_the_orm_would_with_its_related_rows(alice, bob):
    seek = services.game_create_seek(user=alice, trump="S")
    game = services.game_join(game_id=seek.pk, user=bob, trump="H")
    read = Prepared(lambda: Game.objects.select_related("seat0", "seat1").filter(pk=0))

    prepared = read.instance(game.pk)
    orm = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)

    for field in Game._meta.concrete_fields:
        assert getattr(prepared, field.attname) == getattr(orm, field.attname), field.name
    assert isinstance(prepared.created_at, datetime)
    assert prepared._state.adding is False and prepared._state.db == "default"
    assert {prepared.seat0.username, prepared.seat1.username} == {"alice", "bob"}
    assert prepared.seat0 == orm.seat0 and prepared.seat1 == orm.seat1
    assert read.instance(-1) is None


def test_a_prepared_read_of_values_makes_no_instance(alice):
    read = Prepared(lambda: get_user_model().objects.filter(pk=0).values_list("username"))
    with pytest.raises(TypeError, match="does not read model instances"):
        read.instance(alice.pk)
