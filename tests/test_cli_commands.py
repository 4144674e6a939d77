"""The ``station`` command finds each command in its own module, loaded only when it runs: the
image's boot runs ``station boot-network`` before the lobby, and on a Pi importing every
ruleset, OpenCV and the web first cost seconds of every boot (station/cli/__init__.py)."""

import getpass
import json
import subprocess
import sys

import click
from click.testing import CliRunner

from station.cli import COMMANDS, main

HEAVY = ("cv2", "numpy", "flask", "waitress", "station.rules.registry", "station.lobby.lobby", "station.web.server")


def test_every_listed_command_is_found_in_its_module_and_help_lists_them_all():
    ctx = click.Context(main)
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert isinstance(command, click.Command), name
        assert command.name == name, f"station.cli.{COMMANDS[name]} names {name!r} {command.name!r}"
    listed = CliRunner().invoke(main, ["--help"]).output
    assert all(f"  {name} " in listed for name in COMMANDS), listed


def test_an_unknown_command_is_refused_with_clicks_words():
    result = CliRunner().invoke(main, ["serv"])
    assert result.exit_code == 2
    assert "No such command 'serv'" in result.output


def test_boot_network_runs_without_loading_a_ruleset_the_camera_or_the_web(tmp_path):
    """The whole command, its network step stubbed (no NetworkManager here): the screen shows
    the claim code, and none of the heavy modules was imported on the way."""
    script = f"""
import json, sys
import station.appliance
station.appliance.bring_up = lambda plan, data: None
from station.cli import main
try:
    main(["boot-network", "--boot-file", {str(tmp_path / "station.txt")!r}, "--data", {str(tmp_path)!r},
          "--user", {getpass.getuser()!r}, "--port", "8080"], standalone_mode=False)
finally:
    print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    code = json.loads((tmp_path / "config.json").read_text())["claim_code"]
    assert code in done.stdout
    assert json.loads(done.stdout.splitlines()[-1]) == []
