"""The computer's replies and the analyses as durable tasks: asked for on commit, run by a
worker once due, and asked for again after a crash."""

import os
import socket
import subprocess
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult

from archive import analysis
from archive import services as archive_services
from archive.models import Analysis
from game import tasks
from game.models import Game
from game.options import GameOptions
from game.selectors import stored_state
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_create_vs_computer, game_join
from tests.games import finished_game
from yourtrumps_site.serving import parent_death, recovery, workers

pytestmark = pytest.mark.django_db


def replies():
    return DBTaskResult.objects.filter(task_path="game.tasks.computer_reply").order_by(
        "enqueued_at"
    )


@pytest.fixture
def person_to_move(alice, django_capture_on_commit_callbacks):
    """A game against the computer where alice, the person, leads (no reply asked for yet)."""
    for _ in range(40):
        with django_capture_on_commit_callbacks(execute=True):
            game = game_create_vs_computer(user=alice, level="easy", trump="S")
        if stored_state(game).position.to_move == 0:
            assert not replies().filter(args_kwargs__args=[game.pk, 0]).exists()
            return game
        assert replies().filter(args_kwargs__args=[game.pk, 0]).exists()  # the computer leads
    raise AssertionError("the computer led 40 games running")


def lead(game, alice):
    state = stored_state(game)
    notation = str(state.legal_moves()[0])
    return game_play_move(game_id=game.pk, user=alice, notation=notation, expected_ply=state.ply)


def test_a_turn_that_leaves_the_computer_to_move_asks_for_its_reply_on_commit(
    person_to_move, alice, settings, django_capture_on_commit_callbacks
):
    settings.COMPUTER_PAUSE = 0.6
    before = replies().count()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        lead(person_to_move, alice)
    assert replies().count() == before  # nothing is asked for before the commit
    for callback in callbacks:
        callback()
    reply = replies().last()
    assert reply.args_kwargs["args"] == [person_to_move.pk, 1]
    assert reply.queue_name == "computer" and reply.status == TaskResultStatus.READY
    pause = (reply.run_after - reply.enqueued_at).total_seconds()
    assert 0.55 < pause < 0.7  # due once the deliberate pause has passed


def test_the_worker_plays_the_reply_once_it_is_due(
    person_to_move, alice, settings, run_tasks, django_capture_on_commit_callbacks
):
    settings.COMPUTER_PAUSE = 30
    with django_capture_on_commit_callbacks(execute=True):
        lead(person_to_move, alice)
    run_tasks()
    assert person_to_move.moves.count() == 1  # still in its pause

    replies().update(run_after=timezone.now())
    run_tasks()
    assert [(m.ply, m.player) for m in person_to_move.moves.order_by("ply")] == [(0, 0), (1, 1)]
    assert replies().last().status == TaskResultStatus.SUCCESSFUL


def test_a_reply_for_a_ply_the_game_has_left_plays_nothing(person_to_move, alice, run_tasks):
    lead(person_to_move, alice)
    tasks.computer_reply.enqueue(person_to_move.pk, 5)
    run_tasks()
    assert person_to_move.moves.count() == 1
    assert replies().last().status == TaskResultStatus.SUCCESSFUL


def dead_pid():
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_recovery_fails_the_tasks_of_dead_workers_and_asks_again_for_their_replies(
    person_to_move, alice, run_tasks
):
    lead(person_to_move, alice)
    Game.objects.filter(pk=person_to_move.pk).update(
        turn_started_at=timezone.now() - timedelta(seconds=10)
    )
    here = socket.gethostname()[:40]
    now = timezone.now()

    def running(worker, started=now, game_id=person_to_move.pk):
        found = tasks.computer_reply.enqueue(game_id, 1).db_result
        found.claim(worker)
        DBTaskResult.objects.filter(pk=found.pk).update(started_at=started)
        return found.pk

    dead_here = running(f"{here}:{dead_pid()}:123")
    alive_here = running(recovery.worker_id(), game_id=-1)
    alive_elsewhere = running("elsewhere:1:1", game_id=-2)
    dead_elsewhere = running("elsewhere:1:1", now - timedelta(minutes=2), game_id=-3)

    assert recovery.fail_dead_tasks(["computer"]) == 2
    status = dict(DBTaskResult.objects.values_list("pk", "status"))
    assert status[dead_here] == status[dead_elsewhere] == TaskResultStatus.FAILED
    assert status[alive_here] == status[alive_elsewhere] == TaskResultStatus.RUNNING
    (error,) = DBTaskResult.objects.get(pk=dead_here).task_result.errors
    assert error.exception_class is recovery.WorkerDied  # a class that exists, for the admin

    assert tasks.ask_for_lost_replies() == 1
    assert tasks.ask_for_lost_replies() == 0  # one is pending now
    DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING).delete()
    run_tasks()
    assert person_to_move.moves.count() == 2  # the computer's reply came after all


def test_a_game_left_without_its_reply_gets_one(person_to_move, alice, run_tasks):
    lead(person_to_move, alice)
    replies().delete()  # as if the process died between the commit and the enqueue
    run_tasks()
    assert person_to_move.moves.count() == 1  # within the grace, the request may still come
    Game.objects.filter(pk=person_to_move.pk).update(
        turn_started_at=timezone.now() - timedelta(seconds=10)
    )
    run_tasks()
    assert person_to_move.moves.count() == 2


def test_a_recovery_that_fails_is_logged_and_the_worker_still_plays_the_reply(
    person_to_move, alice, run_tasks, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    """The recovery runs beside the worker: what goes wrong in it is logged (and tried again a
    round later), and the worker serves on."""
    with django_capture_on_commit_callbacks(execute=True):
        lead(person_to_move, alice)
    replies().update(run_after=timezone.now())
    failures = []

    def recover_failing(queues):
        failures.append(queues)
        raise RuntimeError("the database went away")

    monkeypatch.setattr(recovery, "recover", recover_failing)
    run_tasks()
    assert failures and "the database went away" in caplog.text
    assert person_to_move.moves.count() == 2  # the computer's reply came all the same


def test_an_embedded_worker_serves_again_after_an_error_around_its_tasks(
    person_to_move, alice, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    """An embedded worker has nobody to restart it: an error that ends django-tasks-db's loop
    (not a task's own, which is recorded on the task) is logged and the loop run again."""
    with django_capture_on_commit_callbacks(execute=True):
        lead(person_to_move, alice)
    replies().update(run_after=timezone.now())
    monkeypatch.setattr(db_worker, "close_old_connections", lambda: None)
    monkeypatch.setattr(workers, "RETRY_AFTER", 0)
    worker = db_worker.Worker(
        queue_names=["computer"],
        interval=0,
        batch=True,  # returns once nothing is due, as a loop that serves on would sleep
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
    runs = []

    def run_failing_once():
        runs.append(1)
        if len(runs) == 1:
            raise OperationalError("the database went away")
        db_worker.Worker.run(worker)

    monkeypatch.setattr(worker, "run", run_failing_once)
    workers.serve_forever(worker)
    assert len(runs) == 2 and "the database went away" in caplog.text
    assert person_to_move.moves.count() == 2


def test_an_analysis_stopped_midway_resumes_where_it_stopped(alice, bob, run_tasks):
    game = finished_game(alice, bob)
    found, _ = archive_services.analysis_request(user=alice, game_id=game.pk, seconds=0.02)
    for _ in range(3):
        analysis.step(found.pk)
    Analysis.objects.filter(pk=found.pk).update(updated_at=timezone.now() - timedelta(seconds=10))
    reviews = Analysis.objects.get(pk=found.pk).positions
    assert len(reviews) == 3
    run_tasks()
    found.refresh_from_db()
    assert found.status == Analysis.Status.DONE
    assert found.positions[:3] == reviews and len(found.positions) == game.moves.count()


def test_a_worker_looks_for_work_every_task_poll_ms(settings):
    from django.core.management import get_commands, load_command_class

    command = load_command_class(get_commands()["db_worker"], "db_worker")
    options = command.create_parser("manage.py", "db_worker").parse_args([])
    assert options.interval == settings.TASK_POLL_SECONDS
    assert options.queue_name == "computer,analysis,clock"


def test_finished_tasks_are_pruned_after_a_day():
    old, new = (tasks.computer_reply.enqueue(n, 0).db_result for n in (1, 2))
    for found, age in ((old, timedelta(days=2)), (new, timedelta(hours=1))):
        found.set_successful(None)
        DBTaskResult.objects.filter(pk=found.pk).update(finished_at=timezone.now() - age)
    pending = tasks.computer_reply.enqueue(3, 0).db_result
    assert recovery.prune_finished(["computer"]) == 1
    assert set(DBTaskResult.objects.values_list("pk", flat=True)) == {new.pk, pending.pk}


@pytest.mark.parametrize(
    ("task_worker", "use_reloader", "done"),
    [
        ("embedded", True, [("dies with", os.getppid()), "workers", "serving"]),
        ("embedded", False, ["workers", "serving"]),  # --noreload: no parent to die with
        ("external", True, ["serving"]),
        ("external", False, ["serving"]),
    ],
)
def test_runserver_starts_the_embedded_workers_when_told_to(
    task_worker, use_reloader, done, monkeypatch, settings
):
    """What `make run` does as it starts serving, with the effects recorded."""
    from daphne.management.commands.runserver import Command as DaphneRunserver

    from yourtrumps_site.serving.management.commands.runserver import Command

    settings.TASK_WORKER = task_worker
    seen = []
    monkeypatch.setattr(
        parent_death, "die_with_parent", lambda parent: seen.append(("dies with", parent))
    )
    monkeypatch.setattr(workers, "start_embedded", lambda: seen.append("workers"))
    monkeypatch.setattr(DaphneRunserver, "inner_run", lambda self, *a, **o: seen.append("serving"))
    Command().inner_run(None, use_reloader=use_reloader)
    assert seen == done


def test_loading_the_apps_starts_no_workers(monkeypatch):
    """Only runserver starts them: not the app's ready(), whatever the process (a bare Daphne,
    a command, these tests)."""
    from django.apps import apps

    seen = []
    monkeypatch.setattr("sys.argv", ["manage.py", "runserver", "127.0.0.1:8000"])
    monkeypatch.setenv("RUN_MAIN", "true")
    monkeypatch.setattr(workers, "start_embedded", lambda: seen.append("workers"))
    apps.get_app_config("game").ready()
    assert seen == []


# -- flags fall with nobody watching -----------------------------------------------------------


def flag_checks(game):
    return DBTaskResult.objects.filter(
        task_path="game.tasks.flag_check", args_kwargs__args=[game.pk]
    ).order_by("enqueued_at")


@pytest.fixture
def timed_game(alice, bob, django_capture_on_commit_callbacks):
    """A 1+1 game between people, begun with its commit's callbacks run."""
    with django_capture_on_commit_callbacks(execute=True):
        seek = game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(1, 1)))
        return game_join(game_id=seek.pk, user=bob, trump="H")


def test_a_timed_game_asks_for_a_flag_check_due_when_a_flag_can_first_fall(timed_game):
    (check,) = flag_checks(timed_game)
    assert check.queue_name == "clock" and check.status == TaskResultStatus.READY
    assert check.run_after == timed_game.turn_started_at + timedelta(seconds=60)


def test_the_flag_falls_with_nobody_watching_and_the_table_is_told(
    timed_game, run_tasks, django_capture_on_commit_callbacks
):
    from game.live import game_group
    from tests.groups import told_to_group

    Game.objects.filter(pk=timed_game.pk).update(
        turn_started_at=timed_game.turn_started_at - timedelta(seconds=61)
    )
    flag_checks(timed_game).update(run_after=timezone.now())

    def run():
        with django_capture_on_commit_callbacks(execute=True):
            run_tasks()

    told = told_to_group(game_group(timed_game.pk), run)
    timed_game.refresh_from_db()
    loser = stored_state(timed_game).position.to_move
    assert (timed_game.status, timed_game.reason) == (Game.Status.FINISHED, Game.Reason.TIMEOUT)
    assert timed_game.winner == 1 - loser
    assert told["version"] == timed_game.version
    assert {"kind": "Ended", "status": "finished", "reason": "timeout", "winner": 1 - loser} in (
        told["events"]
    )
    assert flag_checks(timed_game).last().status == TaskResultStatus.SUCCESSFUL
    assert not flag_checks(timed_game).filter(status=TaskResultStatus.READY).exists()


def test_a_check_with_time_left_asks_for_the_next_when_a_flag_can_fall(timed_game, run_tasks):
    mover = stored_state(timed_game).position.to_move
    clocks = {f"clock{mover}_ms": 60_000, f"clock{1 - mover}_ms": 10_000}
    started = timed_game.turn_started_at - timedelta(seconds=20)
    Game.objects.filter(pk=timed_game.pk).update(turn_started_at=started, **clocks)
    flag_checks(timed_game).update(run_after=timezone.now())
    before = timezone.now()
    run_tasks()
    after = timezone.now()
    timed_game.refresh_from_db()
    assert timed_game.status == Game.Status.ACTIVE
    # The mover has 40 s left, but if they move at once the other runs out 10 s later.
    (check,) = flag_checks(timed_game).filter(status=TaskResultStatus.READY)
    ten = timedelta(seconds=10)
    assert before + ten <= check.run_after <= after + ten


def test_a_timed_game_left_without_its_flag_check_gets_one(timed_game):
    flag_checks(timed_game).delete()
    Game.objects.filter(pk=timed_game.pk).update(
        started_at=timed_game.started_at - timedelta(seconds=5)
    )
    recovery.recover([tasks.CLOCK_QUEUE])
    (check,) = flag_checks(timed_game)
    assert check.status == TaskResultStatus.READY
    recovery.recover([tasks.CLOCK_QUEUE])
    assert flag_checks(timed_game).count() == 1  # one pending is enough
