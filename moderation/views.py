"""Pages: a player's report, a warning's acknowledgement, and the
moderators' pages (the queue, a report, a user, a game, the log) with their actions.

Views parse, call one service, and render or redirect with a message; a refused action comes back
as a message on the page it came from, never as an error page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.limits import Limit, limited
from chat.selectors import lines_of_game
from game.models import Game
from moderation import actions, services
from moderation.actions import Action, On, Text
from moderation.forms import LogFilterForm, ReasonForm, ReportForm, action_form
from moderation.models import ModeratorWarning, Report
from moderation.selectors import (
    is_moderator,
    moderation_log,
    open_reports,
    reports_about,
    user_file,
)
from moderation.services import ModerationError

User = get_user_model()


# --- Players ----------------------------------------------------------------------------------


#: Reports sent per player (``LIMIT_REPORTS``).
REPORTS = Limit(
    "reports",
    "LIMIT_REPORTS",
    key="user",
    message=gettext_lazy("You have sent too many reports for now."),
)


@login_required
@limited(REPORTS)
def report(request: HttpRequest, username: str) -> HttpResponse:
    """Report a player, from their profile or (with ``?game=``) from a game; never oneself."""
    reported = get_object_or_404(User, username=username)
    if reported.pk == request.user.pk:
        messages.error(request, _("You cannot report yourself."))
        return redirect("accounts:profile", reported.username)
    game_id = request.GET.get("game") or request.POST.get("game")
    game = Game.objects.filter(pk=game_id).first() if game_id and game_id.isdigit() else None
    form = ReportForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.report_create(
                reporter=request.user,
                reported=reported,
                game=game,
                reason=form.cleaned_data["reason"],
                text=form.cleaned_data["text"],
            )
        except ModerationError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, _("Thank you: the moderators will look at your report."))
            return redirect(
                game.get_absolute_url()
                if game
                else reverse("accounts:profile", args=[reported.username])
            )
    return render(
        request, "moderation/report_form.html", {"form": form, "reported": reported, "game": game}
    )


@login_required
@require_POST
def warning_acknowledge(request: HttpRequest, pk: int) -> HttpResponse:
    warning = get_object_or_404(ModeratorWarning, pk=pk, user=request.user)
    services.warning_acknowledge(user=request.user, warning_id=warning.pk)
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        target = reverse("game:lobby")
    return HttpResponseRedirect(target)  # a URL, never a view name (`redirect` would try one)


# --- Moderators -------------------------------------------------------------------------------


def moderator_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Log in first; then only moderators (and superusers) may pass."""

    @login_required
    def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if not is_moderator(request.user):
            raise PermissionDenied(_("Only moderators may open this page."))
        return view(request, *args, **kwargs)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


@moderator_required
def queue(request: HttpRequest) -> HttpResponse:
    """Open reports, oldest first, each with the reported user's latest games and chat."""
    reports = list(open_reports())
    files = {r.reported_id: user_file(r.reported, games=3, chat=3) for r in reports}
    entries = [(r, files[r.reported_id]) for r in reports]
    return render(request, "moderation/queue.html", {"entries": entries})


@dataclass(frozen=True)
class Offer:
    """An action a moderator may take on this target now, and where its button posts."""

    action: Action
    url: str


@dataclass(frozen=True)
class ActionForm:
    """The offered actions that share one form (and its reason): the first posts to the form's
    own address, the others by their buttons' ``formaction``."""

    form: ReasonForm
    offers: list[Offer]

    @property
    def heading(self) -> Text | None:
        return next((o.action.heading for o in self.offers if o.action.heading), None)

    @property
    def notes(self) -> list[Text]:
        return list(dict.fromkeys(o.action.help for o in self.offers if o.action.help))


def _action_url(action: Action, target: Any) -> str:
    key = target.username if action.on is On.USER else target.pk
    return reverse(f"moderation:{action.on}_action", args=[key, action.name])


def _action_forms(request: HttpRequest, on: On, target: Any) -> list[ActionForm]:
    """The registry's actions on ``target`` that this moderator may take and that apply to it
    now, grouped by the form they are asked on."""
    groups: dict[str, list[Offer]] = {}
    for action in actions.on(on):
        if action.allowed(request.user) and action.offered(target):
            groups.setdefault(action.form, []).append(Offer(action, _action_url(action, target)))
    return [
        ActionForm(action_form(offers[0].action, prefix=form), offers)
        for form, offers in groups.items()
    ]


@moderator_required
def report_detail(request: HttpRequest, pk: int) -> HttpResponse:
    report = get_object_or_404(Report.objects.select_related("reporter", "reported", "game"), pk=pk)
    context = {
        "report": report,
        "file": user_file(report.reported),
        "report_actions": report.actions.select_related("moderator"),
        "report_forms": _action_forms(request, On.REPORT, report),
        "user_forms": _action_forms(request, On.USER, report.reported),
    }
    return render(request, "moderation/report.html", context)


@moderator_required
def user_detail(request: HttpRequest, username: str) -> HttpResponse:
    user = get_object_or_404(User, username=username)
    context = {"file": user_file(user), "user_forms": _action_forms(request, On.USER, user)}
    return render(request, "moderation/user.html", context)


@moderator_required
def game_detail(request: HttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(Game.objects.select_related("seat0", "seat1"), pk=pk)
    context = {
        "game": game,
        "chat": lines_of_game(game.pk),
        "reports": reports_about(game),
        "actions": moderation_log().filter(game=game),
        "game_forms": _action_forms(request, On.GAME, game),
    }
    return render(request, "moderation/game.html", context)


def _back(request: HttpRequest, default: str) -> HttpResponse:
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        target = default
    return HttpResponseRedirect(target)  # a URL, never a view name (`redirect` would try one)


def _report_from(request: HttpRequest) -> Report | None:
    report_id = request.POST.get("report", "")
    return Report.objects.filter(pk=report_id).first() if report_id.isdigit() else None


def _act(
    request: HttpRequest, on: On, target: Any, name: str, *, report: Report | None = None
) -> bool:
    """Find the action called ``name`` on ``target``, check its form, call its service, and say
    how it went."""
    action = actions.find(on, name)
    if action is None:
        messages.error(request, _("Unknown action."))
        return False
    form = action_form(action, request.POST, prefix=action.form)
    if not form.is_valid():
        messages.error(request, _("Give a reason: it goes into the moderation log."))
        return False
    try:
        action.perform(moderator=request.user, target=target, report=report, **form.cleaned_data)
    except ModerationError as error:
        messages.error(request, str(error))
        return False
    messages.success(request, action.done % {"name": target, "pk": target.pk})
    return True


@moderator_required
@require_POST
def user_action(request: HttpRequest, username: str, name: str) -> HttpResponse:
    user = get_object_or_404(User, username=username)
    _act(request, On.USER, user, name, report=_report_from(request))
    return _back(request, reverse("moderation:user", args=[user.username]))


@moderator_required
@require_POST
def game_action(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    game = get_object_or_404(Game, pk=pk)
    _act(request, On.GAME, game, name, report=_report_from(request))
    return _back(request, reverse("moderation:game", args=[game.pk]))


@moderator_required
@require_POST
def report_action(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    """Close a report, then on to the queue; a refusal stays on the report, with its message."""
    report = get_object_or_404(Report, pk=pk)
    if _act(request, On.REPORT, report, name):
        return redirect("moderation:queue")
    return redirect("moderation:report_detail", report.pk)


@moderator_required
def log(request: HttpRequest) -> HttpResponse:
    """The moderation log, newest first, filtered by action, moderator, user or game."""
    form = LogFilterForm(request.GET or None)
    entries = moderation_log()
    if form.is_valid():
        data = form.cleaned_data
        if data["kind"]:
            entries = entries.filter(kind=data["kind"])
        if data["moderator"]:
            entries = entries.filter(moderator__username__iexact=data["moderator"].strip())
        if data["user"]:
            entries = entries.filter(user__username__iexact=data["user"].strip())
        if data["game"]:
            entries = entries.filter(game_id=data["game"])
    page = Paginator(entries, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "moderation/log.html",
        {"form": form, "page": page, "query": query.urlencode()},
    )
