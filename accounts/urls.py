from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from accounts import views
from accounts.forms import LoginForm

app_name = "accounts"

urlpatterns = [
    path("signup/", views.sign_up, name="signup"),
    path(
        "login/",
        views.LoginView.as_view(
            template_name="accounts/login.html", authentication_form=LoginForm
        ),
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
    path("players/<str:username>/", views.profile, name="profile"),
    path("language/", views.choose_language, name="language"),
]
