"""The site's URLs: the game's pages at the root, Django's admin for moderators."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("game.urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("moderation.urls")),
    path("admin/", admin.site.urls),
]
