"""The machine, read beside a run's figures: a process's CPU and resident memory (``/proc``),
the host's cores, a speed probe, and this process's own CPU and open-files limit."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterable
from dataclasses import dataclass


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU of process ``pid`` (all its threads) from ``/proc/<pid>/stat``."""
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2 :].split()  # the name may hold spaces: skip past it
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_kb(pid: int) -> int | None:
    """Process ``pid``'s resident memory in kB (``VmRSS`` in ``/proc/<pid>/status``), or
    ``None`` when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return None


def resident_kb_of(pids: Iterable[int]) -> dict[int, int | None]:
    return {pid: resident_kb(pid) for pid in pids}


#: The work :func:`speed_probe` times: 0.06 to 0.1 s of CPU on this project's 2-core machines.
SPEED_PROBE_LOOPS = 2_000_000


def speed_probe() -> float:
    """CPU seconds this process takes for a fixed piece of pure-Python work. On a shared host the
    same work takes up to 1.7 times longer at times (seen on these 2 cores within minutes), and
    every figure of a run taken then with it: compare runs only with this beside them."""
    started = time.process_time()
    total = 0
    for n in range(SPEED_PROBE_LOOPS):
        total += n
    return time.process_time() - started


@dataclass(frozen=True, slots=True)
class HostCpu:
    """What the machine's cores did between two readings of ``/proc/stat``."""

    cores: int
    busy: float  # the share of all cores' time spent running anything (this run or not)
    steal: float  # the share taken by the hypervisor for other machines

    @staticmethod
    def read() -> list[int] | None:
        """The machine's CPU time counters (``/proc/stat``'s first line), or ``None``."""
        try:
            with open("/proc/stat") as stat:
                return [int(n) for n in stat.readline().split()[1:9]]
        except (OSError, ValueError):
            return None

    @classmethod
    def between(cls, start: list[int] | None, end: list[int] | None) -> HostCpu | None:
        if start is None or end is None:
            return None
        ticks = [b - a for a, b in zip(start, end, strict=True)]
        total = sum(ticks)
        if total <= 0:
            return None
        idle, iowait, steal = ticks[3], ticks[4], ticks[7]  # /proc/stat's column order
        busy = total - idle - iowait
        return cls(cores=os.cpu_count() or 1, busy=busy / total, steal=steal / total)


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def raise_open_files_limit() -> int:
    """Raise this process's open-files limit to its hard limit: each socket is a file."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft
