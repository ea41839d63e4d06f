"""Sign up and profiles; logging in and out and changing a password are Django's own views."""

from django.contrib.auth import get_user_model, login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from accounts.forms import SignUpForm
from accounts.services import user_sign_up
from game.selectors import player_record, recent_games


def sign_up(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = user_sign_up(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data["email"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("game:lobby")
    return render(request, "accounts/signup.html", {"form": form})


def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(get_user_model(), username=username)
    return render(
        request,
        "accounts/profile.html",
        {"player": player, "record": player_record(player), "games": recent_games(player)},
    )
