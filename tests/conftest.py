import pytest
from django.conf import settings


def pytest_configure(config: pytest.Config) -> None:
    """Tests serve static files as development does: from the apps' and static/ folders through
    the finders, in plain storage. (The compressed manifest storage used when DEBUG is false
    needs a `collectstatic` run first, and pytest-django runs the tests with DEBUG false.)"""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True
