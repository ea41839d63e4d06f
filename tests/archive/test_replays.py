"""Replays: the viewer shows the engine's positions, records round-trip, analyses are kept."""

import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from archive import analysis, records
from archive import services as archive_services
from archive.models import Analysis, ImportedGame
from archive.replays import replay_of_game
from game import engine
from game.selectors import history_of
from game.services import GameError
from game.services.starting import game_create_seek, game_join
from game.templatetags.cards import face
from tests.games import DEAL, finished_game

pytestmark = pytest.mark.django_db

SEED = DEAL
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def finished(alice, bob):
    """A timed game between alice and bob, played to the end by the rules."""
    return finished_game(alice, bob)


def hands_shown(html):
    """The card names in each hand of a rendered table, by hand label."""
    hands = re.findall(r'<ul class="hand" aria-label="([^"]*)">(.*?)</ul>', html, re.S)
    return {label: re.findall(r'aria-label="([^"]*)"', cards) for label, cards in hands}


def names(cards):
    return sorted(face(card)["name"] for card in cards)


# -- the viewer ------------------------------------------------------------------------------


def test_every_ply_shows_the_engines_position(client, finished):
    played = [m.notation for m in finished.moves.order_by("ply")]
    start = engine.deal(SEED, finished.trumps, finished.rules, first=finished.first_player)
    engine_game = engine.Game(start)
    url = reverse("archive:replay", args=[finished.pk])
    for ply in range(len(played) + 1):
        if ply:
            engine_game.play(played[ply - 1])
        expected = engine_game.position
        response = client.get(url, {"ply": ply}, **HX)
        assert response.status_code == 200
        frame = response.context["frame"]
        assert frame.position == expected
        shown = hands_shown(response.content.decode())
        assert sorted(map(sorted, shown.values())) == sorted(
            [names(expected.hand(0)), names(expected.hand(1))]
        )
        assert f"Turn {ply} of {len(played)}" in response.content.decode()


def test_a_step_is_a_partial_and_the_page_a_whole_page(client, finished):
    url = reverse("archive:replay", args=[finished.pk])
    page = client.get(url, {"ply": 3}).content.decode()
    step = client.get(url, {"ply": 3}, **HX).content.decode()
    assert "<html" in page and 'id="replay"' in page
    assert "<html" not in step and step.lstrip().startswith('<div id="replay"')
    assert f'hx-get="{url}?ply=4"' in step  # next
    assert f'hx-get="{url}?ply=2"' in step  # previous


def test_the_turn_just_played_is_highlighted(client, finished):
    first = finished.moves.get(ply=0).notation
    step = client.get(reverse("archive:replay", args=[finished.pk]), {"ply": 1}, **HX)
    moved = step.context["frame"].moved
    if first == "take":
        assert moved  # the taken cards, in the taker's hand
    else:
        assert moved == frozenset(engine.Move.parse(first).cards)
    assert step.content.decode().count("card--moved") == len(moved)


def test_a_bad_or_missing_ply_shows_the_end_and_out_of_range_is_clamped(client, finished):
    url = reverse("archive:replay", args=[finished.pk])
    last = finished.moves.count()
    assert client.get(url).context["frame"].ply == last
    assert client.get(url, {"ply": "x"}).context["frame"].ply == last
    assert client.get(url, {"ply": 10_000}).context["frame"].ply == last
    assert client.get(url, {"ply": -4}).context["frame"].ply == 0


def test_clocks_show_the_time_left_at_each_ply(finished):
    spent = list(finished.moves.order_by("ply").values_list("player", "time_spent_ms"))
    history = replay_of_game(finished)
    left = [180_000, 180_000]
    for ply, (player, ms) in enumerate(spent[:-1]):
        left[player] += 2_000 - ms
        frame = history.frame(ply + 1)
        assert (frame.bottom.clock_ms, frame.top.clock_ms) == tuple(left)
    end = history.frame(len(spent))
    assert (end.bottom.clock_ms, end.top.clock_ms) == (finished.clock0_ms, finished.clock1_ms)


def test_a_game_in_play_has_no_replay_yet(client, alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    response = client.get(reverse("archive:replay", args=[game.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("game:table", args=[game.pk])
    assert client.get(reverse("archive:replay", args=[99_999])).status_code == 404


def test_the_finished_table_links_to_its_replay(client, finished):
    page = client.get(reverse("game:table", args=[finished.pk])).content.decode()
    assert reverse("archive:replay", args=[finished.pk]) in page


# -- records ---------------------------------------------------------------------------------


def test_export_then_import_gives_the_same_game(client, alice, finished):
    text = client.get(reverse("archive:record", args=[finished.pk]))
    assert text["Content-Disposition"] == f'attachment; filename="yourtrumps-{finished.pk}.txt"'
    body = text.content.decode()
    assert "Player0: alice" in body and "Player1: bob" in body and f"Seed: {SEED}" in body

    client.force_login(alice)
    response = client.post(reverse("archive:import"), {"text": body})
    imported = ImportedGame.objects.get()
    assert response["Location"] == reverse("archive:imported", args=[imported.pk])
    viewer = client.get(response["Location"])
    played = [m.notation for m in finished.moves.order_by("ply")]
    assert [turn for _, turn, _, _ in viewer.context["replay"].turns] == played
    assert viewer.context["frame"].position == history_of(finished).position
    again = client.get(reverse("archive:imported_record", args=[imported.pk])).content.decode()
    assert records.parse(again).turns == records.parse(body).turns


def test_a_record_can_be_uploaded_as_a_file(client, alice, finished):
    body = client.get(reverse("archive:record", args=[finished.pk])).content
    client.force_login(alice)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("game.txt", body, content_type="text/plain")
    response = client.post(reverse("archive:import"), {"file": upload})
    assert response.status_code == 302
    assert ImportedGame.objects.count() == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda lines, turns: [*lines[: turns + 2], "ZZ", *lines[turns + 3 :]], "Line {turn2}:"),
        (lambda lines, turns: [*lines[:turns], "take", *lines[turns:]], "Line {turn0}:"),
        (lambda lines, turns: ["Colour: red", *lines], "Line 1: unknown header 'Colour'"),
        (lambda lines, turns: [x for x in lines if not x.startswith("Seed")], "no Seed line"),
        (lambda lines, turns: [*lines, "take"], "the game was already over"),
        (
            lambda lines, turns: [x.replace("Trumps: S H", "Trumps: S S") for x in lines],
            "must differ",
        ),
        (
            lambda lines, turns: [
                x.replace("Deck: 36", "Deck: 32").replace("SixesToOwner: no", "SixesToOwner: yes")
                for x in lines
            ],
            "SixesToOwner: yes is for the 36-card pack only",
        ),
    ],
)
def test_a_malformed_record_is_refused_naming_the_line(client, finished, change, message):
    body = client.get(reverse("archive:record", args=[finished.pk])).content.decode()
    lines = body.splitlines()
    turns = lines.index("") + 1  # the first turn's index
    text = "\n".join(change(lines, turns))
    response = client.post(reverse("archive:import"), {"text": text})
    assert response.status_code == 200
    expected = message.format(turn0=turns + 1, turn2=turns + 3)
    assert expected in html.unescape(response.content.decode())
    assert not ImportedGame.objects.exists()


def test_an_empty_or_binary_upload_is_refused(client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    blank = client.post(reverse("archive:import"), {"text": " "})
    assert "Paste a record" in blank.content.decode()
    binary = SimpleUploadedFile("x.txt", b"\xff\xfe\x00bad", content_type="text/plain")
    response = client.post(reverse("archive:import"), {"file": binary})
    assert "not UTF-8" in response.content.decode()


# -- analysis --------------------------------------------------------------------------------


def test_analysis_reviews_every_position_and_the_viewer_shows_it(client, alice, finished, settings):
    settings.ANALYSIS_SECONDS = 0.05
    url = reverse("archive:replay", args=[finished.pk])
    page = client.get(url).content.decode()
    assert "Ask the computer to analyse" in page

    found, queued = archive_services.analysis_request(user=alice, game_id=finished.pk, seconds=0.05)
    assert queued
    running = client.get(url, {"ply": 5}, **HX).content.decode()
    assert "<progress" in running and 'hx-trigger="every 2s"' in running

    analysis.run(found.pk)
    found.refresh_from_db()
    assert found.status == Analysis.Status.DONE
    turns = finished.moves.count()
    assert len(found.positions) == turns  # the game ended by the rules: its end needs no review
    assert found.done == found.total
    notes = replay_of_game(finished).notes
    assert len(notes) == turns

    step = client.get(url, {"ply": 1}, **HX).content.decode()
    assert "<progress" not in step and "Blunders by <bdi>alice</bdi>" in step
    review = found.positions[1]
    assert "(proven)" in step if review["exact"] else "(estimate)" in step
    for note in notes:
        if note.blunder:
            assert "mark--blunder" in client.get(url, {"ply": note.ply + 1}, **HX).content.decode()


def test_analysis_is_asked_once_and_restarted_only_when_failed(alice, bob, finished):
    first, queued = archive_services.analysis_request(user=alice, game_id=finished.pk, seconds=0.05)
    again, queued_again = archive_services.analysis_request(
        user=bob, game_id=finished.pk, seconds=0.05
    )
    assert queued and not queued_again and again.pk == first.pk

    archive_services.analysis_finish(analysis_id=first.pk, error="boom")
    _, retried = archive_services.analysis_request(user=bob, game_id=finished.pk, seconds=0.05)
    assert retried
    assert Analysis.objects.get(pk=first.pk).requested_by == bob

    archive_services.analysis_finish(analysis_id=first.pk)
    _, done_again = archive_services.analysis_request(user=alice, game_id=finished.pk, seconds=0.05)
    assert not done_again


def test_a_game_in_play_cannot_be_analysed(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    with pytest.raises(GameError):
        archive_services.analysis_request(user=alice, game_id=game.pk, seconds=0.05)


def test_asking_for_analysis_in_the_browser_queues_it_and_a_worker_runs_it(
    client, alice, finished, settings, run_tasks, django_capture_on_commit_callbacks
):
    settings.ANALYSIS_SECONDS = 0.02
    client.force_login(alice)
    url = reverse("archive:analyse", args=[finished.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"ply": "4"})
    assert response["Location"] == reverse("archive:replay", args=[finished.pk]) + "?ply=4"
    found = Analysis.objects.get(game=finished)
    assert found.status == Analysis.Status.QUEUED and found.requested_by == alice
    run_tasks()
    found.refresh_from_db()
    assert found.status == Analysis.Status.DONE, found.error
    assert len(found.positions) == finished.moves.count()


def test_only_logged_in_users_may_ask_for_an_analysis(client, finished):
    response = client.post(reverse("archive:analyse", args=[finished.pk]), follow=True)
    assert "Log in to ask the computer for an analysis." in response.content.decode()
    assert not Analysis.objects.exists()


def test_a_user_may_have_two_analyses_under_way_not_three(client, alice, bob, finished):
    text = replay_of_game(finished).record.to_text()
    imports = [archive_services.imported_game_create(text=text, user=alice) for _ in range(3)]
    for imported in imports[:2]:
        archive_services.analysis_request(user=alice, imported_id=imported.pk, seconds=0.05)
    client.force_login(alice)
    response = client.post(reverse("archive:analyse_imported", args=[imports[2].pk]), follow=True)
    assert "You have 2 analyses under way" in response.content.decode()
    assert not Analysis.objects.filter(imported=imports[2]).exists()
    _, queued = archive_services.analysis_request(user=bob, imported_id=imports[2].pk, seconds=0.05)
    assert queued  # the limit is per user
    archive_services.analysis_finish(analysis_id=imports[0].analysis.pk)
    _, queued = archive_services.analysis_request(user=alice, game_id=finished.pk, seconds=0.05)
    assert queued  # one finished: room for another


# -- the archive -----------------------------------------------------------------------------


@pytest.fixture
def archived(alice, bob, carol):
    """Finished games of every kind, made directly: the archive only reads them."""
    from game.models import Game

    now = timezone.now()

    def game(seat0, seat1=None, level="", winner=None, reason="empty_hand", deck=36, days=0, **kw):
        return Game.objects.create(
            seat0=seat0,
            seat1=seat1,
            ai_level=level,
            trump0="S",
            trump1="H",
            deck=deck,
            status=Game.Status.FINISHED,
            winner=winner,
            reason=reason,
            finished_at=now - timedelta(days=days),
            **kw,
        )

    return {
        "alice_beats_bob": game(alice, bob, winner=0),
        "bob_beats_alice": game(bob, alice, winner=0, deck=24, days=3),
        "alice_draws_hard": game(alice, level="hard", reason="repetition", must_beat=True),
        "carol_loses_to_easy": game(carol, level="easy", winner=1, reason="resignation", days=9),
        "in_play": Game.objects.create(
            seat0=alice, seat1=bob, trump0="S", trump1="H", status=Game.Status.ACTIVE
        ),
    }


def shown(client, **query):
    response = client.get(reverse("archive:archive"), query)
    assert response.status_code == 200
    return {g.pk for g in response.context["page"].object_list}, response


def test_the_archive_lists_finished_games_newest_first(client, archived):
    response = client.get(reverse("archive:archive"))
    games = list(response.context["page"].object_list)
    assert archived["in_play"] not in games
    assert games[-1] == archived["carol_loses_to_easy"]  # the oldest
    assert len(games) == 4


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"player": "alice"}, {"alice_beats_bob", "bob_beats_alice", "alice_draws_hard"}),
        ({"player": "ALICE", "result": "win"}, {"alice_beats_bob"}),
        ({"player": "alice", "result": "loss"}, {"bob_beats_alice"}),
        ({"player": "alice", "result": "draw"}, {"alice_draws_hard"}),
        ({"result": "draw"}, {"alice_draws_hard"}),
        ({"player": "carol", "result": "loss"}, {"carol_loses_to_easy"}),
        ({"reason": "resignation"}, {"carol_loses_to_easy"}),
        ({"opponent": "person"}, {"alice_beats_bob", "bob_beats_alice"}),
        ({"opponent": "computer"}, {"alice_draws_hard", "carol_loses_to_easy"}),
        ({"opponent": "hard"}, {"alice_draws_hard"}),
        ({"deck": "24"}, {"bob_beats_alice"}),
        ({"must_beat": "yes"}, {"alice_draws_hard"}),
        ({"player": "nobody"}, set()),
    ],
)
def test_the_archive_filters(client, archived, query, expected):
    pks, _ = shown(client, **query)
    assert pks == {archived[name].pk for name in expected}


def test_the_archive_filters_by_date(client, archived):
    today = timezone.now().date()
    pks, _ = shown(client, since=str(today - timedelta(days=5)), until=str(today))
    assert archived["carol_loses_to_easy"].pk not in pks and archived["bob_beats_alice"].pk in pks


def test_won_or_lost_needs_a_player_and_says_so(client, archived):
    pks, response = shown(client, result="win")
    assert pks == set()
    assert "Name a player" in html.unescape(response.content.decode())


def test_the_archive_pages_keeping_its_filters(client, archived, monkeypatch):
    from archive import views as replay_views

    monkeypatch.setattr(replay_views, "GAMES_PER_PAGE", 2)
    first = client.get(reverse("archive:archive"), {"opponent": "person"})
    assert len(first.context["page"].object_list) == 2
    everyone = client.get(reverse("archive:archive"))
    assert everyone.context["page"].paginator.num_pages == 2
    second = client.get(reverse("archive:archive"), {"page": 2})
    assert [g.pk for g in second.context["page"].object_list] == [
        archived["bob_beats_alice"].pk,  # three days old
        archived["carol_loses_to_easy"].pk,  # nine
    ]
    assert "opponent=person" not in everyone.content.decode()
    filtered = client.get(reverse("archive:archive"), {"player": "alice"}).content.decode()
    assert "?player=alice&amp;page=2" in filtered


def test_profiles_link_to_their_games(client, archived):
    profile = client.get(reverse("accounts:profile", args=["alice"])).content.decode()
    assert reverse("archive:archive") + "?player=alice" in profile
    assert reverse("archive:replay", args=[archived["alice_beats_bob"].pk]) in profile


def test_a_stored_blunder_is_marked_in_the_viewer_and_counted(client, finished):
    history = history_of(finished)
    # The first turn alice plays: say the analysis proved her winning before it, losing after.
    ply = next(p for p, position in enumerate(history.positions) if position.to_move == 0)
    estimate = {"value": 0.1, "exact": False, "best": [], "depth": 3, "method": "search"}
    positions = [dict(estimate) for _ in range(finished.moves.count())]
    positions[ply] = {**estimate, "value": "win", "exact": True, "best": ["take"]}
    after = history.positions[ply + 1].to_move
    positions[ply + 1] = {**estimate, "value": "win" if after == 1 else "loss", "exact": True}
    Analysis.objects.create(
        game=finished, seconds=0.1, positions=positions, status=Analysis.Status.DONE
    )
    url = reverse("archive:replay", args=[finished.pk])
    step = html.unescape(client.get(url, {"ply": ply + 1}, **HX).content.decode())
    assert "Blunder:" in step and "it turned a proven win into a loss." in step
    assert step.count('title="Blunder">??</span>') == 1
    assert "Blunders by <bdi>alice</bdi></dt><dd>1 proven, 0 by the estimate</dd>" in step
    # The one turn marked (??) in the move list is bob's, and counted as his.
    assert step.count('title="Blunder (by the estimate)">(??)</span>') == 1
    assert "Blunders by <bdi>bob</bdi></dt><dd>0 proven, 1 by the estimate</dd>" in step


def estimated(finished, for_seat0):
    """A finished analysis of ``finished`` by the estimate alone: a value for seat 0 a ply."""
    history = history_of(finished)
    positions = [
        {"value": value if position.to_move == 0 else -value, "exact": False, "best": []}
        for position, value in zip(history.positions, for_seat0, strict=False)
    ]
    return Analysis.objects.create(
        game=finished, seconds=0.1, positions=positions, status=Analysis.Status.DONE
    )


def test_a_blunder_by_the_estimate_is_counted_apart_from_the_proven_ones(client, finished):
    history = history_of(finished)
    loser = 1 - finished.winner
    # By the estimate the loser leads by 0.5 until their first turn, then trails by 0.9 to the end.
    ply = next(p for p, position in enumerate(history.positions) if position.to_move == loser)
    lead = 1 if loser == 0 else -1
    estimated(finished, [0.5 * lead] * (ply + 1) + [-0.9 * lead] * (history.ply - ply - 1))
    url = reverse("archive:replay", args=[finished.pk])
    step = html.unescape(client.get(url, {"ply": ply + 1}, **HX).content.decode())
    assert "Blunder (by the estimate) (??)" in step
    assert step.count('title="Blunder (by the estimate)">(??)</span>') == 1
    names = [finished.seat_name(seat) for seat in (loser, 1 - loser)]
    assert f"Blunders by <bdi>{names[0]}</bdi></dt><dd>0 proven, 1 by the estimate</dd>" in step
    assert f"Blunders by <bdi>{names[1]}</bdi></dt><dd>0 proven, 0 by the estimate</dd>" in step


@pytest.mark.parametrize("language", ["gl", "he", "hy"])
def test_the_value_chart_writes_its_numbers_with_points_in_every_language(
    client, finished, language
):
    # Galician's decimal comma in an SVG coordinate (x1="205,71") makes Chromium drop the line.
    estimated(finished, [0.1, 0.37, -0.43])
    url = reverse("archive:replay", args=[finished.pk])
    page = client.get(url, {"ply": 3}, headers={"accept-language": language}).content.decode()
    assert f'<html lang="{language}"' in page
    svg = re.search(r"<svg .*?</svg>", page, re.S)[0]
    number = r"-?\d+(?:\.\d+)?"
    coordinates = re.findall(r'\b(?:x1|x2|y1|y2|width|height)="([^"]*)"', svg)
    assert len(coordinates) == 10 and all(re.fullmatch(number, c) for c in coordinates)
    assert re.search(r'viewBox="0 0 \d+ \d+"', svg)
    for points in re.findall(r'points="([^"]*)"', svg):
        assert re.fullmatch(f"{number},{number}( {number},{number})*", points)


def test_an_annulled_game_stays_in_the_archive_without_a_result(client, archived):
    from game.models import Game

    Game.objects.filter(pk=archived["alice_beats_bob"].pk).update(annulled=True)
    everyone, response = shown(client)
    assert archived["alice_beats_bob"].pk in everyone
    assert "annulled" in response.content.decode()
    wins, _ = shown(client, player="alice", result="win")
    assert wins == set()
