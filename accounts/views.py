"""Sign up, profiles with their ratings, the leaderboards, logging in, the language menu and a
player's settings (their email address, closing their account); logging out, changing and
resetting a password are Django's own views (``accounts.urls``)."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from accounts import backends, selectors, services
from accounts.charts import history_chart
from accounts.forms import (
    AccountCloseForm,
    ChallengesFromForm,
    EmailForm,
    PasswordResetForm,
    SignUpForm,
)
from accounts.limits import Limit, limited
from accounts.models import Profile
from accounts.ratings import Speed
from accounts.selectors import challenges_from, email_verified, is_closed
from accounts.services import AccountError, profile_set_language


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


def site_url(request: HttpRequest) -> str:
    """The site's address as this request reached it, for links sent by email."""
    return f"{request.scheme}://{request.get_host()}"


def _link_sent(request: HttpRequest, email: str) -> None:
    # The address isolated (Unicode's isolate marks), so that a right-to-left sentence leaves it
    # alone, as the templates' ``bdi`` filter does.
    isolated = f"\N{FIRST STRONG ISOLATE}{email}\N{POP DIRECTIONAL ISOLATE}"
    messages.success(
        request,
        _("We sent a link to %(email)s: follow it to verify the address.") % {"email": isolated},
    )


#: Sign-ups from one address (``LIMIT_SIGNUPS``): every form sent counts.
SIGNUPS = Limit(
    "signups",
    "LIMIT_SIGNUPS",
    key="ip",
    message=gettext_lazy("Too many sign-ups have come from your address."),
)


#: Password reset links asked for from one address (``LIMIT_PASSWORD_RESETS``), found or not.
PASSWORD_RESETS = Limit(
    "password-resets",
    "LIMIT_PASSWORD_RESETS",
    key="ip",
    message=gettext_lazy("Too many password resets have been asked for from your address."),
)
#: Verification links one player has sent (``LIMIT_EMAIL_LINKS``): a new address, or again.
EMAIL_LINKS = Limit(
    "email-links",
    "LIMIT_EMAIL_LINKS",
    key="user",
    message=gettext_lazy("You have asked for too many verification links for now."),
)

#: Django's password reset, its link sent only to a verified address (``PasswordResetForm``).
password_reset = limited(PASSWORD_RESETS)(
    auth_views.PasswordResetView.as_view(
        form_class=PasswordResetForm,
        template_name="accounts/password_reset.html",
        subject_template_name="accounts/email/password_reset_subject.txt",
        email_template_name="accounts/email/password_reset.txt",
        success_url=reverse_lazy("accounts:password_reset_sent"),
    )
)


@limited(SIGNUPS)
def sign_up(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.user_sign_up(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data["email"],
            language=translation.get_language() or "",
            site_url=site_url(request),
        )
        login(request, user, backend=backends.PATH)
        if user.email:
            _link_sent(request, user.email)
        return redirect("game:lobby")
    return render(request, "accounts/signup.html", {"form": form})


def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's page: their rating in each speed they have played rated games in, each with
    its history drawn; their games come from the game app's ``player_games`` tag. A closed
    account's page says only that."""
    player = get_object_or_404(get_user_model(), username=username)
    closed = is_closed(player)
    rated = [] if closed else selectors.player_ratings(player, timezone.now())
    ratings = [
        (rating, history_chart(selectors.rating_history(player, rating.speed))) for rating in rated
    ]
    context = {"player": player, "closed": closed, "ratings": ratings}
    return render(request, "accounts/profile.html", context)


def leaderboard(request: HttpRequest, speed: str) -> HttpResponse:
    """The best established ratings in one speed, with the other speeds a tab away."""
    try:
        chosen = Speed(speed)
    except ValueError:
        raise Http404 from None
    board = selectors.leaderboard(chosen, timezone.now())
    context = {"speed": chosen, "speeds": list(Speed), "board": board}
    return render(request, "accounts/leaderboard.html", context)


def _settings_page(
    request: HttpRequest,
    email_form: EmailForm | None = None,
    close_form: AccountCloseForm | None = None,
) -> HttpResponse:
    """The settings page, with a refused form's errors where there is one."""
    user = request.user
    context = {
        "email_form": email_form or EmailForm(initial={"email": user.email}, auto_id="email_%s"),
        "close_form": close_form or AccountCloseForm(user, auto_id="close_%s"),
        "challenges_form": ChallengesFromForm(
            initial={"challenges_from": challenges_from(user)}, auto_id="challenges_%s"
        ),
        "email_verified": email_verified(user),
    }
    refused = email_form is not None or close_form is not None
    return render(request, "accounts/settings.html", context, status=400 if refused else 200)


@login_required
def account_settings(request: HttpRequest) -> HttpResponse:
    """One's own settings: the email address and its proof, the password, one's games as
    records, and closing the account."""
    return _settings_page(request)


@login_required
@require_POST
@limited(EMAIL_LINKS)
def email_change(request: HttpRequest) -> HttpResponse:
    form = EmailForm(request.POST, auto_id="email_%s")
    if not form.is_valid():
        return _settings_page(request, email_form=form)
    email = form.cleaned_data["email"]
    changed = services.email_change(user=request.user, email=email, site_url=site_url(request))
    if not changed:
        messages.info(request, _("Your email address is unchanged."))
    elif email:
        _link_sent(request, request.user.email)
    else:
        messages.success(request, _("Your email address is removed."))
    return redirect("accounts:settings")


@login_required
@require_POST
def challenges_from_change(request: HttpRequest) -> HttpResponse:
    """Whose challenges one hears: everyone, players near one's rating, or no one."""
    form = ChallengesFromForm(request.POST)
    if form.is_valid():
        services.profile_set_challenges_from(
            user=request.user, choice=form.cleaned_data["challenges_from"]
        )
        messages.success(request, _("Your choice of who may challenge you is saved."))
    return redirect("accounts:settings")


@login_required
@require_POST
@limited(EMAIL_LINKS)
def email_resend(request: HttpRequest) -> HttpResponse:
    try:
        services.email_verification_resend(user=request.user, site_url=site_url(request))
    except AccountError as error:
        messages.error(request, str(error))
    else:
        _link_sent(request, request.user.email)
    return redirect("accounts:settings")


def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link sent to an address: following it proves the address is the player's."""
    try:
        user = services.email_verify(token=token)
    except AccountError as error:
        return render(request, "accounts/email_verified.html", {"error": error}, status=400)
    return render(request, "accounts/email_verified.html", {"email": user.email})


@login_required
@require_POST
def account_close(request: HttpRequest) -> HttpResponse:
    """Close one's account, once the password confirms it; then one is logged out."""
    form = AccountCloseForm(request.user, request.POST, auto_id="close_%s")
    if not form.is_valid():
        return _settings_page(request, close_form=form)
    services.account_close(user=request.user)
    logout(request)
    messages.success(request, _("Your account is closed. Thank you for the games."))
    return redirect("game:home")
