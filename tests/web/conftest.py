"""Players for the web tests."""

import pytest
from django.contrib.auth import get_user_model


@pytest.fixture
def alice():
    return get_user_model().objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob():
    return get_user_model().objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def carol():
    return get_user_model().objects.create_user("carol", password="pw-carol-123")
