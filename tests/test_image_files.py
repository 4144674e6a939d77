"""The SD-card image's own files (image/) agree with the station they carry: every package the
station needs is pinned for the image, at a version its pyproject accepts; the station.txt a club
edits is one the boot reads; and the units call the station's commands as they are."""

import re
import shlex
import tomllib

from click.testing import CliRunner
from packaging.requirements import Requirement

from station.appliance import NetworkPlan, read_boot_file
from station.cli import main
from tests.conftest import ROOT

IMAGE = ROOT / "image"


def _pins():
    pins = {}
    for line in (IMAGE / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def test_every_dependency_is_pinned_for_the_image_at_a_version_the_station_accepts():
    pins = _pins()
    needed = [Requirement(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
    for requirement in needed:
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        assert name in pins, f"image/requirements.txt lacks {requirement.name}"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]} is not {requirement.specifier}"


def test_the_station_txt_on_the_card_is_one_the_boot_reads():
    plan = read_boot_file((IMAGE / "boot" / "station.txt").read_text(encoding="utf-8"))
    assert plan == NetworkPlan("station")  # as shipped: no Wi-Fi named, so the access point
    uncommented = re.sub(r"^#(wifi_\w+ = )", r"\1", (IMAGE / "boot" / "station.txt").read_text(), flags=re.M)
    assert read_boot_file(uncommented).wifi_name == "Club Wi-Fi"  # what a club does: remove the '#'


def test_the_units_call_the_station_as_it_is():
    unit = (IMAGE / "rootfs" / "etc" / "systemd" / "system" / "station-network.service").read_text()
    command = shlex.split(re.search(r"^ExecStart=(.*)$", unit, re.M).group(1))
    assert command[0] == "/opt/station/bin/station"
    said = CliRunner().invoke(main, [*command[1:], "--help"])
    assert said.exit_code == 0, said.output
