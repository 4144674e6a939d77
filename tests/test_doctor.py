"""`station doctor`: each check finds what it should, and says how to fix it."""

import datetime as dt
import json
import subprocess
import sys
from types import SimpleNamespace

from station import doctor


def test_serial_ports_and_groups():
    assert doctor.serial_ports(lambda: []).level == "warn"
    quiet = doctor.serial_ports(lambda: [SimpleNamespace(device="/dev/ttyACM0")], lambda port: None, lambda port: None)
    assert quiet.level == "warn" and "/dev/ttyACM0 (no hub answers)" in quiet.said
    old = doctor.serial_ports(lambda: [SimpleNamespace(device="/dev/ttyACM0")], lambda port: None, lambda port: 115200)
    assert old.level == "warn" and "a hub answers at 115200 baud, not the station's" in old.said
    assert "--baud 115200" in old.said
    missing = [f for f in doctor.groups({"video"}) if f.level == "fail"]
    assert len(missing) == 1 and "dialout" in missing[0].said and "usermod -aG dialout" in missing[0].fix
    assert all(f.level == "ok" for f in doctor.groups({"video", "dialout"}))


def test_calibration_missing_damaged_old_and_bad(tmp_path):
    now = dt.datetime(2026, 11, 21, tzinfo=dt.UTC)
    path = tmp_path / "table.json"
    assert doctor.calibration(path, now).level == "warn"
    path.write_text("{")
    assert doctor.calibration(path, now).level == "fail"

    def write(days, worst):
        created = (now - dt.timedelta(days=days)).isoformat()
        path.write_text(json.dumps({"created": created, "table": {"residuals_mm": {"1": 0.4, "2": worst}}}))
        return doctor.calibration(path, now)

    assert write(2, 0.9).level == "ok"
    assert write(45, 0.9).level == "warn" and "45 days old" in write(45, 0.9).said
    assert write(2, 4.2).level == "fail" and "knocked" in write(2, 4.2).fix
    # an anchor the referee left out (calibrate table --without 2) does not fail the check
    path.write_text(
        json.dumps({"created": now.isoformat(), "table": {"residuals_mm": {"1": 0.4, "2": 25.0}, "used_anchors": [1]}})
    )
    assert doctor.calibration(path, now).level == "ok"


def test_camera_disk_and_versions(tmp_path):
    assert doctor.camera(0, lambda i: iter([object()])).level == "ok"
    assert doctor.camera(0, lambda i: iter([])).level == "warn"

    def broken(i):
        raise OSError("no such device")

    assert "no such device" in doctor.camera(3, broken).said
    assert doctor.disk(tmp_path).level == "ok"
    assert doctor.versions().level == "ok" and "flask" in doctor.versions().said


def test_the_report_says_what_to_fix_and_the_command_exits_non_zero_on_problems(tmp_path):
    text = doctor.report([doctor.Finding("a", "ok", "fine"), doctor.Finding("b", "fail", "broken", "mend it")])
    assert "FAIL b" in text and "fix: mend it" in text and "1 problem(s)" in text
    bad = tmp_path / "table.json"
    bad.write_text("{")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "station",
            "doctor",
            "--no-camera",
            "--calibration",
            str(bad),
            "--journals",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1 and "calibration" in run.stdout and "damaged" in run.stdout


def test_log_files_rotate(tmp_path):
    import logging

    from station.cli import LOG_KEEP, _setup_logging

    log_file = tmp_path / "logs" / "station.log"
    _setup_logging(False, str(log_file))
    handler = next(h for h in logging.getLogger().handlers if hasattr(h, "maxBytes"))
    handler.maxBytes = 200  # a tiny limit, to see it roll over
    for k in range(50):
        logging.getLogger("station.test").info("line %d of a long game", k)
    handler.close()
    logging.getLogger().removeHandler(handler)
    rotated = sorted(p.name for p in log_file.parent.iterdir())
    assert "station.log" in rotated and "station.log.1" in rotated and len(rotated) <= LOG_KEEP + 1


def test_a_serial_port_counts_as_a_hub_only_when_a_hub_answers_there(tmp_path):
    """A Pi's own /dev/ttyS0 is a serial port, not a hub: doctor asks each port for HELLO."""
    from station.devices.hubsim import SimulatedHub
    from station.events import Node

    hub = SimulatedHub(tmp_path / "hub", nodes=(Node("L1", "launcher", 2), Node("T1", "tilt"))).start()
    try:
        ports = [SimpleNamespace(device=str(tmp_path / "hub")), SimpleNamespace(device=str(tmp_path / "nothing"))]
        found = doctor.serial_ports(lambda: ports, rate_finder=lambda port: None)
        assert found.level == "ok", found
        assert f"hub on {tmp_path / 'hub'}: hubsim/1.0, boot 51A1, 2 nodes" in found.said
        assert f"{tmp_path / 'nothing'} (cannot open:" in found.said
        hub.shot("L1", t=1)
        doctor.serial_ports(lambda: ports[:1], rate_finder=lambda port: None)
        assert hub.pending() == 1  # the probe acknowledged nothing: the event stays for the game
    finally:
        hub.stop()


def test_opencv_keeps_its_own_warnings_off_the_terminal(tmp_path):
    """A camera that is not there is the doctor's finding, in words; OpenCV's "[ WARN:0@…]"
    lines about it are not printed."""
    env = {k: v for k, v in __import__("os").environ.items() if k != "OPENCV_LOG_LEVEL"}
    result = subprocess.run(
        [sys.executable, "-m", "station", "doctor", "--camera", "7", "--journals", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert "camera 7 is not available" in result.stdout
    assert "[ WARN" not in result.stderr + result.stdout


def test_two_hubs_saying_one_id_are_named_with_the_fix(tmp_path):
    """Every board makes its id at first boot; two that drew the same are told apart by hand."""
    from station.devices.hubsim import SimulatedHub

    hubs = [SimulatedHub(tmp_path / name, hub_id="3F2A").start() for name in ("a", "b")]
    try:
        ports = [SimpleNamespace(device=h.path) for h in hubs]
        found = doctor.serial_ports(lambda: ports, rate_finder=lambda port: None)
        assert found.level == "fail" and "both say id 3F2A" in found.fix and "station hub-id" in found.fix
        hubs[1].hub_id = "77C1"
        found = doctor.serial_ports(lambda: ports, rate_finder=lambda port: None)
        assert found.level == "ok" and "id 3F2A" in found.said and "id 77C1" in found.said
    finally:
        for hub in hubs:
            hub.stop()


def _adapter(tmp_path, where):
    """/sys/class/bluetooth/hci0 as Linux lays it out: a link to the device it sits on."""
    device = tmp_path / "devices" / where / "hci0"
    device.mkdir(parents=True)
    sysfs = tmp_path / "class" / "bluetooth"
    sysfs.mkdir(parents=True)
    (sysfs / "hci0").symlink_to(device)
    return sysfs


def test_the_doctor_checks_bluetooth_for_smart_dice(tmp_path):
    from station.doctor import bluetooth

    none = bluetooth(tmp_path / "nothing", {"pi"}, lambda: True)
    assert none.level == "ok" and "no Bluetooth adapter" in none.said
    usb = _adapter(tmp_path / "usb", "pci0000:00/usb1/1-1/1-1:1.0/bluetooth")
    onboard = _adapter(tmp_path / "pi", "platform/soc/fe201000.serial/serial0/serial0-0/bluetooth")
    assert bluetooth(usb, {"pi", "bluetooth"}, lambda: True).level == "ok"
    no_bluez = bluetooth(usb, {"pi", "bluetooth"}, lambda: False)
    assert no_bluez.level == "warn" and no_bluez.fix == "sudo apt install bluez"
    no_group = bluetooth(usb, {"pi", "dialout"}, lambda: True)
    assert no_group.level == "warn" and "usermod -aG bluetooth" in no_group.fix
    shared = bluetooth(onboard, {"pi", "bluetooth"}, lambda: True)
    assert shared.level == "warn" and "shares its chip with Wi-Fi" in shared.said and "disable-bt" in shared.fix
