"""Every page on a phone, a tablet and a laptop, and the busiest ones checked by axe-core.

At 360x740, 768x1024 and 1280x800: the home page, the lobby, the table (at one's turn, while
choosing the second card, and with eight cards on the pile), a seek waiting with its invite link,
the replay (at its end, and with eight cards on the pile), the games list, the games being played,
importing a record, a profile with its ratings (and a closed account's), a leaderboard, the
settings, an email address verified, the four steps of a password reset, the moderation queue,
log, user, game and report pages with entries, signing up and logging in are no wider than the
screen, and no element covers another's tap target; on the phone every tap target is at least
44 px tall. Screenshots of each land in test-artifacts/screens/. axe-core (node_modules, from
package-lock.json: `npm ci`) then finds no serious or critical violation on the lobby, the
table, the replay, a profile and a leaderboard.
"""

from dataclasses import dataclass
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from playwright.sync_api import Browser, BrowserContext, Page

from accounts import services as accounts
from accounts.models import Rating
from accounts.verification import make_token
from game.models import Game
from game.options import GameOptions
from game.selectors import stored_state
from game.services.endings import game_resign
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join
from moderation import services as moderation
from moderation.services import MUTE_DURATIONS
from tests.e2e.helpers import PASSWORD, game_between, in_a_thread, users

SCREENS = {"phone": (360, 740), "tablet": (768, 1024), "laptop": (1280, 800)}
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
#: The busiest pages, checked by axe-core.
AXE_CHECKED = ("lobby", "table", "table-second-card", "replay", "deal", "profile", "leaderboard")

#: The page's tap targets that are visible, and how to name one in a problem.
TARGETS = """
  const targets = [...document.querySelectorAll(
    "a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex='-1'])"
  )].filter(e => {
    const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && !e.closest("[hidden]")
      && !e.closest(".skip-link");
  });
  const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " '"
    + (e.getAttribute("aria-label") || e.textContent || e.value || "").trim().slice(0, 30) + "'";
  const problems = [];
"""

#: Each tap target that is visible: its centre must hit itself (nothing lies over it), and no
#: other target's box may overlap its own. Answers what is wrong, in words.
CHECK_TARGETS = (
    "() => {"
    + TARGETS
    + """
  for (const e of targets) {
    e.scrollIntoView({block: "center", inline: "center"});
    const r = e.getClientRects()[0];  // a link wrapped over two lines: its first line
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (hit && hit !== e && !e.contains(hit) && !(e.labels && [...e.labels].includes(hit))) {
      problems.push(name(hit) + " covers " + name(e));
    }
  }
  window.scrollTo(0, 0);
  // What of a target shows: its box cut by every scrolling box around it (a turn scrolled out
  // of the replay's move list is hidden, not lying over the page above it).
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
    for (let p = e.parentElement; p; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (style.overflowX === "visible" && style.overflowY === "visible") continue;
      const c = p.getBoundingClientRect();
      [left, top] = [Math.max(left, c.left), Math.max(top, c.top)];
      [right, bottom] = [Math.min(right, c.right), Math.min(bottom, c.bottom)];
    }
    return {left, top, right, bottom};
  };
  const boxes = targets.map(e => [e, shown(e)]);
  const top = document.documentElement.scrollTop;
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, ra] = boxes[i], [b, rb] = boxes[j];
      if (a.contains(b) || b.contains(a)) continue;
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 1 && y > 1) problems.push(name(a) + " overlaps " + name(b));
    }
  }
  return problems;
}"""
)

#: Each tap target that is visible is at least 44 px tall, a checkbox through the label around
#: it. Exempt, as WCAG's inline exception: a link in a line of text (a sentence, a table's
#: cell; its line is its height); and a scrolling box focusable only for the keyboard. Answers
#: the short ones.
CHECK_SIZES = (
    "() => {"
    + TARGETS
    + """
  for (const e of targets) {
    const box = ["checkbox", "radio"].includes(e.type) ? e.closest("label") || e : e;
    const inline = e.tagName === "A" && getComputedStyle(e).display === "inline";
    const scroller = !e.matches("a, button, input, select, textarea");
    const height = box.getBoundingClientRect().height;
    if (!inline && !scroller && height < 43.5) {
      problems.push(name(e) + " is " + height + " px tall");
    }
  }
  return problems;
}"""
)


@dataclass(frozen=True)
class Scene:
    """What the pages show: a rated game in play at anna's turn (a beat to choose), a rated
    finished one (anna and boris then have ratings, settled as if after many games),
    anna's seek, a game in play and a finished one with eight cards on the pile, and a report
    about boris, who has a moderation history; anna's email address waiting for its link
    (``verify``), boris's password reset link (``reset``: he never logs in here, which would
    spend it), olga's closed account."""

    playing: int
    beater: str
    finished: int
    seeking: int
    piled: int
    piled_over: int
    report: int
    verify: str
    reset: str


def pile_up(game: Game, players: tuple[object, object]) -> Game:
    """Play until eight cards lie on the pile: beats where there are, else a lead or a take."""
    while True:
        state = stored_state(Game.objects.get(pk=game.pk))
        position = state.position
        if len(position.pile) >= 8:
            return game
        legal = list(position.legal_moves())
        beats = [m for m in legal if m.second is not None]
        turn = beats[0] if beats else next(m for m in legal if m.is_take or not position.pile)
        game_play_move(
            game_id=game.pk,
            user=players[position.to_move],
            notation=str(turn),
            expected_ply=state.ply,
        )


def moderate(mila: object, anna: object, boris: object, game: Game, piled: Game) -> int:
    """A moderation history for boris (a report resolved, a warning, a mute, a game aborted) and
    an open report about him; returns its number."""
    complaint = (
        "He wrote insults in the chat after every turn I took, and again when the game ended."
    )
    report = moderation.report_create(
        reporter=anna, reported=boris, reason="abuse", text=complaint, game=game
    )
    moderation.report_resolve(
        moderator=mila, report_id=report.pk, reason="Insults in the chat, as the log shows."
    )
    moderation.moderation_warn(
        moderator=mila, user=boris, reason="Keep the chat friendly: the next insult is a mute."
    )
    moderation.moderation_mute(
        moderator=mila,
        user=boris,
        reason="Insulted his opponent again after the warning.",
        duration=MUTE_DURATIONS[0],
    )
    seek = game_create_seek(user=boris, trump="C")
    moderation.moderation_abort_game(
        moderator=mila, game_id=seek.pk, reason="A seek named to insult another player."
    )
    return moderation.report_create(
        reporter=anna, reported=boris, reason="abuse", text=complaint, game=piled
    ).pk


def set_the_scene() -> Scene:
    anna, boris, mila = users("anna", "boris", "mila")

    def make() -> Scene:
        moderation.moderator_grant(user=mila)
        seek = game_create_seek(user=anna, trump="S", options=GameOptions(rated=True))
        game = game_join(game_id=seek.pk, user=boris, trump="H")
        players = (anna, boris)
        # Turns until anna is to answer a card she can beat: boris takes what is on the pile,
        # then leads a card she can beat.
        while True:
            state = stored_state(Game.objects.get(pk=game.pk))
            position = state.position
            legal = list(position.legal_moves())
            beats = [m for m in legal if m.second is not None]
            if position.to_move == 0 and beats:
                break
            beatable = [
                m
                for m in legal
                if any(n.second is not None for n in position.play(m).legal_moves())
            ]
            turn = (beatable or legal)[0] if position.to_move == 1 else legal[0]
            game_play_move(
                game_id=game.pk,
                user=players[position.to_move],
                notation=str(turn),
                expected_ply=state.ply,
            )
        over = game_join(
            game_id=game_create_seek(user=boris, trump="D", options=GameOptions(rated=True)).pk,
            user=anna,
            trump="C",
        )
        game_resign(game_id=over.pk, user=anna)
        Rating.objects.filter(user__in=players).update(deviation=80)  # on the leaderboard
        piled = pile_up(game_between(anna, boris), players)
        piled_over = pile_up(game_between(anna, boris), players)
        game_resign(game_id=piled_over.pk, user=boris)
        report = moderate(mila, anna, boris, game, piled)
        seeking = game_create_seek(user=anna, trump="S", private=True)
        accounts.email_change(user=anna, email="anna@example.org", site_url="http://localhost")
        olga = get_user_model().objects.create_user("olga", password=PASSWORD)
        game_resign(
            game_id=game_join(
                game_id=game_create_seek(user=olga, trump="C").pk, user=anna, trump="D"
            ).pk,
            user=anna,
        )
        accounts.account_close(user=olga)
        verify = reverse("accounts:verify_email", args=[make_token(anna, anna.email)])
        reset = reverse(
            "accounts:password_reset_confirm",
            args=[
                urlsafe_base64_encode(force_bytes(boris.pk)),
                default_token_generator.make_token(boris),
            ],
        )
        return Scene(
            game.pk,
            str(beats[0].card),
            over.pk,
            seeking.pk,
            piled.pk,
            piled_over.pk,
            report,
            verify,
            reset,
        )

    return in_a_thread(make)


class ScreensTests(ChannelsLiveServerTestCase):
    serve_static = True

    @pytest.fixture(autouse=True)
    def _browser(self, browser: Browser, artifacts_dir: Path) -> None:
        self.browser = browser
        self.screens = artifacts_dir / "screens"
        self.screens.mkdir(exist_ok=True)

    def logged_in(self, name: str, width: int, height: int, **options: object) -> BrowserContext:
        context = self.browser.new_context(viewport={"width": width, "height": height}, **options)
        page = context.new_page()
        page.goto(f"{self.live_server_url}/accounts/login/")
        page.fill("#id_username", name)
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url("**/play/")
        page.close()
        return context

    def pages(self, scene: Scene) -> dict[str, tuple[str, str]]:
        """Each page to look at: its address and whose eyes (mila moderates; "": nobody's)."""
        return {
            "home": ("/", "anna"),
            "lobby": ("/play/", "anna"),
            "table": (f"/games/{scene.playing}/", "anna"),
            "table-second-card": (f"/games/{scene.playing}/", "anna"),
            "table-full-pile": (f"/games/{scene.piled}/", "anna"),
            "waiting": (f"/games/{scene.seeking}/", "anna"),
            "replay": (f"/games/{scene.finished}/replay/", "anna"),
            "deal": (f"/games/{scene.finished}/deal/", ""),
            "replay-full-pile": (f"/games/{scene.piled_over}/replay/", "anna"),
            "import": ("/games/import/", "anna"),
            "games": ("/games/", "anna"),
            "watch": ("/games/live/", "anna"),
            "profile": ("/accounts/players/boris/", "anna"),
            "profile-own": ("/accounts/players/anna/", "anna"),
            "profile-closed": ("/accounts/players/olga/", "anna"),
            "leaderboard": ("/accounts/players/leaderboard/untimed/", "anna"),
            "settings": ("/accounts/settings/", "anna"),
            "challenges": ("/challenges/", "anna"),
            "email-verified": (scene.verify, ""),
            "moderation": ("/moderation/", "mila"),
            "moderation-log": ("/moderation/log/", "mila"),
            "moderation-user": ("/moderation/users/boris/", "mila"),
            "moderation-game": (f"/moderation/games/{scene.playing}/", "mila"),
            "moderation-report": (f"/moderation/reports/{scene.report}/", "mila"),
            "sign-up": ("/accounts/signup/", ""),
            "log-in": ("/accounts/login/", ""),
            "password-reset": ("/accounts/password/reset/", ""),
            "password-reset-sent": ("/accounts/password/reset/sent/", ""),
            "password-reset-confirm": (scene.reset, ""),
            "password-reset-done": ("/accounts/password/reset/done/", ""),
        }

    def show(self, page: Page, name: str, path: str, scene: Scene) -> None:
        """Open the page; for the second card, pick the beating card first."""
        page.goto(self.live_server_url + path)
        page.wait_for_load_state("networkidle")
        if name == "table-second-card":
            page.click(f"#table [data-beater='{scene.beater}']")
            page.locator(".second-cards:not([hidden])").wait_for()

    def check_screen(self, screen: str) -> None:
        width, height = SCREENS[screen]
        scene = set_the_scene()
        contexts = {name: self.logged_in(name, width, height) for name in ("anna", "mila")}
        contexts[""] = self.browser.new_context(viewport={"width": width, "height": height})
        problems = []
        for name, (path, viewer) in self.pages(scene).items():
            page = contexts[viewer].new_page()
            self.show(page, name, path, scene)
            page.screenshot(path=self.screens / f"{name}-{screen}.png", full_page=True)
            wide = page.evaluate("() => document.documentElement.scrollWidth")
            if wide > width:
                problems.append(f"{name}: {wide} px wide on a {width} px screen")
            problems += [f"{name}: {p}" for p in page.evaluate(CHECK_TARGETS)]
            if screen == "phone":
                problems += [f"{name}: {p}" for p in page.evaluate(CHECK_SIZES)]
            page.close()
        assert problems == [], "\n".join(problems)

    def test_every_page_fits_a_phone(self) -> None:
        self.check_screen("phone")

    def test_every_page_fits_a_tablet(self) -> None:
        self.check_screen("tablet")

    def test_every_page_fits_a_laptop(self) -> None:
        self.check_screen("laptop")

    def axe_violations(self, page: Page) -> list[str]:
        """Serious and critical violations axe-core finds on the page, one line each."""
        page.add_script_tag(content=AXE.read_text())
        found = page.evaluate("async () => (await axe.run(document)).violations")
        return [
            f"{v['id']} ({v['impact']}): {v['help']}: "
            + ", ".join(str(n["target"]) for n in v["nodes"][:5])
            for v in found
            if v["impact"] in ("serious", "critical")
        ]

    def test_axe_finds_nothing_serious_on_the_lobby_the_table_the_replay_and_ratings(self) -> None:
        if not AXE.exists():
            pytest.skip(f"{AXE} is missing: `npm ci` installs axe-core (npm is needed)")
        scene = set_the_scene()
        # The page's Content-Security-Policy refuses inline scripts: axe comes in as one.
        context = self.logged_in("anna", *SCREENS["laptop"], bypass_csp=True)
        problems = []
        for name, (path, _) in self.pages(scene).items():
            if name not in AXE_CHECKED:
                continue
            page = context.new_page()
            self.show(page, name, path, scene)
            problems += [f"{name}: {v}" for v in self.axe_violations(page)]
            page.close()
        assert problems == [], "\n".join(problems)
