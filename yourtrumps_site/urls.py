"""The site's URLs: live play and the archive's pages at the root, Django's admin for
moderators. The archive's come first: a game's ``replay/`` would otherwise be taken for one of
the table's actions (``games/<pk>/<name>/``)."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("archive.urls")),
    path("", include("game.urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("moderation.urls")),
    path("admin/", admin.site.urls),
]
