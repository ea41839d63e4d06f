from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("players/<str:username>/report/", views.report, name="report"),
    path("warnings/<int:pk>/seen/", views.warning_acknowledge, name="warning_seen"),
    path("moderation/", views.queue, name="queue"),
    path("moderation/log/", views.log, name="log"),
    path("moderation/reports/<int:pk>/", views.report_detail, name="report_detail"),
    path("moderation/reports/<int:pk>/<slug:name>/", views.report_action, name="report_action"),
    path("moderation/users/<str:username>/", views.user_detail, name="user"),
    path("moderation/users/<str:username>/<slug:name>/", views.user_action, name="user_action"),
    path("moderation/games/<int:pk>/", views.game_detail, name="game"),
    path("moderation/games/<int:pk>/<slug:name>/", views.game_action, name="game_action"),
]
