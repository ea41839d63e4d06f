"""A child process that dies with its parent, however the parent ends (``kill -9`` included):
the kernel's parent-death signal (``PR_SET_PDEATHSIG``, Linux), and a watch where it is missing.

No Django here: the search pools' children (:mod:`yourtrumps_site.serving.cpu`) run
:func:`die_with_parent` as they start, and ``manage.py serve``'s children run
:func:`signal_on_parent_death` before ``exec``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1


def signal_on_parent_death(signum: int) -> None:
    """Have the kernel send ``signum`` to this process when its parent (thread) ends (Linux)."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signum)


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` ends, however it ends."""
    signal_on_parent_death(signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above: nobody will signal
        os._exit(1)

    def watch() -> None:  # where prctl is missing, or its signal was lost
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()
