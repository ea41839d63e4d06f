"""Sign up, profiles, logging in and the language menu; logging out and changing a password are
Django's own views."""

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.forms import Form
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from accounts import backends
from accounts.forms import SignUpForm
from accounts.limits import Limit, limited
from accounts.models import Profile
from accounts.services import profile_set_language, user_sign_up


def remember_language(response: HttpResponseBase, language: str) -> None:
    """Have this browser show the site in ``language`` from now on (Django's language cookie,
    set as ``set_language`` sets it)."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


@require_POST
def choose_language(request: HttpRequest) -> HttpResponse:
    """The language menu (base.html): Django's ``set_language`` remembers the choice in this
    browser and goes back to the page; a logged-in player's profile keeps it for other browsers."""
    response = set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        profile_set_language(user=request.user, language=language)
    return response


class LoginView(auth_views.LoginView):
    """Django's login, which then shows the site in the player's own language, if they chose one
    (on another browser, say)."""

    def form_valid(self, form: Form) -> HttpResponse:
        response = super().form_valid(form)
        profile = Profile.objects.filter(user=self.request.user).first()
        if profile and profile.language:
            remember_language(response, profile.language)
        return response


#: Sign-ups from one address (``LIMIT_SIGNUPS``): every form sent counts.
SIGNUPS = Limit(
    "signups",
    "LIMIT_SIGNUPS",
    key="ip",
    message=gettext_lazy("Too many sign-ups have come from your address."),
)


@limited(SIGNUPS)
def sign_up(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = user_sign_up(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data["email"],
            language=translation.get_language() or "",
        )
        login(request, user, backend=backends.PATH)
        return redirect("game:lobby")
    return render(request, "accounts/signup.html", {"form": form})


def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's page; their games come from the game app's ``player_games`` tag."""
    player = get_object_or_404(get_user_model(), username=username)
    return render(request, "accounts/profile.html", {"player": player})
