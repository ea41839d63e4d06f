"""The site in each of its languages, in a real browser whose language is set (Accept-Language):
a refused sign-up (the forms' errors), the lobby, a table in play, a replay and the moderation
pages.

No English interface text may be left in Galician, Hebrew or Armenian: a page's visible text (and
its titles, labels and placeholders) is compared with the English messages of the catalogues that
the language translates differently, and in Hebrew and Armenian no Latin word may appear at all,
which also catches English that was never marked for translation. What people typed (names, chat,
reports: in <bdi> or ``dir="auto"``), the notation (<code>, the move log) and texts in another
language (``lang``: the language menu, the game's Russian name) are not interface text.
Hebrew pages read right to left, with names isolated and the game's notation, move log and pile
left to right.
Screenshots land in test-artifacts/languages-<lang>-<page>.png.
"""

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from archive import analysis
from archive import services as archive_services
from game.options import GameOptions
from game.selectors import history_of
from game.services.chat import game_chat_post
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join
from moderation import services
from tests.e2e import helpers
from tests.games import finished_game
from yourtrumps_site.catalogues import LOCALE_DIR, read_catalogue

LIVE = 20_000  # ms
PAGES = [
    "sign-up",
    "lobby",
    "table",
    "replay",
    "moderation-queue",
    "moderation-report",
    "moderation-game",
]
PASSWORD = "a-long-pass-42"
#: Stands for an isolated value (a name, a notation) in the texts read from a page.
VALUE = "\u2063"
#: The test's players: their names, in attributes (a hand's label) where no <bdi> can go.
NAMES = ("anna", "boris", "carla", "mila")
#: Latin words a Hebrew or Armenian page may show: the keys named as printed on every keyboard.
KEYS = ("Home", "End")

#: The page's interface text: each element's own words, with what is not interface text
#: (see the module's docstring) left out or, inside a sentence, replaced by VALUE.
READ_TEXTS = """
([value]) => {
  const skipped = "script, style, code, .move-log__list, .languages, [aria-hidden=true]";
  const typed = "bdi, [dir=auto]";
  const inline = "b, strong, i, em, a, span, abbr, small, label";
  const page = document.documentElement.lang;
  const foreign = (el) => el.closest("[lang]") && el.closest("[lang]").lang !== page;
  const said = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return node.textContent;
    if (node.nodeType !== Node.ELEMENT_NODE) return "";
    if (node.matches(typed) || foreign(node) || node.closest(skipped)) return value;
    return node.matches(inline) ? Array.from(node.childNodes, said).join("") : "";
  };
  const texts = [];
  for (const el of document.body.querySelectorAll("*")) {
    const shown = el.matches("option") ? el.closest("select") : el;  // a list's choices too
    if (el.closest(skipped) || el.closest(typed) || foreign(el) || !shown.checkVisibility()) {
      continue;
    }
    const own = Array.from(el.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE);
    if (own.some((n) => n.textContent.trim() !== "")) {
      texts.push(Array.from(el.childNodes, said).join("").replace(/\\s+/g, " ").trim());
    }
    for (const name of ["title", "aria-label", "placeholder"]) {
      const text = el.getAttribute(name);
      if (text) texts.push(text.trim());
    }
  }
  return texts;
}
"""

#: Where a character of an element's text is drawn: its left edge, in CSS pixels.
LEFT_OF = """
([selector, index]) => {
  const node = document.querySelector(selector).firstChild;
  const range = document.createRange();
  range.setStart(node, index);
  range.setEnd(node, index + 1);
  return range.getBoundingClientRect().left;
}
"""


class English:
    """The English messages that ``language`` translates differently, to be found on a page."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.whole: set[str] = set()
        self.patterns: list[re.Pattern[str]] = []
        #: Words the translator kept as in English (a name such as the site's, say), valid here.
        self.kept: list[str] = list(NAMES + KEYS)
        catalog = read_catalogue(LOCALE_DIR / language / "LC_MESSAGES" / "django.po")
        for message in list(catalog)[1:]:
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            for msgid in ids:
                if msgid in strings:
                    self.kept.append(msgid)
                    continue
                text = re.sub(r"\s+", " ", msgid).strip()
                if "%(" in text or "%s" in text or "%d" in text:
                    parts = re.split(r"%\(\w+\)[sd]|%[sd]", text)
                    if re.search(r"[A-Za-z]{2,}", "".join(parts)):  # not "%(name)s: %(reason)s"
                        # Whole words: "%(time)s ago" is not in Galician's "agora mesmo".
                        joined = ".+".join(map(re.escape, parts))
                        self.patterns.append(re.compile(r"(?<!\w)" + joined + r"(?!\w)"))
                elif " " in text:
                    self.patterns.append(re.compile(r"(?<!\w)" + re.escape(text) + r"(?!\w)"))
                else:
                    self.whole.add(text)

    def left_in(self, texts: list[str]) -> list[str]:
        """The texts that are, or hold, English interface text."""
        left = []
        for text in texts:
            plain = text.replace(VALUE, "").strip()
            latin = plain
            for kept in self.kept:
                latin = latin.replace(kept, VALUE)
            if (
                plain in self.whole
                or any(pattern.search(text) for pattern in self.patterns)
                or (self.language in ("he", "hy") and re.search(r"[A-Za-z]{2,}", latin))
            ):
                left.append(text)
        return sorted(set(left))


def set_up_the_site() -> dict[str, int]:
    """anna and boris at a table in play (timed, a few turns, a chat), a finished and analysed
    game, carla's open game in the lobby, mila the moderator, and a report about boris."""
    users = get_user_model().objects
    anna, boris, carla, mila = (
        users.create_user(name, password=PASSWORD) for name in ("anna", "boris", "carla", "mila")
    )
    services.moderator_grant(user=mila)
    seek = game_create_seek(user=anna, trump="S", options=GameOptions(time_control=(5, 3)))
    game = game_join(game_id=seek.pk, user=boris, trump="H")
    for _ in range(3):
        history = history_of(game)
        moves = list(history.legal_moves())  # the deal is random: a take may be all there is
        move = next((m for m in moves if not m.is_take), moves[0])
        game_play_move(
            game_id=game.pk,
            user=(anna, boris)[history.position.to_move],
            notation=str(move),
            expected_ply=history.ply,
        )
        game.refresh_from_db()
    game_chat_post(game_id=game.pk, user=anna, text="Hello boris, good luck!")
    game_chat_post(game_id=game.pk, user=boris, text="you play like a fool")
    services.report_create(
        reporter=anna, reported=boris, reason="abuse", text="He insults me.", game=game
    )
    game_create_seek(user=carla, trump="C")
    finished = finished_game(anna, boris)
    found, _ = archive_services.analysis_request(user=anna, game_id=finished.pk, seconds=0.02)
    analysis.run(found.pk)
    return {"table": game.pk, "finished": finished.pk}


class LanguageTests(helpers.BrowserTestCase):
    def setUp(self) -> None:
        super().setUp()
        # The services tell the channel layer through async_to_sync, which refuses the thread
        # where Playwright's event loop runs: set up from a thread of its own.
        with ThreadPoolExecutor(max_workers=1) as worker:
            self.ids = worker.submit(set_up_the_site).result()

    def pages(self, language: str, user: str) -> Iterator[tuple[str, Page]]:
        """The pages of one language, as ``user`` sees them with a browser in that language."""
        context = self.browser.new_context(locale=language, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        base = self.live_server_url
        if user == "anna":  # first, a visitor's sign-up refused: the forms' errors
            page.goto(f"{base}/accounts/signup/")
            page.fill("#id_username", "anna")
            page.fill("#id_password1", "short")
            page.fill("#id_password2", "other")
            page.click("main button[type=submit]")
            expect(page.locator(".field__error, .errorlist").first).to_be_visible()
            yield "sign-up", page
        page.goto(f"{base}/accounts/login/")
        page.fill("#id_username", user)
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url("**/play/")
        if user == "mila":
            report = f"{base}/moderation/reports/"
            page.goto(f"{base}/moderation/")
            yield "moderation-queue", page
            page.click(f".report-card a[href^='{report.removeprefix(base)}']")
            yield "moderation-report", page
            page.goto(f"{base}/moderation/games/{self.ids['table']}/")
            yield "moderation-game", page
            return
        yield "lobby", page
        page.goto(f"{base}/games/{self.ids['table']}/")
        page.wait_for_selector("body[data-ws='open']", state="attached", timeout=LIVE)
        yield "table", page
        page.goto(f"{base}/games/{self.ids['finished']}/replay/?ply=3")
        yield "replay", page

    def check(self, language: str) -> dict[str, list[str]]:
        """Every page in ``language``: its language and direction, a screenshot, and the
        English left on it (by page name)."""
        english = English("he" if language == "en" else language)
        left = {}
        for user in ("anna", "mila"):
            for name, page in self.pages(language, user):
                expect(page.locator("html")).to_have_attribute("lang", language)
                direction = "rtl" if language == "he" else "ltr"
                expect(page.locator("html")).to_have_attribute("dir", direction)
                page.screenshot(
                    path=self.artifacts / f"languages-{language}-{name}.png", full_page=True
                )
                left[name] = english.left_in(page.evaluate(READ_TEXTS, [VALUE]))
                if language == "he":
                    self.reads_right_to_left(name, page)
        return left

    def reads_right_to_left(self, name: str, page: Page) -> None:
        """Names isolated, the game's own writing left to right, punctuation where it belongs."""
        if name == "table":
            assert page.locator(".seat__name bdi").count() == 2
            for drawn in (".pile__cards", ".hand", ".move-log__list"):
                assert page.locator(drawn).first.evaluate("e => getComputedStyle(e).direction") == (
                    "ltr"
                )
            # "Hello boris, good luck!": the "!" is drawn at the end, right of "H".
            line = ".chat__line:first-child .chat__text"
            assert page.evaluate(LEFT_OF, [line, 22]) > page.evaluate(LEFT_OF, [line, 0])
        if name == "replay":
            # "1. KH": the number comes first, on the left, not ".1 KH".
            turn = ".move-log__list--replay li:nth-child(2) bdi"
            expect(page.locator(turn)).to_have_attribute("dir", "ltr")
            assert page.evaluate(LEFT_OF, [turn, 0]) < page.evaluate(LEFT_OF, [turn, 3])

    def test_english_pages_hold_what_the_check_would_find(self) -> None:
        """The check itself: English pages are full of English (as Hebrew would see it)."""
        left = self.check("en")
        for name, found in left.items():
            assert len(found) > 5, (name, found)

    def test_galician_pages_have_no_english_left(self) -> None:
        assert self.check("gl") == {name: [] for name in PAGES}

    def test_hebrew_pages_read_right_to_left_with_no_english_left(self) -> None:
        assert self.check("he") == {name: [] for name in PAGES}

    def test_armenian_pages_have_no_english_left(self) -> None:
        assert self.check("hy") == {name: [] for name in PAGES}
