from django.apps import AppConfig


class ServingConfig(AppConfig):
    """An app for its commands only (``runserver``, ``serve``, ``db_worker``): no models."""

    name = "yourtrumps_site.serving"
    label = "serving"
    verbose_name = "Serving"
