"""The message catalog: every string the pages show has its Russian, none is left in the catalog
unused, and the pages render in Russian with no English left in them."""

import ast
import json
import re
from html.parser import HTMLParser

import pytest

from station.dice import DiceBook
from station.fold import fold
from station.journal import read_records
from station.rules.base import Ruling, RulingKind
from station.rules.registry import RULESETS, make_ruleset
from tests.conftest import ROOT

WEB = ROOT / "station" / "web"
CATALOG = json.loads((WEB / "i18n" / "ru.json").read_text(encoding="utf-8"))
SESSIONS = ROOT / "tests" / "data" / "sessions"

TEMPLATE_KEY = re.compile(r"""\b_\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")
SCRIPT_KEY = re.compile(r'''\bt\(\s*"((?:[^"\\]|\\.)*)"''')

# Words the pages look up by value rather than as literals: the states the station reports,
# ruling statuses, node kinds, terrain types and the verdict names.
STATES = [
    "in range",  # a smart die's link (station/devices/dice/source.py)
    "no game is running",  # why a smart die's throw was not used
    "this die is not paired with a player",
    "Bluetooth is not available: is BlueZ running, and a Bluetooth adapter plugged in?",  # bleak_radio.NO_BLUETOOTH
    *(f"colour {c}" for c in ("black", "red", "green", "blue", "yellow", "orange")),  # a GoDice's colour
    "applied",
    "confirmed",
    "pending",
    "overridden",
    "unchallenged",
    "connected",
    "connecting",
    "lost",
    "silent",
    "idle",
    "none",
    "starting",
    "running",
    "stalled",
    "ended",
    "error",
    "dark",
    "frozen",
    "tilt",
    "launcher",
    "marker",
    "woods",
    "building",
    "hill",
    "water",
    "obstacle",
    "trench",
    "wire",
    "void",
    "stood",
    "fell",
    "allow",
    "armies",
    "hub",
    "calibration",
    "deployment",
    "disk",
    "judge",  # who set a tournament result (the table's is "table")
    # Alpha Strike's cards: the unit type, the roles a MUL record gives, the phases and the moves
    "BM",
    "Ambusher",
    "Attack",
    "Brawler",
    "Dogfighter",
    "Juggernaut",
    "Missile Boat",
    "None",
    "Scout",
    "Skirmisher",
    "Sniper",
    "Striker",
    "initiative",
    "movement",
    "combat",
    "end",
    "still",
    "ground",
    "jump",
]


def literal_keys() -> set[str]:
    keys = set()
    for path in [*(WEB / "templates").glob("*.html"), *(ROOT / "station" / "tournament" / "templates").glob("*.html")]:
        for double, single in TEMPLATE_KEY.findall(path.read_text(encoding="utf-8")):
            keys.add((double or single).replace('\\"', '"').replace("\\'", "'"))
    for path in (WEB / "static").glob("*.js"):
        keys.update(k.replace('\\"', '"') for k in SCRIPT_KEY.findall(path.read_text(encoding="utf-8")))
    return keys


def said_keys() -> set[str]:
    """The pre-game check's words and the server's refusals, said with ``say`` (station/rules/text.py)
    in the lobby, the web layer and the doctor's checks, and what any data file's loader says is
    wrong with a field (``problem``, station/datafile.py), all shown in the page's language from
    this catalog."""
    keys = set()
    saying = [
        *(ROOT / "station" / "lobby").glob("*.py"),
        *(ROOT / "station" / "web").glob("*.py"),
        ROOT / "station" / "doctor.py",
        ROOT / "station" / "game.py",  # why a smart die's throw was not used
        ROOT / "station" / "updates.py",  # why an update file is refused
        *(ROOT / "station" / "tournament").glob("*.py"),
    ]
    for path in sorted((ROOT / "station").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            said_by = {"say", "problem"} if path in saying else {"problem"}
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in said_by:
                assert isinstance(node.args[0], ast.Constant), f"{path}:{node.lineno}: say a literal template"
                template = node.args[0].value
                if re.search(r"[A-Za-z]", re.sub(r"\{\w+\}", "", template)):
                    keys.add(template)
    return keys


def game_keys() -> set[str]:
    """What the rules hand the pages to show as words: the buttons, the verdicts with what each
    does, and every status a unit or a model takes in the recorded games (what a model may still
    do is said by the rules' own catalogs)."""
    keys = set()
    for name in RULESETS:
        ruleset = make_ruleset(name, DiceBook())
        keys.update(label for _, label in ruleset.controls)
        keys.update(option["help"] for option in ruleset.options.describe())
        for kind in RulingKind:
            for legal in (True, False):
                ruling = Ruling(f"1:{'shot' if kind == 'shot' else kind}", 1, kind, "", "", details={"legal": legal})
                keys.update(why for _, why in ruleset.verdicts(ruling))
    for journal in SESSIONS.glob("*.jsonl"):
        result = fold(read_records(journal), on_step=lambda record, rulings: None)
        view = result.ruleset.state_view(result.state)
        for unit in view["units"]:
            keys.add(unit["status"])
            for element in unit["elements"]:
                keys.add(element["status"])
                if "card" in element:
                    keys.add(element["card"]["status"])
    return keys


def test_every_string_the_pages_show_has_its_russian():
    wanted = literal_keys() | set(STATES) | game_keys() | said_keys()
    missing = sorted(k for k in wanted if not CATALOG.get(k, "").strip())
    assert not missing, f"{len(missing)} strings have no Russian: {missing[:20]}"


def test_no_entry_is_left_unused():
    used = literal_keys() | set(STATES) | game_keys() | said_keys()
    assert sorted(set(CATALOG) - used) == []


def test_placeholders_survive_translation():
    for english, russian in CATALOG.items():
        assert set(re.findall(r"\{\w+\}", english)) == set(re.findall(r"\{\w+\}", russian)), english
        assert re.findall(r"§[\d.]+", english) == re.findall(r"§[\d.]+", russian), english  # sections stay


class _Text(HTMLParser):
    """The visible text of a page (not scripts, styles or the embedded catalog)."""

    def __init__(self):
        super().__init__()
        self.skip, self.chunks = 0, []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        for name, value in attrs:
            if name in ("placeholder", "aria-label", "title", "alt") and value:
                self.chunks.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip and data.strip():
            self.chunks.append(data.strip())


ALLOWED_LATIN = re.compile(
    r"^(?:[A-Z]?\d*|mm|px|fps|QR|ChArUco|JSON|English|D|id|TMM|OV|TH|HEAT|[§\d.,:;+/σ()\s·–—-]+)$"
)


@pytest.mark.parametrize("path", ["/lobby", "/", "/calibrate"])
def test_a_page_in_russian_has_no_english_left(path, tmp_path, armies):
    from station.lobby.lobby import Lobby
    from station.runtime import Station
    from station.web.app import create_app

    lobby = Lobby(tmp_path / "journals", tmp_path / "armies")
    if path != "/lobby":
        lobby.start("bronepekhota", armies)
    try:
        client = create_app(lobby, "i18n-token").test_client()
        client.set_cookie("lang", "ru")
        page = client.get(path)
        assert page.status_code == 200 and '<html lang="ru">' in page.get_data(as_text=True)
        parser = _Text()
        parser.feed(page.get_data(as_text=True))
        english = [
            chunk
            for chunk in parser.chunks
            if re.search(r"[A-Za-z]{3,}", chunk)
            and not re.search(r"[А-Яа-яЁё]", chunk)
            and not ALLOWED_LATIN.match(chunk)
        ]
        names = {"Бронепехота", "http", "journals", ".jsonl", "bronepekhota"}
        english = [c for c in english if not any(n in c for n in names)]
        assert english == [], english
    finally:
        lobby.close()
    assert Station  # imported for the fixture's station type


def test_the_language_follows_the_browser_until_the_switch_says_otherwise(client):
    assert '<html lang="en">' in client.get("/").get_data(as_text=True)
    russian = client.get("/", headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="ru">' in russian and "Судейская" in client.get(
        "/lobby", headers={"Accept-Language": "ru"}
    ).get_data(as_text=True)
    client.set_cookie("lang", "en")
    assert '<html lang="en">' in client.get("/", headers={"Accept-Language": "ru"}).get_data(as_text=True)
