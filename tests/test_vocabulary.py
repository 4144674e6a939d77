"""What the pages draw with is declared once (station/web/vocabulary.py) and reaches every page:
terrain colours, the base-name pattern, and who is out of play (issue #34)."""

import json
import re
from dataclasses import replace

import pytest

from station.measure.bases import BASE_NAME
from station.measure.terrain import TYPES
from station.rules.text import catalog
from station.rules.view import OUT_OF_PLAY, STATUS_WORDS, STATUSES, out_of_play, status_of
from station.web.picture import table_picture
from station.web.vocabulary import TERRAIN_COLOURS, vocabulary

from .test_price_of_a_mile import Mile


def test_the_dashboard_gets_the_terrain_types_the_base_pattern_and_the_out_of_play_statuses(client):
    page = client.get("/").get_data(as_text=True)
    sent = json.loads(re.search(r'<script type="application/json" id="vocabulary">(.*?)</script>', page).group(1))
    assert sent == vocabulary()
    assert [t for t, _ in sent["terrain"]] == list(TYPES) and all(
        re.fullmatch(r"#[0-9a-f]{8}", c) for _, c in sent["terrain"]
    )
    assert sent["base_name"] == BASE_NAME.pattern and sent["out_of_play"] == list(OUT_OF_PLAY)
    assert 'data-card="unit"' in page and "alpha.js" not in page  # Бронепехота's cards are the common ones


@pytest.mark.parametrize("kind", TYPES)
def test_every_terrain_type_is_drawn_in_its_own_colour_in_the_replay_and_the_report(kind):
    piece = {"id": "p", "type": kind, "height_mm": 10, "polygon": [[0, 0], [100, 0], [100, 100]]}
    svg = table_picture(None, [piece], [], "title", "subtitle")
    assert f'fill="{TERRAIN_COLOURS[kind]}"' in svg and 'fill="#888"' not in svg


def test_a_fled_model_is_out_of_play_on_the_live_map_the_replay_and_the_report_alike():
    game = Mile()
    game.state = game.state.with_fighter(replace(game.f("l1"), status="fled"))  # §11 panic: he ran
    view = game.rules.state_view(game.state)
    statuses = {e["id"]: e["status"] for u in view["units"] for e in u["elements"]}
    assert statuses["l1"] == "fled" and out_of_play(statuses["l1"]) and "fled" in vocabulary()["out_of_play"]
    assert not out_of_play(statuses["l2"])


def test_a_status_outside_the_closed_set_is_caught_where_a_view_is_made():
    assert status_of("fallen") == "fallen" and set(OUT_OF_PLAY) <= set(STATUSES)
    with pytest.raises(ValueError, match="'routed' is not a view status"):
        status_of("routed")


def test_every_status_has_its_word_for_the_state_prose():
    """The replay's and the report's state say each status in the page's language (issue 49)."""
    assert set(STATUS_WORDS) == set(STATUSES)
    assert STATUS_WORDS["fallen"].said(catalog("ru")) == "упал"
