"""What the station writes in an evening, run under strace by tests/test_power_cut.py: the claim's
config, the settings, a game's journal, an army saved on the shelf, the table's calibration and
a backup restored.  After each write the station would acknowledge (an HTTP answer, an ACK to the
hub), a line goes to the ``acks`` file: ``<what> <version>``.

    python -m tests.sim.powercut_writes ROOT ACKS ARCHIVE
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from station.config import load_config, save_config
from station.journal import Journal
from station.lobby.armies import ArmyShelf
from station.lobby.backup import restore
from station.lobby.settings import Settings, save_settings
from station.records import Kind
from station.vision.geometry import mounted_camera
from tests.sim.synthetic import ideal_calibration

ARMY = Path(__file__).resolve().parents[2] / "station" / "data" / "demo" / "blue-protectorate.json"
TABLES = [(1219.2, 1219.2), (1800.0, 1200.0)]
JOURNAL_RECORDS = 24


def main(root: Path, acks: Path, archive: Path) -> None:
    marks = os.open(acks, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)

    def ack(what: str, version: int) -> None:
        os.write(marks, f"{what} {version}\n".encode())

    load_config(root / "config.json")  # the first start: the claim code it makes is on the screen
    ack("config", 0)
    for version in (1, 2):  # the claim, then a new token
        save_config(root / "config.json", {"referee_token": f"referee-token-{version}"})
        ack("config", version)
    data = root / "data"
    for version in (1, 2):
        save_settings(data, Settings().changed({"dice_pairs": {"pixels-1": f"player-{version}"}}))
        ack("settings", version)
    journal = Journal(data / "journals" / "game.jsonl", group_window=0.0)
    for n in range(JOURNAL_RECORDS):
        durable = n % 3 == 2  # as a game writes: hub lines wait for their fsync, some records do not
        record = journal.append(Kind.DICE_ENTRY, durable=durable, sides=20, values=[n % 20 + 1], by="power-cut")
        if durable:
            ack("journal", record["seq"])
    journal.close()
    ack("journal", JOURNAL_RECORDS)  # a clean close syncs the rest
    shelf = ArmyShelf(data / "armies")
    army = json.loads(ARMY.read_text(encoding="utf-8"))
    for version in (1, 2):
        shelf.save("bronepekhota", "армия-ивана", {**army, "name": f"Армия Ивана {version}"})
        ack("army", version)
    for version, table in enumerate(TABLES, 1):
        ideal_calibration(mounted_camera((1280, 720), 600.0, table, 2000.0, 0.0, 0.0, 0.0), table).save(
            root / "calibration" / "table.json"
        )
        ack("calibration", version)
    restore(archive, root / "fresh" / "data", root / "fresh" / "data", root / "fresh" / "calibration.json")
    ack("restore", 1)
    os.close(marks)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
