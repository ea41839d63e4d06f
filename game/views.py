"""Pages and htmx partials: parse the request, call one service, render.

Moves and actions arrive as POSTs (htmx, or plain forms without JavaScript).
An htmx request gets the table partial back; a refused move comes back as a
message in that partial, never as an error page.
"""

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts.limits import Limit, limited, too_many
from chat import services as chat_services
from chat.selectors import chat_for
from game import challenges
from game.engine import fairness
from game.forms import ChallengeForm, ComputerForm, DeclineForm, GameOptionsForm, JoinForm, SeekForm
from game.models import Game
from game.pool import pool_clocks
from game.selectors import (
    challenges_answered,
    chat_room,
    games_being_played,
    games_in_play,
    lobby_seeks,
)
from game.services import GameError
from game.services.dealing import deal_secret
from game.services.endings import (
    game_abort,
    game_claim_abandoned,
    game_claim_timeout,
    game_decline_draw,
    game_offer_draw,
    game_resign,
)
from game.services.play import game_play_move
from game.services.starting import (
    TooManySeeks,
    game_cancel_seek,
    game_create_seek,
    game_create_vs_computer,
    game_join,
    game_rematch,
)
from game.table_markup import render_table
from game.tables import table_for
from game.templatetags.challenges import notices_html


def home(request: HttpRequest) -> HttpResponse:
    """The front page: what the game is and its rules."""
    return render(request, "game/home.html")


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever a page links: send them to the site's icon."""
    return redirect(static("img/favicon.svg"), permanent=True)


#: The session's key for the secret of the visitor's next game: its commitment is shown with the
#: lobby's forms, before the browser sends its part of the deal with one of them.
NEXT_SECRET = "next_deal_secret"


def _next_commitment(request: HttpRequest) -> str:
    """The commitment to the secret of the visitor's next game, drawn on their first visit."""
    if NEXT_SECRET not in request.session:
        request.session[NEXT_SECRET] = deal_secret()
    return fairness.commitment(request.session[NEXT_SECRET])


def lobby(request: HttpRequest) -> HttpResponse:
    seeks, more = lobby_seeks()
    return render(
        request,
        "game/lobby.html",
        {
            "seeks": seeks,
            "more_seeks": more,
            "mine": games_in_play(request.user) if request.user.is_authenticated else (),
            "commitment": _next_commitment(request) if request.user.is_authenticated else "",
            # Two forms on one page: ids of their own, or a label ticks the other form's box.
            "seek_form": SeekForm(auto_id="seek_%s"),
            "computer_form": ComputerForm(auto_id="computer_%s"),
            "pool_clocks": pool_clocks(),
        },
    )


def watch(request: HttpRequest) -> HttpResponse:
    """Games being played now, each a table to watch; the list refreshes itself."""
    return render(request, "game/watch.html", {"games": games_being_played()})


def _create_game(
    request: HttpRequest, form: GameOptionsForm, create: Callable[[GameOptionsForm], Game]
) -> HttpResponse:
    """Check a new game's form, create the game with ``create``, and go to its table; a player
    with too many seeks waiting is refused with a 429."""
    if not form.is_valid():
        # Each problem says why, in the player's language.
        return _refuse(request, [str(p) for problems in form.errors.values() for p in problems])
    try:
        game = create(form)
    except TooManySeeks as error:
        return too_many(request, str(error))
    except GameError as error:
        return _refuse(request, [str(error)])
    request.session.pop(NEXT_SECRET, None)  # used: the next game has a secret of its own
    return _go(request, game.get_absolute_url())


def _refuse(request: HttpRequest, problems: list[str]) -> HttpResponse:
    """A lobby form's problems: for htmx, notices shown in the form; else messages on the lobby."""
    if request.htmx:
        return render(request, "game/_notices.html", {"notices": problems})
    for problem in problems:
        messages.error(request, problem)
    return redirect("game:lobby")


@login_required
@require_POST
def seek_create(request: HttpRequest) -> HttpResponse:
    def create(form: GameOptionsForm) -> Game:
        data = form.cleaned_data
        return game_create_seek(
            user=request.user,
            trump=data["trump"],
            options=data["options"],
            private=data["private"],
            part=data["part"],
            secret=request.session.get(NEXT_SECRET, ""),
        )

    return _create_game(request, SeekForm(request.POST), create)


@login_required
@require_POST
def computer_create(request: HttpRequest) -> HttpResponse:
    def create(form: GameOptionsForm) -> Game:
        data = form.cleaned_data
        return game_create_vs_computer(
            user=request.user,
            level=data["level"],
            trump=data["trump"],
            options=data["options"],
            part=data["part"],
            secret=request.session.get(NEXT_SECRET, ""),
        )

    return _create_game(request, ComputerForm(request.POST), create)


@login_required
@require_POST
def seek_join(request: HttpRequest, pk: int) -> HttpResponse:
    """Join an open seek by its id (the lobby, a shared table); a private game refuses this way
    in: its invitee joins through the invitation link (:func:`invite`)."""
    form = JoinForm(request.POST)
    try:
        if not form.is_valid():
            raise GameError(_("Choose your trump suit."))
        data = form.cleaned_data
        game = game_join(game_id=pk, user=request.user, trump=data["trump"], part=data["part"])
    except GameError as error:
        return _answer(request, pk, str(error))
    return _go(request, game.get_absolute_url())


def _go(request: HttpRequest, url: str) -> HttpResponse:
    """Send the browser to ``url``: a redirect, or for htmx its ``HX-Redirect`` header."""
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


#: Invitation links opened from one address (``LIMIT_INVITES``), found or not: a token is not
#: to be guessed by trying many.
INVITES = Limit(
    "invites",
    "LIMIT_INVITES",
    key="ip",
    message=gettext_lazy("Too many invitation links have been opened from your address."),
    methods=("GET", "POST"),
)


@require_http_methods(["GET", "POST"])
@limited(INVITES)
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link. For a private game still waiting, its invitee sees who invites them
    and a form to join that posts back here, so the token travels with it; anyone else (the
    creator, or once the game is under way) goes to the table."""
    game = get_object_or_404(Game.objects.select_related("seat0"), invite_token=token)
    waiting = game.private and game.status == Game.Status.SEEKING
    if not waiting or game.seat0_id == request.user.pk:
        return redirect("game:table", game.pk)
    if request.method == "GET":
        return render(request, "game/invite.html", {"game": game, "join_form": JoinForm()})
    if not request.user.is_authenticated:
        return redirect_to_login(request.path)
    form = JoinForm(request.POST)
    try:
        if not form.is_valid():
            raise GameError(_("Choose your trump suit."))
        game_join(
            game_id=game.pk,
            user=request.user,
            trump=form.cleaned_data["trump"],
            invite_token=token,
            part=form.cleaned_data["part"],
        )
    except GameError as error:
        messages.error(request, str(error))
        return redirect(request.path)
    return _go(request, game.get_absolute_url())


def table(request: HttpRequest, pk: int) -> HttpResponse:
    """The table page; an htmx request (a refresh) gets the partial."""
    game = get_object_or_404(Game.objects.select_related("seat0", "seat1"), pk=pk)
    view = table_for(game, game.seat_of(request.user))
    html = render_table(view, request=request)
    if request.htmx:
        return HttpResponse(html)
    return render(request, "game/table.html", {"table": view, "table_html": html})


#: Sent by a table page while its websocket is open (static/js/table.js): the socket brings
#: the new table to every page of the game, the mover's too, in version order, so the answer
#: to a change that landed is empty rather than a second copy of that table.
LIVE_HEADER = "X-Table-Live"


def _answer(request: HttpRequest, pk: int, error: str | None = None) -> HttpResponse:
    """After a POST: the fresh table partial for htmx (nothing when its socket brings it), the
    page otherwise."""
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect("game:table", pk)
    if error is None and request.headers.get(LIVE_HEADER):
        return HttpResponse(status=204)
    game = get_object_or_404(Game.objects.select_related("seat0", "seat1"), pk=pk)
    view = table_for(game, game.seat_of(request.user))
    return HttpResponse(render_table(view, request=request, error=error))


@require_POST
def move(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        expected_ply = int(request.POST.get("ply", ""))
    except ValueError:
        return _answer(request, pk, _("The turn came without its ply: reload the page."))
    try:
        game_play_move(
            game_id=pk,
            user=request.user,
            notation=request.POST.get("move", ""),
            expected_ply=expected_ply,
        )
    except GameError as error:
        return _answer(request, pk, str(error))
    return _answer(request, pk)


ACTIONS = {
    "resign": game_resign,
    "abort": game_abort,
    "offer-draw": game_offer_draw,
    "decline-draw": game_decline_draw,
    "cancel": game_cancel_seek,
    "claim-abandoned": game_claim_abandoned,
}


@require_POST
def action(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    service = ACTIONS.get(name)
    if service is None:
        return _answer(request, pk, _("Unknown action."))
    try:
        service(game_id=pk, user=request.user)
    except GameError as error:
        return _answer(request, pk, str(error))
    return _answer(request, pk)


@require_POST
def claim_timeout(request: HttpRequest, pk: int) -> HttpResponse:
    """A browser saw the running clock reach zero: the server judges (anyone may ask)."""
    game_claim_timeout(game_id=pk)
    return _answer(request, pk)


@require_POST
def rematch(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        game = game_rematch(game_id=pk, user=request.user)
    except GameError as error:
        return _answer(request, pk, str(error))
    if game is None:  # asked for: the opponent's answer starts it
        return _answer(request, pk)
    return _go(request, game.get_absolute_url())


@login_required
@require_POST
def chat_mute(request: HttpRequest, pk: int) -> HttpResponse:
    """A player mutes (or unmutes) their opponent's chat; htmx gets the chat panel back."""
    game = get_object_or_404(Game.objects.select_related("seat0", "seat1"), pk=pk)
    room = chat_room(game)
    opponent = room.opponent_of(request.user)
    if opponent is None:
        raise PermissionDenied(_("Only the players of this game can mute their opponent."))
    try:
        chat_services.chat_mute_set(
            user=request.user, other=opponent, muted=request.POST.get("mute") == "on"
        )
    except chat_services.ChatError as error:
        messages.error(request, str(error))
    if request.htmx:
        return render(request, "chat/_chat.html", {"chat": chat_for(room, request.user)})
    return redirect(game.get_absolute_url())


# --- Challenges ----------------------------------------------------------------------------------


@login_required
def challenges_page(request: HttpRequest) -> HttpResponse:
    """One's challenges that are over, made and received; those waiting are on every page
    (``#challenges``), with their forms, which work without JavaScript too."""
    return render(request, "game/challenges.html", {"answered": challenges_answered(request.user)})


def _challenge_answer(
    request: HttpRequest, error: str | None = None, done: str = ""
) -> HttpResponse:
    """After a challenge's POST: for htmx the page's ``#challenges`` as it now stands (with why
    the POST was refused); without it, the challenges page, saying what happened."""
    if request.htmx:
        return HttpResponse(notices_html(request.user, request=request, error=error))
    if error:
        messages.error(request, error)
    elif done:
        messages.success(request, done)
    return redirect("game:challenges")


def _problems(form: forms.Form) -> str:
    return " ".join(str(problem) for problems in form.errors.values() for problem in problems)


#: Challenges sent per player (``LIMIT_CHALLENGES``): a challenge shows on its player's every
#: page, and one player may send each other one at a time, but not everyone one after another.
CHALLENGES = Limit(
    "challenges",
    "LIMIT_CHALLENGES",
    key="user",
    message=gettext_lazy("You have sent too many challenges for now."),
)


@login_required
@require_POST
@limited(CHALLENGES)
def challenge_create(request: HttpRequest, username: str) -> HttpResponse:
    challenged = get_object_or_404(get_user_model(), username=username)
    form = ChallengeForm(request.POST)
    if not form.is_valid():
        return _challenge_answer(request, _problems(form))
    data = form.cleaned_data
    # No part of the deal from this form: the deal's secret is drawn when the challenge is
    # accepted, after this part would have arrived, and a part the server saw first proves
    # nothing, so the server draws both.
    try:
        challenges.challenge_create(
            challenger=request.user,
            challenged=challenged,
            trump=data["trump"],
            options=data["options"],
        )
    except GameError as error:
        return _challenge_answer(request, str(error))
    return _challenge_answer(request, done=_("Your challenge is sent."))


@login_required
@require_POST
def challenge_accept(request: HttpRequest, pk: int) -> HttpResponse:
    form = JoinForm(request.POST)
    try:
        if not form.is_valid():
            raise GameError(_("Choose your trump suit."))
        trump = form.cleaned_data["trump"]
        game = challenges.challenge_accept(challenge_id=pk, user=request.user, trump=trump)
    except GameError as error:
        return _challenge_answer(request, str(error))
    return _go(request, game.get_absolute_url())


@login_required
@require_POST
def challenge_decline(request: HttpRequest, pk: int) -> HttpResponse:
    form = DeclineForm(request.POST)
    if not form.is_valid():
        return _challenge_answer(request, _problems(form))
    reason = form.cleaned_data["reason"]
    try:
        challenges.challenge_decline(challenge_id=pk, user=request.user, reason=reason)
    except GameError as error:
        return _challenge_answer(request, str(error))
    return _challenge_answer(request, done=_("You declined the challenge."))


@login_required
@require_POST
def challenge_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        challenges.challenge_cancel(challenge_id=pk, user=request.user)
    except GameError as error:
        return _challenge_answer(request, str(error))
    return _challenge_answer(request, done=_("Your challenge is cancelled."))
