"""A player's games as one zip file of their text records (``archive.records``), each named as
a single game's record is downloaded (``yourtrumps-<id>.txt``) and dated when its game ended."""

from __future__ import annotations

import io
import zipfile

from django.db.models import QuerySet

from archive.replays import record_of
from game.models import Game

#: Games read from the database at a time, each batch with its moves in one more query.
BATCH = 200


def record_name(game: Game) -> str:
    return f"yourtrumps-{game.pk}.txt"


def records_zip(games: QuerySet[Game]) -> bytes:
    """The zip file of ``games``' records, their moves prefetched in ply order
    (``archive.selectors.games_of``). Built in memory: a record is a few hundred bytes, and
    compresses well."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for game in games.iterator(chunk_size=BATCH):
            turns = [move.notation for move in game.moves.all()]
            when = game.finished_at or game.started_at or game.created_at
            entry = zipfile.ZipInfo(record_name(game), date_time=when.timetuple()[:6])
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, record_of(game, turns).to_text())
    return buffer.getvalue()
