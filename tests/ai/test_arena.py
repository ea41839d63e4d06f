"""The arena: seats swapped per deal, a report with the figures the issue names."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

import game
from game.ai.arena import GameRecord, MatchScore, arena_game, elo, play_game, report
from game.engine import Game, Rules


def test_each_deal_is_played_twice_with_seats_swapped():
    first = play_game("easy", "beginner", 6, None, Rules(deck=24))
    second = play_game("easy", "beginner", 7, None, Rules(deck=24))
    assert (first.deal_seed, second.deal_seed) == (3, 3)
    assert (first.a_seat, second.a_seat) == (0, 1)
    assert first.score in (0.0, 0.5, 1.0) and first.plies > 0
    assert first.a_times and first.b_times


def test_elo_is_zero_at_an_even_score_and_symmetric():
    assert elo(0.5) == 0
    assert elo(0.75) == pytest.approx(-elo(0.25))
    assert elo(0.75) == pytest.approx(190.8, abs=0.1)


def test_a_match_score_counts_results_and_bounds_a_perfect_score():
    records = [GameRecord(i, i // 2, i % 2, 1.0, 40, "empty_hand", [0.1], [0.0]) for i in range(10)]
    records[0].score = 0.5
    summary = MatchScore.of(records)
    assert (summary.wins, summary.draws, summary.losses) == (9, 1, 0)
    assert summary.score == pytest.approx(0.95)
    assert summary.elo_low < summary.elo <= summary.elo_high < float("inf")
    lines = report("hard", "beginner", records)
    assert "9 wins, 1 draws, 0 losses" in lines[1]
    assert "Elo difference" in lines[2]
    assert "median 0.100 s, p95 0.100 s, max 0.100 s" in lines[4]


def test_the_command_plays_and_reports(db):
    out = io.StringIO()
    call_command("ai_match", a="easy", b="beginner", games=2, deck=24, stdout=out)
    text = out.getvalue()
    assert "game 2/2" in text
    assert "easy vs beginner: 2 games (1 deals, seats swapped)" in text
    assert "time per turn" in text


def test_a_long_match_reports_its_figures_so_far(db, monkeypatch):
    monkeypatch.setattr("game.ai.arena.REPORT_EVERY", 2)
    out = io.StringIO()
    call_command("ai_match", a="easy", b="beginner", games=4, deck=24, stdout=out)
    lines = out.getvalue().splitlines()
    interim = [line for line in lines if line.startswith("  | ")]
    assert interim[0] == "  | easy vs beginner: 2 games (1 deals, seats swapped)"
    assert any("time per turn" in line for line in interim)
    assert "easy vs beginner: 4 games (2 deals, seats swapped)" in lines


def test_the_command_refuses_an_odd_number_of_games():
    with pytest.raises(CommandError, match="even"):
        call_command("ai_match", a="easy", b="beginner", games=3)


def test_a_recorded_match_plays_only_the_games_missing(db, tmp_path):
    record = tmp_path / "match.jsonl"
    call_command(
        "ai_match", a="easy", b="beginner", games=2, deck=24, record=record, stdout=io.StringIO()
    )
    assert len(record.read_text().splitlines()) == 1 + 2  # the match, then a line per game
    out = io.StringIO()
    call_command("ai_match", a="easy", b="beginner", games=4, deck=24, record=record, stdout=out)
    text = out.getvalue()
    assert "2 games already in" in text
    assert "game 3/4" in text and "game 1/4" not in text
    assert "easy vs beginner: 4 games (2 deals, seats swapped)" in text
    assert len(record.read_text().splitlines()) == 1 + 4


def test_a_record_of_another_match_is_refused(db, tmp_path):
    record = tmp_path / "match.jsonl"
    call_command(
        "ai_match", a="easy", b="beginner", games=2, deck=24, record=record, stdout=io.StringIO()
    )
    with pytest.raises(CommandError, match="another match"):
        call_command("ai_match", a="medium", b="beginner", games=2, deck=24, record=record)
    record.write_text("not json\n")
    with pytest.raises(CommandError, match="not a match record"):
        call_command("ai_match", a="easy", b="beginner", games=2, deck=24, record=record)


def test_a_game_not_won_keeps_its_turns_to_be_replayed():
    # Two deterministic bots: the same games every time.
    rules = Rules(deck=24)
    lost = play_game("lowest-beat", "lowest", 2, None, rules)
    assert lost.score == 0 and len(lost.moves) == lost.plies
    replayed = Game.replay(arena_game(2, rules).start, lost.moves)
    assert replayed.ply == lost.plies and replayed.outcome.winner != lost.a_seat
    won = play_game("lowest-beat", "lowest", 1, None, rules)
    assert won.score == 1 and won.moves == []


CHECKOUT = Path(game.__file__).resolve().parents[1]  # this project: a checkout like any other


def test_b_from_another_checkout_plays_as_that_checkouts_level():
    # Deterministic bots: the same game whether B runs here or in the other checkout's process.
    rules = Rules(deck=24)
    here = play_game("lowest-beat", "lowest", 2, None, rules)
    there = play_game("lowest-beat", "lowest", 2, None, rules, b_from=CHECKOUT)
    assert (there.score, there.plies, there.moves) == (here.score, here.plies, here.moves)
    assert len(there.b_times) == len(here.b_times)


def test_the_command_records_where_b_came_from(db, tmp_path):
    record = tmp_path / "match.jsonl"
    options = {"a": "easy", "b": "beginner", "games": 2, "deck": 24, "record": record}
    call_command("ai_match", **options, b_from=CHECKOUT, stdout=io.StringIO())
    assert json.loads(record.read_text().splitlines()[0])["b_from"] == str(CHECKOUT)
    with pytest.raises(CommandError, match="another match"):
        call_command("ai_match", **options)  # B from here is another opponent


def test_b_from_a_directory_that_is_not_a_checkout_is_refused(db, tmp_path):
    with pytest.raises(CommandError, match="not a checkout of this project"):
        call_command("ai_match", a="easy", b="beginner", games=2, deck=24, b_from=tmp_path)
