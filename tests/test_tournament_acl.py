"""The broker recipe in docs/tournament.md, run as written with a real Mosquitto: each station
publishes only as its own table, reads its own confirmations, and the tournament reads every
table and confirms to each."""

import os
import re
import subprocess
import threading
import time

from station.publish import BrokerUrl, client
from station.tournament.broker import MOSQUITTO, free_port, wait_for_port
from tests.conftest import ROOT

DOC = (ROOT / "docs" / "tournament.md").read_text()
USERS = {"t1": "pass-t1-123", "t2": "pass-t2-123", "tournament": "pass-tour-123"}


def _block(after: str) -> str:
    """The first fenced block after the sentence ``after`` in the docs."""
    start = DOC.index(after)
    return re.search(r"```\n(.*?)```", DOC[start:], re.S).group(1)


def _listening(name, port, topics, got):
    made = client(f"{name}-{time.monotonic_ns()}", BrokerUrl.parse(f"mqtt://{name}:{USERS[name]}@127.0.0.1:{port}"))
    made.on_message = lambda c, u, m: got.append((m.topic, m.payload))
    subscribed = threading.Event()
    made.on_subscribe = lambda *args: subscribed.set()
    made.connect("127.0.0.1", port)
    made.loop_start()
    if topics:
        made.subscribe([(t, 1) for t in topics])
        assert subscribed.wait(5)
    return made


def test_the_docs_broker_recipe_keeps_tables_apart_and_carries_the_confirmations(tmp_path):
    port = free_port()
    config = _block("`/etc/mosquitto/conf.d/station.conf`").replace("listener 1883", f"listener {port} 127.0.0.1")
    config = config.replace("/etc/mosquitto/passwd", str(tmp_path / "passwd")).replace(
        "/etc/mosquitto/acl", str(tmp_path / "acl")
    )
    config += f"persistence_location {tmp_path}/\n" + ("user root\n" if os.geteuid() == 0 else "")
    (tmp_path / "mosquitto.conf").write_text(config)
    (tmp_path / "acl").write_text(_block("`/etc/mosquitto/acl`"))
    for user, password in USERS.items():
        subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if user == "t1" else []), str(tmp_path / "passwd"), user, password], check=True)  # fmt: skip
    broker = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")], stderr=subprocess.DEVNULL)
    try:
        assert wait_for_port(port, 10)
        seen_by_tournament, seen_by_t1, seen_by_t2 = [], [], []
        tournament = _listening("tournament", port, ["station/#"], seen_by_tournament)
        t1 = _listening("t1", port, ["station/t1/ack", "station/t2/records"], seen_by_t1)
        t2 = _listening("t2", port, ["station/t1/ack"], seen_by_t2)
        for name, where in (("t1", "station/t1/records"), ("t2", "station/t1/records"), ("t2", "station/t2/records"),
                            ("t1", "station/t1/ack"), ("tournament", "station/t1/ack")):  # fmt: skip
            publisher = _listening(name, port, [], [])  # its own connection: a refusal may close it
            publisher.publish(where, f"from {name}", qos=1).wait_for_publish(5)
            publisher.disconnect()
            publisher.loop_stop()
        time.sleep(1.0)
        said = {(topic, payload.decode()) for topic, payload in seen_by_tournament}
        assert ("station/t1/records", "from t1") in said and ("station/t2/records", "from t2") in said
        assert ("station/t1/records", "from t2") not in said  # no table writes as another
        assert ("station/t1/ack", "from t1") not in said  # nor confirms itself
        print("DEBUG", seen_by_t1, said)
        assert [(t, p.decode()) for t, p in seen_by_t1] == [("station/t1/ack", "from tournament")]  # its own, only
        assert seen_by_t2 == []  # another table's confirmations are not its to read
        for made in (tournament, t1, t2):
            made.disconnect()
            made.loop_stop()
    finally:
        broker.terminate()
        broker.wait(10)
