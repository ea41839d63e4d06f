"""The computer's replies and the analyses as durable tasks: asked for on commit, run by a
worker once due, and asked for again after a crash."""

import os
import socket
import subprocess
import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from archive import analysis
from archive import services as archive_services
from archive import tasks as archive_tasks
from archive.models import Analysis
from game import services, tasks, workers
from game.models import Game
from game.selectors import stored_state
from tests.games import finished_game

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
            game = services.game_create_vs_computer(user=alice, level="easy", trump="S")
        if stored_state(game).position.to_move == 0:
            assert not replies().filter(args_kwargs__args=[game.pk, 0]).exists()
            return game
        assert replies().filter(args_kwargs__args=[game.pk, 0]).exists()  # the computer leads
    raise AssertionError("the computer led 40 games running")


def lead(game, alice):
    state = stored_state(game)
    notation = str(state.legal_moves()[0])
    return services.game_play_move(
        game_id=game.pk, user=alice, notation=notation, expected_ply=state.ply
    )


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
    alive_here = running(tasks.worker_id(), game_id=-1)
    alive_elsewhere = running("elsewhere:1:1", game_id=-2)
    dead_elsewhere = running("elsewhere:1:1", now - timedelta(minutes=2), game_id=-3)

    assert tasks.fail_dead_tasks(["computer"]) == 2
    status = dict(DBTaskResult.objects.values_list("pk", "status"))
    assert status[dead_here] == status[dead_elsewhere] == TaskResultStatus.FAILED
    assert status[alive_here] == status[alive_elsewhere] == TaskResultStatus.RUNNING

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


def test_a_worker_outlives_an_error_around_its_tasks_and_still_plays_the_reply(
    person_to_move, alice, run_tasks, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    """An embedded worker has nobody to restart it: an error in its own work (here its
    recovery, which once failed while the apps were still loading) is logged and tried again."""
    with django_capture_on_commit_callbacks(execute=True):
        lead(person_to_move, alice)
    replies().update(run_after=timezone.now())
    recover, failures = tasks.recover, []

    def recover_failing_once(queues):
        if not failures:
            failures.append(queues)
            raise RuntimeError("the database went away")
        recover(queues)

    monkeypatch.setattr(tasks, "recover", recover_failing_once)
    monkeypatch.setattr(workers, "RETRY_AFTER", 0)
    monkeypatch.setattr(workers, "RECOVER_EVERY", 0)  # recover on every look: fail, then work
    run_tasks()
    assert failures and "the database went away" in caplog.text
    assert person_to_move.moves.count() == 2  # the computer's reply came all the same


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


def test_an_idle_worker_sleeps_until_the_earliest_task_is_due_or_a_poll():
    tasks_ = DBTaskResult.objects.all()
    assert workers._until_due(tasks_, 0.05) == 0.05  # nothing waiting
    tasks.computer_reply.using(run_after=timezone.now() + timedelta(seconds=0.03)).enqueue(1, 0)
    assert 0 < workers._until_due(tasks_, 0.05) <= 0.03
    tasks.computer_reply.using(run_after=timezone.now() - timedelta(seconds=1)).enqueue(2, 0)
    assert workers._until_due(tasks_, 0.05) == 0


def test_the_doorbell_wakes_a_waiting_worker_at_once_and_a_late_waiter_does_not_wait():
    bell = tasks.Doorbell()
    seen = bell.rings
    waited = []

    def wait():
        started = time.monotonic()
        bell.wait(seen, timeout=30)
        waited.append(time.monotonic() - started)

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.1)
    bell.ring()
    waiter.join(timeout=5)
    assert waited and waited[0] < 5
    started = time.monotonic()
    bell.wait(seen, timeout=30)  # rung since ``seen``: no wait at all
    assert time.monotonic() - started < 1


def test_queueing_a_reply_or_an_analysis_rings_this_process_s_workers():
    before = tasks.DOORBELL.rings
    tasks.ask_for_reply(1, 0)
    archive_tasks.ask_for_analysis(1)
    assert tasks.DOORBELL.rings == before + 2


needs_postgres = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL"),
    reason="DATABASE_URL is not set: LISTEN/NOTIFY is PostgreSQL's",
)


@needs_postgres
@pytest.mark.django_db(transaction=True)  # a NOTIFY is delivered at the commit
def test_a_worker_of_another_process_hears_a_task_queued_at_once_and_otherwise_waits():
    listener = tasks.Listener()
    try:
        started = time.monotonic()
        listener.wait(0.3)  # listening from now on; nothing queued: the whole timeout
        assert time.monotonic() - started >= 0.25
        waited = []

        def wait():
            started = time.monotonic()
            listener.wait(30)
            waited.append(time.monotonic() - started)

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.2)
        archive_tasks.ask_for_analysis(
            1
        )  # this thread's connection: another session than the listener's
        waiter.join(timeout=10)
        assert waited and waited[0] < 5
        tasks.ask_for_reply(1, 0)  # queued while nobody waits: the next wait ends at once
        started = time.monotonic()
        listener.wait(30)
        assert time.monotonic() - started < 5
    finally:
        listener.close()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_listener_whose_connection_is_lost_sleeps_then_listens_again():
    from django.db import connection

    listener = tasks.Listener()
    try:
        listener.wait(0)
        backend = listener._connection.info.backend_pid
        with connection.cursor() as cursor:  # what a restart of PostgreSQL does to it
            cursor.execute("SELECT pg_terminate_backend(%s)", [backend])
        started = time.monotonic()
        listener.wait(0.3)  # no error: the timeout slept out
        assert time.monotonic() - started >= 0.25
        archive_tasks.ask_for_analysis(1)
        listener.wait(0)  # opened again: listening
        archive_tasks.ask_for_analysis(1)
        started = time.monotonic()
        listener.wait(30)
        assert time.monotonic() - started < 5
    finally:
        listener.close()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_listener_whose_connection_is_lost_has_the_pool_connect_anew():
    """Its loss is the server's restart, after which the pool's kept connections are as dead:
    they are dropped and made anew, rather than tried one by one, 1 s then 2 s apart."""
    from django.db import connection

    listener = tasks.Listener()
    try:
        listener.wait(0)
        with connection.cursor() as cursor:  # the pool is open, its connections made
            cursor.execute(
                "SELECT pg_terminate_backend(%s)", [listener._connection.info.backend_pid]
            )
        made = connection.pool.get_stats()["connections_num"]
        listener.wait(0.3)  # long enough to hear the end
        deadline = time.monotonic() + 5
        while connection.pool.get_stats()["connections_num"] == made:
            assert time.monotonic() < deadline, "the pool made no connection anew"
            time.sleep(0.05)
    finally:
        listener.close()


@pytest.mark.parametrize(
    ("argv", "environ", "serves"),
    [
        (["/venv/bin/daphne", "yourtrumps_site.asgi:application"], {}, True),
        (["/venv/lib/python3.11/site-packages/daphne/__main__.py", "x:app"], {}, True),
        (["manage.py", "runserver"], {"RUN_MAIN": "true"}, True),
        (["manage.py", "runserver"], {}, False),  # the autoreloader's parent
        (["manage.py", "runserver", "--noreload"], {}, True),
        (["manage.py", "db_worker"], {}, False),
        (["manage.py", "migrate"], {"RUN_MAIN": "true"}, False),
        (["/venv/bin/pytest", "tests"], {}, False),
    ],
)
def test_only_web_servers_start_embedded_workers(argv, environ, serves):
    assert workers.is_web_server(argv, environ) is serves


def test_finished_tasks_are_pruned_after_a_day():
    old, new = (tasks.computer_reply.enqueue(n, 0).db_result for n in (1, 2))
    for found, age in ((old, timedelta(days=2)), (new, timedelta(hours=1))):
        found.set_successful(None)
        DBTaskResult.objects.filter(pk=found.pk).update(finished_at=timezone.now() - age)
    pending = tasks.computer_reply.enqueue(3, 0).db_result
    assert tasks.prune_finished(["computer"]) == 1
    assert set(DBTaskResult.objects.values_list("pk", flat=True)) == {new.pk, pending.pk}


def test_runserver_s_serving_process_starts_its_workers_and_dies_with_its_parent(monkeypatch):
    """What `make run` does on start (``GameConfig.ready``), with the effects recorded."""
    from django.apps import apps

    from game import cpu

    done = []
    monkeypatch.setattr("sys.argv", ["manage.py", "runserver", "127.0.0.1:8000"])
    monkeypatch.setenv("RUN_MAIN", "true")
    monkeypatch.setattr(cpu, "die_with_parent", lambda parent: done.append(("dies with", parent)))
    monkeypatch.setattr(workers, "start_embedded", lambda: done.append("workers"))
    apps.get_app_config("game").ready()
    assert done == [("dies with", os.getppid()), "workers"]


# -- flags fall with nobody watching -----------------------------------------------------------


def flag_checks(game):
    return DBTaskResult.objects.filter(
        task_path="game.tasks.flag_check", args_kwargs__args=[game.pk]
    ).order_by("enqueued_at")


@pytest.fixture
def timed_game(alice, bob, django_capture_on_commit_callbacks):
    """A 1+1 game between people, begun with its commit's callbacks run."""
    with django_capture_on_commit_callbacks(execute=True):
        seek = services.game_create_seek(user=alice, trump="S", time_control=(1, 1))
        return services.game_join(game_id=seek.pk, user=bob, trump="H")


def test_a_timed_game_asks_for_a_flag_check_due_when_a_flag_can_first_fall(timed_game):
    (check,) = flag_checks(timed_game)
    assert check.queue_name == "clock" and check.status == TaskResultStatus.READY
    assert check.run_after == timed_game.turn_started_at + timedelta(seconds=60)


def test_the_flag_falls_with_nobody_watching_and_the_table_is_told(
    timed_game, run_tasks, django_capture_on_commit_callbacks
):
    from game.live import game_group
    from tests.web.conftest import told_to_group

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
    tasks.recover([tasks.CLOCK_QUEUE])
    (check,) = flag_checks(timed_game)
    assert check.status == TaskResultStatus.READY
    tasks.recover([tasks.CLOCK_QUEUE])
    assert flag_checks(timed_game).count() == 1  # one pending is enough
