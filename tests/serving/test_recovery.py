"""The task workers' recovery (``serving.recovery``): which workers are alive, and the apps'
recoveries it runs by the names the settings give."""

import subprocess

from django.conf import settings
from django.utils import timezone

from yourtrumps_site.serving import recovery


def test_every_queue_has_recoveries_named_by_functions_that_exist():
    for queue in settings.TASKS["default"]["QUEUES"]:
        found = recovery.recoveries(queue)
        assert found and all(callable(function) for function in found), queue


def test_a_worker_on_this_machine_is_alive_while_its_process_runs():
    now = timezone.now()
    assert recovery._alive(recovery.worker_id(), None, now)
    process = subprocess.Popen(["true"])
    process.wait()
    host, _, start = recovery.worker_id().split(":")
    assert not recovery._alive(f"{host}:{process.pid}:{start}", now, now)
    assert not recovery._alive(f"{host}:1:{start}-of-another-boot", now, now)  # a pid reused


def test_a_worker_elsewhere_is_alive_until_its_task_has_run_too_long():
    now = timezone.now()
    assert recovery._alive("elsewhere:1:1", now - recovery.STALE_AFTER / 2, now)
    assert not recovery._alive("elsewhere:1:1", now - recovery.STALE_AFTER * 2, now)
