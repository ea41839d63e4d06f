"""Stored games: the game row and its move log.

The move log is the source of truth: a game's position is the seed's deal
replayed through its moves (:func:`game.selectors.replay`), so a restart loses
nothing and a replay is exact. The row keeps what the log cannot say (who
sits where, the clocks, how the game ended) and, for speed, the state the log
leads to, written in the same transaction as each move.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.ratings import Speed, shown, speed_of
from accounts.selectors import player_name
from game import engine
from game.ai import LEVELS
from game.levels import level_name

SUITS = [("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣")]


def new_seed() -> int:
    """A deal's seed: random, positive, and small enough for any database's bigint."""
    return secrets.randbelow(2**62)


def new_invite_token() -> str:
    return secrets.token_urlsafe(12)


class Game(models.Model):
    """One game between two seats: seat 0 created it, seat 1 joined (or is the computer)."""

    class Status(models.TextChoices):
        SEEKING = "seeking", _("waiting for an opponent")
        ACTIVE = "active", _("in play")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    class Reason(models.TextChoices):
        EMPTY_HAND = "empty_hand", _("emptied their hand")
        LAST_CARD = "last_card", _("beat with the last card")
        REPETITION = "repetition", _("the same position arose three times")
        RESIGNATION = "resignation", _("resignation")
        TIMEOUT = "timeout", _("time ran out")
        AGREEMENT = "agreement", _("draw agreed")
        MODERATOR = "moderator", _("a moderator's decision")
        ABANDONED = "abandoned", _("the opponent left the game")
        ABORTED = "aborted", _("aborted before both had played")
        CANCELLED = "cancelled", _("seek cancelled")

    seat0 = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="games_in_seat0",
        verbose_name=_("creator"),
    )
    seat1 = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="games_in_seat1",
        null=True,
        blank=True,
        verbose_name=_("opponent"),
    )
    ai_level = models.CharField(
        _("computer level"),
        max_length=16,
        blank=True,
        choices=[(level, level) for level in LEVELS],
        help_text=_("Set when the computer holds seat 1."),
    )
    trump0 = models.CharField(_("creator's trump"), max_length=1, choices=SUITS)
    trump1 = models.CharField(_("opponent's trump"), max_length=1, choices=SUITS, blank=True)
    deck = models.PositiveSmallIntegerField(
        _("pack"), choices=[(36, "36"), (32, "32"), (24, "24")], default=36
    )
    must_beat = models.BooleanField(_("must beat"), default=False)
    sixes_to_owner = models.BooleanField(_("sixes to owner"), default=False)
    #: The deal's seed. A fair deal's is made from the three parts below as play begins
    #: (``game.engine.fairness``); like ``secret`` it is shown nowhere before the game is over
    #: (:attr:`deal_revealed`).
    seed = models.BigIntegerField(_("deal seed"), default=new_seed)
    #: The server's part of the deal (hex), drawn as the game is created; empty for a game made
    #: before deals could be checked, dealt from its ``seed`` alone.
    secret = models.CharField(max_length=64, blank=True, editable=False)
    #: SHA-256 of ``secret``, shown from the start: the server cannot change its part afterwards.
    commitment = models.CharField(max_length=64, blank=True, editable=False)
    #: Each seat's part of the deal (hex), and whether its browser sent it (else the server drew
    #: it: a browser without JavaScript, or the computer's seat).
    part0 = models.CharField(max_length=64, blank=True, editable=False)
    part1 = models.CharField(max_length=64, blank=True, editable=False)
    part0_from_browser = models.BooleanField(default=False, editable=False)
    part1_from_browser = models.BooleanField(default=False, editable=False)
    first_player = models.PositiveSmallIntegerField(_("seat to start"), null=True, blank=True)

    clock_initial = models.PositiveIntegerField(
        _("minutes per player, in seconds"), null=True, blank=True, help_text=_("Empty: untimed.")
    )
    clock_increment = models.PositiveIntegerField(_("increment per turn, in seconds"), default=0)
    clock0_ms = models.IntegerField(_("seat 0's time left (ms)"), null=True, blank=True)
    clock1_ms = models.IntegerField(_("seat 1's time left (ms)"), null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)

    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.SEEKING
    )
    winner = models.PositiveSmallIntegerField(_("winning seat"), null=True, blank=True)
    reason = models.CharField(_("how it ended"), max_length=16, choices=Reason.choices, blank=True)
    draw_offer = models.PositiveSmallIntegerField(_("draw offered by seat"), null=True, blank=True)
    #: The ply at which a draw offer was last declined: the table says so until the next turn.
    draw_declined_ply = models.PositiveIntegerField(null=True, blank=True)
    #: A finished game's rematch, asked for by this seat: it starts once the other seat agrees.
    rematch_offer = models.PositiveSmallIntegerField(
        _("rematch asked for by seat"), null=True, blank=True
    )

    private = models.BooleanField(_("by invitation only"), default=False)
    #: Whether the result changes the players' ratings in the game's speed (:attr:`speed`).
    rated = models.BooleanField(_("rated"), default=False)
    #: A rated game's players' ratings in its speed as it began, shown beside their names (seat
    #: 0's as its seek was made, until someone joins); provisional ones are shown with a ``?``.
    rating0 = models.SmallIntegerField(null=True, blank=True, editable=False)
    rating1 = models.SmallIntegerField(null=True, blank=True, editable=False)
    provisional0 = models.BooleanField(default=False, editable=False)
    provisional1 = models.BooleanField(default=False, editable=False)
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    rematch_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches"
    )
    annulled = models.BooleanField(
        _("annulled"),
        default=False,
        help_text=_("Annulled by a moderator: the game is kept but counts for nothing."),
    )
    #: Bumped on every change that viewers must see; a client that sees a gap re-fetches.
    version = models.PositiveIntegerField(default=0)
    #: The game as it stands (``engine.GameState.to_json``: position, ply, and how often the
    #: position has arisen, the earlier positions' keys being in the log: ``Move.key``), updated
    #: in the same transaction as each new move row so that no request replays the log, and the
    #: same size all game. The log stays the truth: :func:`game.selectors.check_state`.
    state = models.JSONField(null=True, blank=True, editable=False)
    #: Set by the first line of the game's chat (``game.services.chat.game_chat_post``), never
    #: cleared: a game without it has an empty chat, shown without reading it. Not a change of the
    #: table, so not under ``version``: a copy of the game kept at its version may miss it.
    chat_started = models.BooleanField(default=False, editable=False)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        indexes = (models.Index(fields=["status", "-created_at"]),)
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        players = f"{self.seat_name(0)} vs {self.seat_name(1)}"
        return f"#{self.pk} {players} ({self.get_status_display()})"

    def get_absolute_url(self) -> str:
        return reverse("game:table", args=[self.pk])

    @property
    def rules(self) -> engine.Rules:
        return engine.Rules(
            deck=self.deck, must_beat=self.must_beat, sixes_to_owner=self.sixes_to_owner
        )

    @property
    def trumps(self) -> tuple[engine.Suit, engine.Suit]:
        return (engine.Suit.parse(self.trump0), engine.Suit.parse(self.trump1))

    @property
    def is_timed(self) -> bool:
        return self.clock_initial is not None

    @property
    def against_computer(self) -> bool:
        return bool(self.ai_level)

    @property
    def deal_revealed(self) -> bool:
        """Whether the deal may be shown (its seed, the server's secret): a game over once dealt.
        Known while a seek waits, the secret would let the joiner pick a part, and so a deal, to
        suit them (and an older seek's seed is its deal); after the deal both hands are open
        anyway (RULES.md), but the game's end is the simple line to hold."""
        over = self.status in (Game.Status.FINISHED, Game.Status.ABORTED)
        return over and self.started_at is not None

    @property
    def speed(self) -> Speed:
        """The speed its time control falls into: the rating a rated game changes."""
        return speed_of(self.clock_initial, self.clock_increment)

    def seat_of(self, user: object) -> int | None:
        """The seat ``user`` holds in this game, or ``None`` for a spectator."""
        user_id = getattr(user, "pk", None)
        if user_id is None:
            return None
        if user_id == self.seat0_id:
            return 0
        if user_id == self.seat1_id and not self.ai_level:
            return 1
        return None

    @property
    def seat0_name(self) -> str:
        return self.seat_name(0)

    @property
    def seat1_name(self) -> str:
        return self.seat_name(1)

    def seat_name(self, seat: int) -> str:
        """Who holds ``seat``, as every page, table, replay and record names them."""
        if seat == 0:
            return player_name(self.seat0)
        if self.ai_level:
            return str(_("Computer (%(level)s)") % {"level": level_name(self.ai_level)})
        # A seek's empty seat; the game's status says whether it still waits.
        return player_name(self.seat1) if self.seat1_id else str(_("no opponent"))

    def seat_rating(self, seat: int) -> str:
        """The rating of who holds ``seat`` as the game began (``1500?``), written beside their
        name; empty for a casual game, whose result changes no rating."""
        rating, provisional = (
            (self.rating0, self.provisional0) if seat == 0 else (self.rating1, self.provisional1)
        )
        return shown(rating, provisional) if self.rated and rating is not None else ""


class Move(models.Model):
    """One turn of a game's log, in RULES.md notation."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField(_("ply"), help_text=_("0 for the game's first turn."))
    player = models.PositiveSmallIntegerField(_("seat"))
    notation = models.CharField(_("turn"), max_length=8)
    time_spent_ms = models.PositiveIntegerField(_("time spent (ms)"), default=0)
    # Given by the turn (its one clock reading, the game's ``turn_started_at`` too); a default,
    # not ``auto_now_add``, which would replace it on save.
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    #: The position after the turn (``engine.repetition_key``): a turn counts how often its
    #: position arose before with one indexed read, so the stored state need not list them.
    key = models.CharField(max_length=100, default="", editable=False)

    class Meta:
        ordering = ("game", "ply")
        constraints = (models.UniqueConstraint(fields=["game", "ply"], name="one_move_per_ply"),)
        indexes = (models.Index(fields=["game", "key"], name="move_position"),)
        verbose_name = _("move")
        verbose_name_plural = _("moves")

    def __str__(self) -> str:
        return f"{self.game_id}/{self.ply}: {self.notation}"


class PoolEntry(models.Model):
    """A player waiting in the quick-pairing pool (``game.pool``) for an opponent of near rating
    in one time control, through one open socket; deleted when paired or when the socket closes.
    Kept in the database so that every server process pairs from the same pool."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pool_entry"
    )
    clock_initial = models.PositiveIntegerField(_("minutes per player, in seconds"))
    clock_increment = models.PositiveIntegerField(_("increment per turn, in seconds"))
    rated = models.BooleanField(_("rated"), default=True)
    #: The player's rating in the time control's speed as they entered: the pairing compares these.
    rating = models.SmallIntegerField()
    #: The socket waiting for the pairing: told the new table's address once paired.
    channel_name = models.CharField(max_length=200, unique=True)
    entered_at = models.DateTimeField()
    #: When its socket last asked for a pairing (once a second): an entry left unseen (its
    #: server stopped without closing the socket) is paired with nobody.
    seen_at = models.DateTimeField()

    class Meta:
        indexes = (models.Index(fields=["clock_initial", "clock_increment", "rated", "rating"]),)
        verbose_name = _("pool entry")
        verbose_name_plural = _("pool entries")

    def __str__(self) -> str:
        return f"{self.user_id} in {self.clock_initial // 60}+{self.clock_increment}"


class Challenge(models.Model):
    """One player's invitation to another to play a game with the options it names; accepted, it
    becomes a game like any other (``game.challenges``)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for an answer")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        CANCELLED = "cancelled", _("cancelled")
        EXPIRED = "expired", _("expired")

    class DeclineReason(models.TextChoices):
        """Why a challenge was declined: a fixed list (lichess's), so that the answer reads in the
        challenger's own language and carries no free text to moderate."""

        GENERIC = "generic", _("I am not accepting challenges at the moment.")
        LATER = "later", _("This is not the right time for me, please ask again later.")
        TOO_FAST = "too_fast", _("This time control is too fast for me.")
        TOO_SLOW = "too_slow", _("This time control is too slow for me.")
        TIMED = "timed", _("I would rather play on the clock.")
        UNTIMED = "untimed", _("I would rather play untimed.")
        RATED = "rated", _("I would rather play rated games.")
        CASUAL = "casual", _("I would rather play casual games.")
        VARIANT = "variant", _("I would rather not play these rules.")

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="challenges_sent",
        verbose_name=_("challenger"),
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="challenges_received",
        verbose_name=_("challenged player"),
    )
    # The game options, as a seek keeps them: the challenger's trump, the rules and the clock.
    trump = models.CharField(_("challenger's trump"), max_length=1, choices=SUITS)
    deck = models.PositiveSmallIntegerField(
        _("pack"), choices=[(36, "36"), (32, "32"), (24, "24")], default=36
    )
    must_beat = models.BooleanField(_("must beat"), default=False)
    sixes_to_owner = models.BooleanField(_("sixes to owner"), default=False)
    clock_initial = models.PositiveIntegerField(
        _("minutes per player, in seconds"), null=True, blank=True, help_text=_("Empty: untimed.")
    )
    clock_increment = models.PositiveIntegerField(_("increment per turn, in seconds"), default=0)
    rated = models.BooleanField(_("rated"), default=False)

    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    decline_reason = models.CharField(
        _("reason for declining"), max_length=10, choices=DeclineReason.choices, blank=True
    )
    #: The game an accepted challenge became.
    game = models.OneToOneField(
        Game, on_delete=models.SET_NULL, null=True, blank=True, related_name="challenge"
    )
    created_at = models.DateTimeField()
    #: A challenge still waiting at this moment is expired: refused if accepted, shown to no one.
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-pk")
        indexes = (
            models.Index(fields=["challenged", "status"]),
            models.Index(fields=["challenger", "status"]),
        )
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")

    def __str__(self) -> str:
        return f"#{self.pk} {self.challenger} → {self.challenged} ({self.status})"

    @property
    def status_shown(self) -> str:
        """The status as it stands now, for a page: one left waiting past its expiry is expired."""
        if self.status == self.Status.PENDING and self.expires_at <= timezone.now():
            return str(self.Status.EXPIRED.label)
        return str(self.get_status_display())

    @property
    def time_control(self) -> tuple[int, int] | None:
        """The clock as the lobby's forms and the services name it: (minutes, increment)."""
        if self.clock_initial is None:
            return None
        return self.clock_initial // 60, self.clock_increment

    @property
    def clock(self) -> str:
        """The time control as the lobby writes it (``3+2``); empty when untimed."""
        control = self.time_control
        return f"{control[0]}+{control[1]}" if control is not None else ""

    @property
    def speed(self) -> Speed:
        return speed_of(self.clock_initial, self.clock_increment)

    @property
    def expires_ms(self) -> int:
        """When it expires, in milliseconds since the epoch, for the page's script."""
        return int(self.expires_at.timestamp() * 1000)

    @property
    def challenger_name(self) -> str:
        return player_name(self.challenger)

    @property
    def challenged_name(self) -> str:
        return player_name(self.challenged)
