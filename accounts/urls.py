from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from accounts import views
from accounts.forms import LoginForm

app_name = "accounts"

urlpatterns = [
    path("signup/", views.sign_up, name="signup"),
    path(
        "login/",
        views.LoginView.as_view(template_name="accounts/login.html", authentication_form=LoginForm),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/password_change.html",
            success_url=reverse_lazy("accounts:password_changed"),
        ),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_changed.html"),
        name="password_changed",
    ),
    # A forgotten password: Django's four views, the link sent only to a verified address.
    path("password/reset/", views.password_reset, name="password_reset"),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_sent.html"),
        name="password_reset_sent",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/password_reset_confirm.html",
            success_url=reverse_lazy("accounts:password_reset_done"),
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="accounts/password_reset_done.html"
        ),
        name="password_reset_done",
    ),
    path("players/leaderboard/<slug:speed>/", views.leaderboard, name="leaderboard"),
    path("players/<str:username>/", views.profile, name="profile"),
    path("language/", views.choose_language, name="language"),
    path("settings/", views.account_settings, name="settings"),
    path("settings/email/", views.email_change, name="email"),
    path("settings/email/again/", views.email_resend, name="email_resend"),
    path("settings/challenges/", views.challenges_from_change, name="challenges_from"),
    path("settings/close/", views.account_close, name="close"),
    path("email/<str:token>/", views.verify_email, name="verify_email"),
]
