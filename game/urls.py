from django.urls import path

from game import views

app_name = "game"

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("play/", views.lobby, name="lobby"),
    path("play/seek/", views.seek_create, name="seek_create"),
    path("play/computer/", views.computer_create, name="computer_create"),
    path("games/live/", views.watch, name="watch"),
    path("games/<int:pk>/", views.table, name="table"),
    path("games/<int:pk>/join/", views.seek_join, name="join"),
    path("games/<int:pk>/move/", views.move, name="move"),
    path("games/<int:pk>/rematch/", views.rematch, name="rematch"),
    path("games/<int:pk>/claim-timeout/", views.claim_timeout, name="claim_timeout"),
    path("games/<int:pk>/chat/mute/", views.chat_mute, name="chat_mute"),
    path("games/<int:pk>/<slug:name>/", views.action, name="action"),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("challenges/", views.challenges_page, name="challenges"),
    path("challenges/<int:pk>/accept/", views.challenge_accept, name="challenge_accept"),
    path("challenges/<int:pk>/decline/", views.challenge_decline, name="challenge_decline"),
    path("challenges/<int:pk>/cancel/", views.challenge_cancel, name="challenge_cancel"),
    path("players/<str:username>/challenge/", views.challenge_create, name="challenge_create"),
]
