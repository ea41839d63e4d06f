from django.urls import path

from game import replay_views, views

app_name = "game"

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("play/", views.lobby, name="lobby"),
    path("play/seek/", views.seek_create, name="seek_create"),
    path("play/computer/", views.computer_create, name="computer_create"),
    path("games/", replay_views.archive, name="archive"),
    path("games/live/", views.watch, name="watch"),
    path("games/import/", replay_views.record_import, name="import"),
    path("games/<int:pk>/", views.table, name="table"),
    path("games/<int:pk>/replay/", replay_views.replay, name="replay"),
    path("games/<int:pk>/replay/record.txt", replay_views.record, name="record"),
    path("games/<int:pk>/replay/analyse/", replay_views.analyse, name="analyse"),
    path("records/<int:pk>/", replay_views.imported, name="imported"),
    path("records/<int:pk>/record.txt", replay_views.imported_record, name="imported_record"),
    path("records/<int:pk>/analyse/", replay_views.analyse_imported, name="analyse_imported"),
    path("games/<int:pk>/join/", views.seek_join, name="join"),
    path("games/<int:pk>/move/", views.move, name="move"),
    path("games/<int:pk>/rematch/", views.rematch, name="rematch"),
    path("games/<int:pk>/claim-timeout/", views.claim_timeout, name="claim_timeout"),
    path("games/<int:pk>/<slug:name>/", views.action, name="action"),
    path("invite/<str:token>/", views.invite, name="invite"),
]
