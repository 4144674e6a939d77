"""The image's boot network (station/appliance.py): station.txt as a club writes it, Wi-Fi names
of any letters in NetworkManager's keyfiles, the access point kept per card, and a screen whose
QR codes a phone's camera reads (decoded here with OpenCV from the text the console shows)."""

import configparser
import subprocess

import cv2
import numpy as np
import pytest

from station.appliance import (
    AccessPoint,
    BootFileError,
    NetworkPlan,
    access_point,
    bring_up,
    client_keyfile,
    read_boot_file,
    screen_text,
)


def test_station_txt_as_a_club_writes_it():
    text = "\ufeff# the club's Wi-Fi\r\nWiFi_Name = Клуб «Бастион»\r\nwifi_password =  пароль 2024 \r\n\r\nhostname=bastion\r\ncountry = ru\r\n"
    assert read_boot_file(text) == NetworkPlan("bastion", "Клуб «Бастион»", "пароль 2024", "RU")
    assert read_boot_file("") == NetworkPlan()  # nothing said: "station", and the access point
    assert read_boot_file("wifi_name = Open café") == NetworkPlan("station", "Open café", None, None)


@pytest.mark.parametrize(
    "text, said",
    [
        ("wifi_name = A\nwifi_pasword = 12345678", "line 2: 'wifi_pasword' is not one of"),
        ("wifi_name A", "line 1: 'wifi_name A' is not 'name = value'"),
        ("wifi_name = A\nwifi_password = short", "8 to 63 characters"),
        ("wifi_password = 12345678", "without a wifi_name"),
        ("hostname = Станция", "hostname 'Станция' must be"),
        ("wifi_name = " + "Ж" * 17, "34 bytes; a Wi-Fi name is at most 32"),
        ("country = Russia", "two letters"),
    ],
)
def test_a_wrong_line_is_named(text, said):
    with pytest.raises(BootFileError) as refused:
        read_boot_file(text, "/boot/firmware/station.txt")
    assert said in str(refused.value) and "station.txt" in str(refused.value)


def _keyfile(text):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    return parser


def _ssid_bytes(value):
    """NetworkManager's reading of a keyfile's ssid: a list of bytes, or text."""
    if value.endswith(";") and all(part.isdigit() for part in value[:-1].split(";")):
        return bytes(int(part) for part in value[:-1].split(";"))
    return value.replace("\\s", " ").encode()


@pytest.mark.parametrize("name", ["Клуб «Бастион»", "a;b", "café wifi", "🎲 dice"])
def test_any_wifi_name_reaches_networkmanager_byte_for_byte(name):
    keyfile = _keyfile(client_keyfile(NetworkPlan("station", name, "12345678")))
    assert keyfile["connection"]["type"] == "wifi" and keyfile["wifi"]["mode"] == "infrastructure"
    assert _ssid_bytes(keyfile["wifi"]["ssid"]) == name.encode()
    assert keyfile["wifi-security"]["psk"] == "12345678"
    assert "wifi-security" not in _keyfile(client_keyfile(NetworkPlan("station", name, None)))  # an open network


def test_the_access_point_is_made_once_a_card_and_kept_synced(tmp_path):
    first = access_point(tmp_path, "station")
    assert first.name.startswith("station-") and len(first.password) == 10
    assert access_point(tmp_path, "station") == first  # the phone that joined once joins again
    (tmp_path / "access-point.json").write_text("{torn")
    assert access_point(tmp_path, "station") != first  # a torn file: a new one, never a crash
    keyfile = _keyfile(first.keyfile())
    assert keyfile["wifi"]["mode"] == "ap" and keyfile["ipv4"]["method"] == "shared"
    assert AccessPoint('a;b:"c', "p,w\\d").join_code() == 'WIFI:T:WPA;S:a\\;b\\:\\"c;P:p\\,w\\\\d;;'


class FakeNetworkManager:
    """nmcli as the boot sees it: the connections it was told to bring up, and what is active."""

    def __init__(self, active=""):
        self.active, self.commands = active, []

    def __call__(self, command):
        self.commands.append(list(command))
        out = self.active if command[:2] == ["nmcli", "-t"] else ""
        return subprocess.CompletedProcess(command, 0, out, "")


def test_no_network_opens_the_access_point_and_a_joined_one_does_not(tmp_path):
    names = []
    (tmp_path / "etc").mkdir()
    nm = FakeNetworkManager()
    ap = bring_up(
        NetworkPlan("bastion"), tmp_path / "data", nm, wait=0.0, etc=tmp_path / "etc", set_hostname=names.append
    )
    assert ap is not None and ["nmcli", "connection", "up", "station-ap"] in nm.commands
    assert names == ["bastion"] and (tmp_path / "etc" / "hostname").read_text() == "bastion\n"
    written = tmp_path / "etc" / "NetworkManager" / "system-connections" / "station-ap.nmconnection"
    assert written.stat().st_mode & 0o777 == 0o600  # NetworkManager ignores a keyfile others can read
    joined = FakeNetworkManager("station-wifi:wlan0:activated\n")
    plan = NetworkPlan("bastion", "Клуб", "12345678")
    assert bring_up(plan, tmp_path / "data", joined, wait=5.0, etc=tmp_path / "etc", set_hostname=names.append) is None
    assert (tmp_path / "etc" / "NetworkManager" / "system-connections" / "station-wifi.nmconnection").exists()
    assert not any(c[-1] == "station-ap" for c in joined.commands)


def _decoded(block: str) -> str:
    """A QR code as segno draws it on a terminal with half blocks (▀ ▄ █, space), read by OpenCV."""
    rows = [line for line in block.splitlines() if line and set(line) <= set("▀▄█ ")]
    width = max(len(r) for r in rows)
    pixels = np.full((2 * len(rows), width), 0, np.uint8)
    for y, row in enumerate(rows):  # segno draws the light modules (and the quiet zone) in blocks
        for x, char in enumerate(row.ljust(width)):
            pixels[2 * y, x] = 255 if char in "█▀" else 0
            pixels[2 * y + 1, x] = 255 if char in "█▄" else 0
    image = cv2.resize(pixels, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return text


def test_the_screen_s_qr_codes_are_what_a_phone_reads():
    ap = AccessPoint("station-1a2b", "k7m3p9q2x4")
    said = screen_text("station", 80, ["http://192.168.1.7:80/"], ap, "123456")
    assert "station-1a2b" in said and "k7m3p9q2x4" in said and "Claim code: 123456" in said
    codes = [_decoded(b) for b in said.split(":\n")[1:]]
    assert codes[:2] == [ap.join_code(), "http://10.42.0.1/"], codes
    joined = screen_text("bastion", 8080, [], None, None)
    assert "Claim code" not in joined and _decoded(joined.split(":\n")[1]) == "http://bastion.local:8080/"
