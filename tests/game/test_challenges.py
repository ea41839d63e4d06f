"""Challenges through their services: made with a seek's options, accepted into a normal game
(rated or casual) exactly once however many accept at once, declined with a reason, cancelled,
expired; refused to oneself, to and from banned players, to players who hear no one, who hear
only players near their rating, or who muted the challenger."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import services as accounts
from accounts.models import Rating
from accounts.ratings import Speed
from chat import services as chat
from game import challenges
from game.models import Challenge, Game
from game.options import GameOptions
from game.selectors import challenges_answered, challenges_waiting
from game.services import GameError
from tests.groups import told_to_group
from tests.threads import at_once, errors_of

pytestmark = pytest.mark.django_db


def challenges_to(user, now) -> list[Challenge]:
    return challenges_waiting(user, now)[0]


def challenges_by(user, now) -> list[Challenge]:
    return challenges_waiting(user, now)[1]


def challenge(challenger, challenged, trump="S", now=None, **options) -> Challenge:
    options = {"time_control": (3, 2), "rated": True, **options}
    return challenges.challenge_create(
        challenger=challenger,
        challenged=challenged,
        trump=trump,
        options=GameOptions(**options),
        now=now,
    )


def test_an_accepted_challenge_is_a_game_with_its_options_under_way(alice, bob):
    made = challenge(alice, bob, deck=32, must_beat=True)

    game = challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="H")

    game.refresh_from_db()
    assert (game.seat0, game.seat1, game.trump0, game.trump1) == (alice, bob, "S", "H")
    assert (game.deck, game.must_beat, game.sixes_to_owner) == (32, True, False)
    assert (game.clock_initial, game.clock_increment) == (180, 2)
    assert game.status == Game.Status.ACTIVE and game.state is not None
    assert game.rated and game.speed == Speed.BLITZ
    assert game.seat_rating(0) == game.seat_rating(1) == "1500?"  # noted as it began
    made.refresh_from_db()
    assert made.status == Challenge.Status.ACCEPTED and made.game == game
    assert challenges_to(bob, timezone.now()) == challenges_by(alice, timezone.now()) == []


def test_a_casual_untimed_challenge_becomes_a_casual_untimed_game(alice, bob):
    made = challenge(alice, bob, time_control=None, rated=False)
    game = challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="D")
    assert not game.rated and not game.is_timed and game.speed == Speed.UNTIMED


def test_a_challenge_waits_for_its_answer_on_both_sides(alice, bob):
    made = challenge(alice, bob)
    now = timezone.now()
    assert challenges_to(bob, now) == [made] and challenges_by(alice, now) == [made]
    assert challenges_to(alice, now) == [] and challenges_by(bob, now) == []


def test_accepting_twice_gives_one_game(alice, bob):
    made = challenge(alice, bob)
    first = challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="H")
    second = challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="C")
    assert first == second and Game.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_accepting_twice_at_once_gives_one_game(alice, bob):
    made = challenge(alice, bob)

    def accept() -> Game:
        return challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="H")

    games = at_once([accept] * 4)

    assert errors_of(games) == []
    assert Game.objects.count() == 1
    assert {game.pk for game in games} == {Game.objects.get().pk}


def test_only_the_challenged_player_answers(alice, bob, carol):
    made = challenge(alice, bob)
    for user in (alice, carol):
        with pytest.raises(GameError, match="Only the challenged player can accept"):
            challenges.challenge_accept(challenge_id=made.pk, user=user, trump="H")
        with pytest.raises(GameError, match="Only the challenged player can decline"):
            challenges.challenge_decline(challenge_id=made.pk, user=user, reason="later")
    with pytest.raises(GameError, match="Only the challenger can cancel"):
        challenges.challenge_cancel(challenge_id=made.pk, user=bob)


def test_the_accepting_trump_must_differ_from_the_challengers(alice, bob):
    made = challenge(alice, bob, trump="H")
    with pytest.raises(GameError, match="must differ"):
        challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="H")
    made.refresh_from_db()
    assert made.status == Challenge.Status.PENDING and Game.objects.count() == 0


def test_a_declined_challenge_keeps_its_reason_and_can_no_longer_be_accepted(alice, bob):
    made = challenge(alice, bob)

    challenges.challenge_decline(challenge_id=made.pk, user=bob, reason="too_fast")

    made.refresh_from_db()
    assert made.status == Challenge.Status.DECLINED
    assert made.get_decline_reason_display() == "This time control is too fast for me."
    with pytest.raises(GameError, match="was declined"):
        challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="H")
    assert challenges_answered(alice) == [made]
    # Declined, it may be sent again.
    assert challenge(alice, bob).status == Challenge.Status.PENDING


def test_a_reason_off_the_list_is_refused(alice, bob):
    made = challenge(alice, bob)
    with pytest.raises(GameError, match="reason from the list"):
        challenges.challenge_decline(challenge_id=made.pk, user=bob, reason="you smell")


def test_a_cancelled_challenge_can_no_longer_be_accepted(alice, bob):
    made = challenge(alice, bob)
    challenges.challenge_cancel(challenge_id=made.pk, user=alice)
    with pytest.raises(GameError, match="was cancelled"):
        challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="H")


def test_a_challenge_expires(alice, bob):
    sent = timezone.now() - challenges.EXPIRY - timedelta(seconds=1)
    made = challenge(alice, bob, now=sent)
    assert challenges_to(bob, timezone.now()) == []  # shown to no one
    assert challenges_by(alice, timezone.now()) == []
    assert challenges_answered(alice)[0].status_shown == "expired"

    with pytest.raises(GameError, match="has expired"):
        challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="H")

    made.refresh_from_db()
    assert made.status == Challenge.Status.EXPIRED  # marked so, though the answer was refused
    assert Game.objects.count() == 0
    assert challenge(alice, bob).status == Challenge.Status.PENDING  # a new one may be sent


def test_one_challenge_at_a_time_to_the_same_player(alice, bob, carol):
    challenge(alice, bob)
    with pytest.raises(GameError, match="already challenged \N{FIRST STRONG ISOLATE}bob"):
        challenge(alice, bob)
    challenge(alice, carol)
    challenge(bob, alice)


def test_the_options_are_checked_as_a_seeks(alice, bob):
    with pytest.raises(GameError, match="time control is not offered"):
        challenge(alice, bob, time_control=(2, 0))
    with pytest.raises(GameError, match="Sixes to owner needs the 36-card pack"):
        challenge(alice, bob, deck=24, sixes_to_owner=True)
    assert not Challenge.objects.exists()


def test_no_one_challenges_themselves(alice):
    with pytest.raises(GameError, match="cannot challenge yourself"):
        challenge(alice, alice)


def test_a_player_who_hears_no_one_is_not_challenged(alice, bob):
    accounts.profile_set_challenges_from(user=bob, choice="no_one")
    with pytest.raises(
        GameError, match="bob\N{POP DIRECTIONAL ISOLATE} does not accept challenges"
    ):
        challenge(alice, bob)
    accounts.profile_set_challenges_from(user=bob, choice="everyone")
    challenge(alice, bob)


def test_a_player_who_muted_the_challenger_is_not_challenged_by_them(alice, bob, carol):
    chat.chat_mute_set(user=bob, other=alice, muted=True)
    with pytest.raises(GameError, match="does not accept your challenges"):
        challenge(alice, bob)
    challenge(carol, bob)
    challenge(bob, alice)  # the mute is bob's own choice: he may still challenge alice


def test_banned_players_neither_challenge_nor_are_challenged(alice, bob, carol, moderator):
    from moderation import services as moderation

    waiting = challenge(alice, carol)
    moderation.moderation_ban(moderator=moderator, user=alice, reason="abuse")
    alice.refresh_from_db()
    with pytest.raises(GameError, match="Your account cannot challenge anyone"):
        challenge(alice, bob)
    with pytest.raises(GameError, match="can no longer play"):
        challenge(bob, alice)
    # The challenge sent before the ban is shown to no one and cannot be accepted.
    assert challenges_to(carol, timezone.now()) == []
    with pytest.raises(GameError, match="can no longer play"):
        challenges.challenge_accept(challenge_id=waiting.pk, user=carol, trump="H")


def test_near_my_rating_takes_only_players_within_the_range_in_the_games_speed(alice, bob, carol):
    accounts.profile_set_challenges_from(user=bob, choice="near")
    Rating.objects.create(user=bob, speed=Speed.BLITZ, rating=1900, deviation=60)
    Rating.objects.create(user=carol, speed=Speed.BLITZ, rating=1650, deviation=60)
    with pytest.raises(GameError, match="within 300 points of their Blitz rating"):
        challenge(alice, bob)  # 1500 against 1900, in blitz
    challenge(carol, bob)  # 1650 against 1900
    challenge(alice, bob, time_control=(10, 5))  # rapid: both at the start


@pytest.mark.django_db(transaction=True)
def test_each_change_tells_both_players_once_committed(alice, bob):
    from game.live import user_group

    for user in (alice, bob):
        heard = told_to_group(user_group(user.pk), lambda: challenge(alice, bob, rated=False))
        assert heard["type"] == "challenge.changed"
        Challenge.objects.all().delete()
    made = challenge(alice, bob)
    heard = told_to_group(
        user_group(alice.pk),
        lambda: challenges.challenge_decline(challenge_id=made.pk, user=bob, reason="later"),
    )
    assert heard == {"type": "challenge.changed", "challenge": made.pk}
