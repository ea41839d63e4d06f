"""The computer's levels are named in the visitor's language, in every place they are shown."""

import pytest
from django.test import override_settings
from django.utils import translation

from archive.forms import ArchiveForm
from game.ai import LEVELS
from game.forms import ComputerForm
from game.levels import LEVEL_NAMES
from game.models import Game
from tests.catalogues import write_catalogue

pytestmark = pytest.mark.django_db


def test_every_level_has_a_name() -> None:
    assert list(LEVEL_NAMES) == list(LEVELS)


def test_the_forms_and_the_seat_name_the_levels_in_the_active_language(tmp_path) -> None:
    write_catalogue(
        tmp_path,
        "gl",
        {
            ("computer level", "easy"): "doado",
            "the computer: %(level)s": "o ordenador: %(level)s",
            "Computer (%(level)s)": "Ordenador (%(level)s)",
        },
    )
    with override_settings(LOCALE_PATHS=[tmp_path]), translation.override("gl"):
        computer = {code: str(name) for code, name in ComputerForm().fields["level"].choices}
        opponent = {code: str(name) for code, name in ArchiveForm().fields["opponent"].choices}
        seat = Game(ai_level="easy").seat_name(1)

    assert computer["easy"] == "doado"
    assert opponent["easy"] == "o ordenador: doado"
    assert seat == "Ordenador (doado)"
