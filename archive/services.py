"""Everything that changes the archive's stored data: imported records and the computer's
analyses (DESIGN.md: services are the only writers). The analyses' steps are tasks, asked for
through :mod:`game.background`."""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive import records
from archive.models import Analysis, ImportedGame
from game import background
from game.models import Game
from game.services import GameError


def imported_game_create(*, text: str, user: object) -> ImportedGame:
    """Store an uploaded record once the engine has checked every turn (raises RecordError)."""
    records.parse(text)
    uploader = user if getattr(user, "is_authenticated", False) else None
    return ImportedGame.objects.create(text=text, uploaded_by=uploader)


def analysis_request(
    *, user: object, game_id: int | None = None, imported_id: int | None = None, seconds: float
) -> tuple[Analysis, bool]:
    """Queue the computer's review of a finished or imported game, once, for a logged-in user.

    An analysis is kept for good; asking again restarts only a failed one, which
    resumes where it stopped (one that died with its worker resumes by itself:
    :func:`archive.tasks.resume_analyses`). Each user may have ``ANALYSES_PER_USER`` queued
    or running. Returns the analysis and whether it was queued now; its first
    step is then asked for once the commit lands.
    """
    if not getattr(user, "is_authenticated", False):
        raise GameError(_("Log in to ask the computer for an analysis."))
    with transaction.atomic():
        if game_id is not None:
            game = Game.objects.select_for_update().get(pk=game_id)
            if game.status == Game.Status.ACTIVE or game.status == Game.Status.SEEKING:
                raise GameError(_("A game is analysed once it is over."))
            analysis, created = Analysis.objects.get_or_create(
                game=game, defaults={"seconds": seconds}
            )
        else:
            imported = ImportedGame.objects.get(pk=imported_id)
            analysis, created = Analysis.objects.get_or_create(
                imported=imported, defaults={"seconds": seconds}
            )
        analysis = Analysis.objects.select_for_update().get(pk=analysis.pk)
        if analysis.status != Analysis.Status.FAILED and not created:
            return analysis, False
        under_way = Analysis.objects.filter(
            requested_by=user, status__in=(Analysis.Status.QUEUED, Analysis.Status.RUNNING)
        ).exclude(pk=analysis.pk)
        if under_way.count() >= settings.ANALYSES_PER_USER:
            raise GameError(
                ngettext(
                    "You have %(count)s analysis under way: ask again once it has finished.",
                    "You have %(count)s analyses under way: ask again once one has finished.",
                    settings.ANALYSES_PER_USER,
                )
                % {"count": settings.ANALYSES_PER_USER}
            )
        analysis.status = Analysis.Status.QUEUED
        analysis.error = ""
        analysis.requested_by = user  # type: ignore[assignment]
        analysis.save(update_fields=["status", "error", "requested_by", "updated_at"])
        ask = partial(background.ask, background.ANALYSIS_STEP, analysis.pk)
        transaction.on_commit(ask, robust=True)
        return analysis, True


def analysis_start(*, analysis_id: int, total: int) -> None:
    Analysis.objects.filter(pk=analysis_id).update(
        status=Analysis.Status.RUNNING, total=total, updated_at=timezone.now()
    )


def analysis_store_position(*, analysis_id: int, ply: int, review: dict[str, object]) -> bool:
    """Keep the review of the position before ``ply``, the next one; ``False`` (nothing stored)
    when it is not the next: a duplicate step stored it already."""
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().get(pk=analysis_id)
        if ply != len(analysis.positions):
            return False
        analysis.positions.append(review)
        analysis.done += 1
        analysis.save(update_fields=["positions", "done", "updated_at"])
        return True


def analysis_store_only(*, analysis_id: int, ply: int, only: bool | None) -> bool:
    """Keep whether turn ``ply`` was the only one keeping its result; ``False`` (nothing stored)
    when a duplicate step stored it already."""
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().get(pk=analysis_id)
        if str(ply) in analysis.only:
            return False
        analysis.only[str(ply)] = only
        analysis.done += 1
        analysis.save(update_fields=["only", "done", "updated_at"])
        return True


def analysis_finish(*, analysis_id: int, error: str = "") -> None:
    status = Analysis.Status.FAILED if error else Analysis.Status.DONE
    Analysis.objects.filter(pk=analysis_id).update(
        status=status, error=error, updated_at=timezone.now()
    )
