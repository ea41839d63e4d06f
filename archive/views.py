"""The archive of finished games, the replay viewer, game records and the computer's analysis.

A step of the viewer is an htmx GET of the same URL with ``?ply=N``: the
response is the replay partial, rendered from the engine replaying the log,
and the browser's address follows (``hx-push-url``) so every ply can be shared.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.limits import Limit, limited
from archive import services
from archive.deals import deal_check
from archive.downloads import records_zip
from archive.forms import ArchiveForm, DealPartsForm, RecordForm
from archive.models import ImportedGame
from archive.replays import Replay, replay_of_game, replay_of_import
from archive.selectors import archive as archived_games
from archive.selectors import games_of
from game.models import Game
from game.services import GameError

GAMES_PER_PAGE = 25


def archive(request: HttpRequest) -> HttpResponse:
    form = ArchiveForm(request.GET or None)
    games = archived_games(**form.filters()) if form.is_valid() else archived_games()
    if form.is_bound and not form.is_valid():
        games = games.none()
    page = Paginator(games, GAMES_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "query": query.urlencode()}
    template = "archive/_archive_page.html" if request.htmx else "archive/archive.html"
    return render(request, template, context)


def _ply(request: HttpRequest, replay: Replay) -> int:
    """The ply asked for; the end of the game when absent or not a number."""
    try:
        return int(request.GET["ply"])
    except (KeyError, ValueError):
        return replay.last


def _show(request: HttpRequest, replay: Replay) -> HttpResponse:
    frame = replay.frame(_ply(request, replay))
    context = {"replay": replay, "frame": frame}
    template = "archive/_replay.html" if request.htmx else "archive/replay.html"
    return render(request, template, context)


def _finished(pk: int) -> Game:
    return get_object_or_404(
        Game.objects.select_related("seat0", "seat1"),
        pk=pk,
        status__in=(Game.Status.FINISHED, Game.Status.ABORTED),
    )


def replay(request: HttpRequest, pk: int) -> HttpResponse:
    game = Game.objects.filter(pk=pk).only("status").first()
    if game is not None and game.status in (Game.Status.ACTIVE, Game.Status.SEEKING):
        messages.info(request, _("This game is still in play: its replay opens when it is over."))
        return redirect("game:table", pk)
    return _show(request, replay_of_game(_finished(pk)))


def deal(request: HttpRequest, pk: int) -> HttpResponse:
    """A game's deal checked by anyone, logged in or not: once the game is over, its server
    secret against the commitment and the deal made again from the three parts, or from three
    pasted into the page's form; before, only the commitment. A seek never dealt has none."""
    game = get_object_or_404(Game.objects.select_related("seat0", "seat1"), pk=pk)
    if game.started_at is None:
        raise Http404
    context: dict[str, object] = {"game": game}
    if game.deal_revealed:
        own = {"secret": game.secret, "part0": game.part0, "part1": game.part1}
        form = DealPartsForm(request.GET or None, initial=own)
        asked = form.parts() if form.is_valid() else None
        context |= {"form": form, "check": deal_check(game, asked)}
    return render(request, "archive/deal.html", context)


def imported(request: HttpRequest, pk: int) -> HttpResponse:
    return _show(request, replay_of_import(get_object_or_404(ImportedGame, pk=pk)))


def _download(replay: Replay, name: str) -> HttpResponse:
    response = HttpResponse(replay.record.to_text(), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.txt"'
    return response


def record(request: HttpRequest, pk: int) -> HttpResponse:
    return _download(replay_of_game(_finished(pk)), f"yourtrumps-{pk}")


def imported_record(request: HttpRequest, pk: int) -> HttpResponse:
    imported = get_object_or_404(ImportedGame, pk=pk)
    return _download(replay_of_import(imported), f"yourtrumps-import-{pk}")


@login_required
def my_records(request: HttpRequest) -> HttpResponse:
    """All of one's own games over, as one zip file of records (from the settings page)."""
    name = f"yourtrumps-{request.user.get_username()}-{timezone.now().date().isoformat()}.zip"
    return HttpResponse(
        records_zip(games_of(request.user)),
        content_type="application/zip",
        headers={"Content-Disposition": content_disposition_header(True, name)},
    )


#: Records sent to import per player, or per address before logging in (``LIMIT_IMPORTS``).
IMPORTS = Limit(
    "imports",
    "LIMIT_IMPORTS",
    key="user_or_ip",
    message=gettext_lazy("You have imported too many records for now."),
)
#: Analyses asked per player (``LIMIT_ANALYSES``), of finished and imported games together.
ANALYSES = Limit(
    "analyses",
    "LIMIT_ANALYSES",
    key="user_or_ip",
    message=gettext_lazy("You have asked for too many analyses for now."),
)


@limited(IMPORTS)
def record_import(request: HttpRequest) -> HttpResponse:
    form = RecordForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        imported = services.imported_game_create(text=form.cleaned_data["text"], user=request.user)
        messages.success(request, _("The record is valid: here is the game."))
        return redirect(imported)
    return render(request, "archive/import.html", {"form": form})


def _analyse(request: HttpRequest, replay_url: str, **target: int) -> HttpResponse:
    """Ask for the analysis (logged-in users only, a few at a time each); a worker runs it."""
    try:
        services.analysis_request(user=request.user, seconds=settings.ANALYSIS_SECONDS, **target)
    except GameError as error:
        messages.error(request, str(error))
        return redirect(replay_url)
    ply = request.POST.get("ply", "")
    return redirect(f"{replay_url}?ply={ply}" if ply.isdigit() else replay_url)


@require_POST
@limited(ANALYSES)
def analyse(request: HttpRequest, pk: int) -> HttpResponse:
    _finished(pk)
    return _analyse(request, reverse("archive:replay", args=[pk]), game_id=pk)


@require_POST
@limited(ANALYSES)
def analyse_imported(request: HttpRequest, pk: int) -> HttpResponse:
    imported = get_object_or_404(ImportedGame, pk=pk)
    return _analyse(request, imported.get_absolute_url(), imported_id=pk)
