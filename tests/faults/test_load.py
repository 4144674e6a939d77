"""Load, the short run of `make test` (bench/soak.py runs it for 10 minutes): 1,000 hub events a
second, 20 dashboard streams and the camera at 30 fps, all at once against one daemon."""

from .load import soak


def test_a_busy_table_loses_nothing_and_stays_bounded(tmp_path):
    # The hub's ring holds 2 s here (the soak's 0.5 s): a shared CI host that stalls the daemon for
    # over half a second (a line took 1.5 s to reach the screens on one) overflowed it, which tests
    # the host, not the station.  Keeping up on average is still asserted: every event applied.
    report = soak(tmp_path, seconds=8, slack_s=2.0)
    assert report.events_sent >= 7000 and report.lost_in_hub == 0
    assert report.events_applied == report.events_sent  # each once, in order (checked while reading)
    assert report.unseen == 0 and min(report.updates_per_client) > 0 and len(report.updates_per_client) == 20
    assert max(report.engine_backlog) < 2000 and report.engine_backlog[-1] < 500
    assert max(report.hub_pending) < report.ring
    # The camera keeps seeing the table under the load: 30 fps asked, a third of it seen on a
    # quiet machine; busy 2-core CI boxes gave 9.3 and 4.3.  A base moved by hand stands still for
    # seconds after, so the floor is 3 fps: every move is still seen several times.
    assert report.snapshots > 0 and report.camera_fps > 3
    # Eight seconds after a 2-s warm-up: 10-15 MB on a quiet box, 17 and 21 MB on busy CI boxes
    # (frames queued for slow streams, the heap still growing into its working size).  A leak of
    # 3 kB an event fails here; the 10-minute soak (bench/soak.py, docs/reliability.md) is what
    # shows the heap flat.
    assert report.rss_growth_kb() < 24 * 1024, report.lines()
