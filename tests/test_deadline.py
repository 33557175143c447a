"""The watchdog time bound of ``normalize.limits._deadline`` (math parser, json-repair)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from normalize.limits._deadline import TimeUp, call_within


def _spin(seconds: float) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return "finished"


def test_a_call_within_its_bound_returns_its_value() -> None:
    assert call_within(lambda: sum(range(100)), 5.0) == 4950


def test_a_call_past_its_bound_raises_time_up() -> None:
    with pytest.raises(TimeUp):
        call_within(lambda: _spin(2.0), 0.05)


def test_time_up_never_escapes_into_the_code_after_the_call() -> None:
    # Deadlines that pass while the call returns: whatever happens, the caller's next
    # statements run undisturbed (the scheduled exception is absorbed on the way out).
    for seconds in (0.001, 0.002, 0.003, 0.005):
        for _ in range(20):
            try:
                call_within(lambda s=seconds: _spin(s), seconds)
            except TimeUp:
                pass
            total = 0
            for i in range(20_000):
                total += i
            assert total == 199_990_000


def test_bounds_in_worker_threads_hit_only_their_own_thread() -> None:
    results: dict[str, str] = {}

    def bounded() -> None:
        try:
            results["bounded"] = call_within(lambda: _spin(2.0), 0.05)
        except TimeUp:
            results["bounded"] = "time up"

    def free() -> None:
        results["free"] = _spin(0.3)

    threads = [threading.Thread(target=bounded), threading.Thread(target=free)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert results == {"bounded": "time up", "free": "finished"}


def test_a_timed_out_call_leaves_traced_code_working() -> None:
    # Regression: revoking a scheduled exception with PyThreadState_SetAsyncExc(thread, NULL)
    # left CPython 3.11's async-exception flag set with nothing to deliver; the next call made
    # under sys.settrace then re-ran its first instruction forever (the suite hung in
    # repair_json after a math parse had timed out).  In a child process, so a regression
    # fails here instead of hanging the run.
    script = textwrap.dedent(
        """
        import sys, time
        from normalize.limits._deadline import TimeUp, call_within

        def spin():
            end = time.monotonic() + 0.3
            while time.monotonic() < end:
                pass

        for seconds in (0.05, 0.3):  # one that fires mid-call, one that fires as it returns
            try:
                call_within(spin, seconds)
            except TimeUp:
                pass
        sys.settrace(lambda frame, event, arg: None)
        value = (lambda: len("traced"))()
        sys.settrace(None)
        print(value)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "6"


def test_deadlines_landing_while_the_watchdog_lock_is_taken_never_deadlock() -> None:
    # Regression: the bounded threads took the watchdog's lock through threading.Condition's
    # __enter__/__exit__, Python functions; a TimeUp delivered inside one, just after the
    # acquire or just before the release, left the lock held and every later bounded call (and
    # the watchdog) waited for ever: the suite hung once in test_math_answers.  Three threads
    # make many calls whose deadlines pass as they finish, in a child process so that a
    # regression fails here (the old code hung within 300 calls a thread every time).
    script = textwrap.dedent(
        """
        import os, threading, time
        from normalize.limits._deadline import TimeUp, call_within

        def spin(seconds):
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                pass

        def worker(seed):
            for i in range(300):
                seconds = 0.0005 + ((i * 7 + seed) % 13) * 0.0001
                try:
                    call_within(lambda: spin(seconds), seconds)
                except TimeUp:
                    pass

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(50)
        print(sum(thread.is_alive() for thread in threads))
        os._exit(0)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
