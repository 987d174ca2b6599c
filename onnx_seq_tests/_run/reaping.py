"""Ending every process a backend starts, also one that leaves the worker's process group (a
daemon that calls setsid(), a double fork): Linux's child subreaper and /proc.

Each verify worker is a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a process a backend
started whose parent ends is reparented to the worker, not to init, so every process a backend
started and that still runs is a descendant of its worker while the worker lives. To end a
worker, the parent stops it (SIGSTOP: it starts nothing more), kills every descendant it finds
in /proc (again, until none is left: a process may fork before it is killed), then the worker.
The fork server the workers are forked from is a subreaper too (warm.py), so what a worker that
died on its own (a crash) leaves behind is reparented to the server, where the next end of a
worker finds it: a child of the server that is not a live worker and left the server's process
group. A worker whose parent ends kills its own descendants before it ends (worker_main.py).

After a worker's group is killed, wait_until_gone waits until none of its processes runs.

Where /proc or prctl is missing (not Linux) only the process groups hold: see docs/safety.md.
"""

from __future__ import annotations

import os
import signal
import time

#: prctl's option that makes a process its orphaned descendants' new parent.
PR_SET_CHILD_SUBREAPER = 36
#: How long `end_tree` keeps looking for processes to kill before it gives up.
GONE_SECONDS = 2.0


def _libc():
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


LIBC = _libc()


def become_subreaper() -> bool:
    """Make this process the parent of its orphaned descendants (Linux 3.4+); False where the
    system cannot."""
    try:
        return LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except AttributeError:  # no libc handle, or no prctl (not Linux)
        return False


def process_table() -> dict[int, tuple[int, int, bytes]]:
    """Every process in /proc: pid -> (ppid, pgid, state letter); empty without /proc."""
    table: dict[int, tuple[int, int, bytes]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
            table[int(entry)] = (int(fields[1]), int(fields[2]), fields[0])
        except (OSError, IndexError, ValueError):  # it ended meanwhile
            continue
    return table


def descendants(table: dict, roots) -> list[int]:
    """Every process below the pids `roots` in `table` (not the roots themselves)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, stack = [], list(roots)
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return found


def strays(table: dict, server: int | None, workers) -> list[int]:
    """The children of the fork server `server` that are no live worker (`workers`) and left
    the server's process group (what a dead worker's backends left behind, reparented to the
    server), with their descendants."""
    if server is None or server not in table:
        return []
    group = table[server][1]
    roots = [pid for pid, (ppid, pgid, _) in table.items()
             if ppid == server and pgid != group and pid not in workers]
    return roots + descendants(table, roots)


def running(table: dict, pids) -> list[int]:
    """The pids of `pids` that are not zombies."""
    return [pid for pid in pids if table.get(pid, (0, 0, b"Z"))[2] not in (b"Z", b"X")]


def end_tree(root: int | None, server: int | None = None, workers=()) -> None:
    """SIGKILL every running descendant of `root` (a stopped or dead worker; None: none) and
    every stray of the fork server `server`, again until none is left (at most GONE_SECONDS).
    """
    deadline, pause = time.monotonic() + GONE_SECONDS, 0.001
    while True:
        table = process_table()
        below = descendants(table, [root]) if root is not None else []
        victims = running(table, below + strays(table, server, set(workers)))
        if not victims or time.monotonic() >= deadline:
            return
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # it ended meanwhile
                pass
        time.sleep(pause)
        pause = min(2 * pause, 0.05)


#: How long `wait_until_gone` waits for a killed process group to be gone (workers.Pool._end).
GROUP_GONE_SECONDS = 2.0


def wait_until_gone(pgid: int) -> None:
    """Wait until no process of group `pgid` is running, at most GROUP_GONE_SECONDS. killpg
    only sends SIGKILL: a process of the group (a `sleep` a backend left behind) may still be
    running when it returns, so without this wait a run could end, or its caller look, before
    it is gone. An empty group returns at once; a killed process left as a zombie for init to
    reap counts as gone."""
    deadline, pause = time.monotonic() + GROUP_GONE_SECONDS, 0.001
    while _group_running(pgid) and time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(2 * pause, 0.05)  # each look reads /proc: fewer looks the longer it takes


def _group_running(pgid: int) -> bool:
    """Whether a process of group `pgid` exists that is not a zombie (/proc where there is
    one; elsewhere any process of the group counts)."""
    try:
        os.killpg(pgid, 0)
    except OSError:  # no process of the group is left
        return False
    if not os.path.isdir("/proc/self"):
        return True
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[0] not in (b"Z", b"X") and int(fields[2]) == pgid:
            return True
    return False
