"""The site's answers as the client reads them: the ``#table`` tag of a socket message or an
HTTP answer (:func:`read_table`) and the turns it offers, a refusal's notice, a page's CSRF
token and a game's address. A few regular expressions per message, so that the client is not
the bottleneck."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from tools.loadtest.config import LoadTestError

# Only the ``#table`` tag is read from every message: the first matching ``<div>`` start tag.
#: A whole table, or the turn element that opens a turn's update (it carries the same attributes).
TABLE_TAG = re.compile(r'<div\b[^>]*\bid="table(?:-turn)?"[^>]*>')
PLY = re.compile(r'\bdata-ply="(\d+)"')
VERSION = re.compile(r'\bdata-version="(\d+)"')
STATUS = re.compile(r'\bdata-status="([a-z]*)"')
#: A turn's input or button, as the site writes them (``name`` then ``value``): a literal the
#: regex engine finds fast, where a scan of every tag's attributes took most of the load test's
#: own time at hundreds of moves a second.
MOVE_VALUE = re.compile(r'name="move" value="([^"]*)"')
BEATER = re.compile(r'data-beater="([^"]*)"')
SECOND = re.compile(r'data-second="([^"]*)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ERROR_NOTICE = re.compile(r'class="notice notice--error"[^>]*>(.*?)</', re.S)
GAME_URL = re.compile(r"/games/(\d+)/")


@dataclass(frozen=True, slots=True)
class TableView:
    """One ``#table`` partial: its ply, version and status, and the whole HTML for the moves."""

    ply: int
    version: int
    status: str
    html: str
    received: float

    def moves(self) -> list[str]:
        """The turns this viewer's table offers: the ``move`` values of its forms, and each beat
        (a beating card, then any second card but itself), as the table's script writes them."""
        seconds = SECOND.findall(self.html)
        plain = [m for m in MOVE_VALUE.findall(self.html) if m not in seconds]
        beats = [f"{b}-{s}" for b in BEATER.findall(self.html) for s in seconds if s != b]
        return plain + beats

    def error(self) -> str | None:
        """The message of a refused input, if the partial carries one."""
        match = ERROR_NOTICE.search(self.html)
        return html_text(match.group(1)) if match else None


def html_text(fragment: str) -> str:
    """A short fragment of HTML as plain text (entities decoded, no tags expected)."""
    return html.unescape(fragment.strip())


def read_table(text: str, received: float) -> TableView | None:
    """The table in a socket message or an HTTP answer, or ``None`` if it holds none."""
    tag = TABLE_TAG.search(text)
    if tag is None:
        return None
    head = tag.group(0)
    ply, version, status = PLY.search(head), VERSION.search(head), STATUS.search(head)
    if ply is None or version is None:
        return None
    return TableView(
        int(ply.group(1)), int(version.group(1)), status.group(1) if status else "", text, received
    )


def csrf_token(page: str) -> str:
    """The token of the forms on ``page``; :class:`LoadTestError` if it carries none."""
    match = CSRF.search(page)
    if match is None:
        raise LoadTestError("no CSRF token on the page: is this the Your Trumps site?")
    return match.group(1)
