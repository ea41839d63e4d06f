"""``manage.py bench_move`` plays its turns for real: through the service, or as the table's POST
handed to the site's ASGI application (each answered 204, as with the table's socket open)."""

import io
import re

import pytest
from django.core.management import call_command

from game.models import Game, Move


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("via", ["socket", "post"])
def test_every_turn_of_the_benchmark_lands(via):
    out, err = io.StringIO(), io.StringIO()
    call_command("bench_move", games=1, turns=6, via=via, stdout=out, stderr=err)
    assert err.getvalue() == ""  # no POST answered otherwise than 204
    moves = int(re.match(r"(\d+) moves:", out.getvalue()).group(1))
    assert moves == 6 == Move.objects.filter(game=Game.objects.get()).count()
