"""Crash safety, the short run of `make test` (bench/crash_loop.py does 100 kills): the daemon is
killed with SIGKILL at random moments and resumed with `station run --resume` each time."""

from .crash import crash_loop


def test_sigkill_at_random_moments_loses_nothing(tmp_path):
    report = crash_loop(tmp_path, kills=12, seed=3)
    assert report.kills == 12 and report.restarts_checked + report.kills_during_startup == 12
    assert report.restarts_checked >= 6
    assert report.events_applied == report.events_sent > 0
