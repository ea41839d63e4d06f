"""A read whose SQL is built once (``yourtrumps_site.prepared``)."""

import pytest
from django.contrib.auth import get_user_model

from yourtrumps_site.prepared import Prepared

pytestmark = pytest.mark.django_db


def test_a_prepared_read_builds_its_sql_once_and_reads_with_each_calls_values():
    users = get_user_model().objects
    alice, bob = users.create_user("alice"), users.create_user("bob")
    builds = []

    def build():
        builds.append(1)
        return users.filter(pk=0).order_by().values_list("username", "is_active")

    read = Prepared(build)
    assert read.first(alice.pk)[0] == "alice"
    assert read.first(bob.pk)[0] == "bob"
    assert read.first(-1) is None
    assert len(builds) == 1


def test_a_prepared_read_refuses_other_values_than_its_query_takes():
    users = get_user_model().objects
    read = Prepared(lambda: users.filter(pk=0, username="x").values_list("pk"))
    with pytest.raises(ValueError, match="takes 2 values, not 1"):
        read.first(1)
    assert read.first(-1, "x") is None
