"""The batched measurements a snapshot gets (every distance, bearing and line of sight at once),
checked against independent slow references: GJK pair by pair, and rays sampled point by point."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.measure.bases import Base, closest_points
from station.measure.measurement import Placed
from station.measure.pairwise import edge_distances
from station.measure.sightlines import ACROSS, LEVELS, Footprints, sightlines
from station.measure.table import EYE_FRACTION, Figure, TableGeometry, Terrain
from station.measure.terrain import Piece, line_of_sight

KINDS = [("round", 25, 25), ("round", 50, 50), ("oval", 75, 42), ("oval", 105, 70), ("rect", 100, 50), ("rect", 20, 20)]


def _random_bases(rng: np.random.Generator, n: int, spread: float) -> list[Base]:
    out = []
    for _ in range(n):
        kind, length, width = KINDS[int(rng.integers(len(KINDS)))]
        out.append(Base(kind, length, width, *rng.uniform(0, spread, 2), rng.uniform(0, 360)))
    return out


@pytest.mark.parametrize("seed, spread", [(1, 1200), (2, 400), (3, 250), (4, 150)])
def test_every_edge_distance_matches_gjk(seed, spread):
    """Crowded tables too: many touching, overlapping and nearly touching pairs."""
    bases = _random_bases(np.random.default_rng(seed), 40, spread)
    matrix = edge_distances(bases)
    for i, j in itertools.combinations(range(len(bases)), 2):
        assert matrix[i, j] == matrix[j, i]
        assert matrix[i, j] == pytest.approx(closest_points(bases[i], bases[j])[0], abs=1e-3), (bases[i], bases[j])


@pytest.mark.parametrize("gap", [0.02, 0.3, 2.0])
@pytest.mark.parametrize("second", [Base("rect", 100, 50), Base("oval", 105, 70), Base("round", 25, 25)])
def test_a_gap_thinner_than_the_direction_grid_is_still_found(gap, second):
    """Two long bases side by side: only directions within a hair of the normal separate them."""
    first = Base("rect", 200, 40, 0, 0, 0)
    placed = second.at(30, 20 + second.width / 2 + gap, 0)
    assert edge_distances([first, placed])[0, 1] == pytest.approx(gap, abs=1e-3)


def test_overlapping_and_concentric_bases_are_at_zero():
    bases = [Base("oval", 75, 42, 10, 10, 30), Base("rect", 100, 50, 10, 10, 80), Base("round", 25, 25, 40, 10)]
    assert not edge_distances(bases).any()


def _inside(poly: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Point in polygon by the even-odd rule, written independently of the station's code."""
    inside = np.zeros(len(points), bool)
    for (x1, y1), (x2, y2) in zip(poly, np.roll(poly, -1, axis=0)):
        crosses = (y1 > points[:, 1]) != (y2 > points[:, 1])
        with np.errstate(divide="ignore", invalid="ignore"):
            at = x1 + (points[:, 1] - y1) * (x2 - x1) / (y2 - y1)
        inside ^= crosses & (points[:, 0] < at)
    return inside


def _sampled_hidden(a, eye, b, radius, height, pieces, samples=4000) -> float:
    """The share of the fan's rays that some solid piece stops, by sampling each ray densely."""
    d = b - a
    side = np.array([-d[1], d[0]]) / np.hypot(*d)
    t = np.linspace(0, 1, samples)
    stopped = 0
    for k in ACROSS:
        end = b + side * radius * k
        points = a + np.outer(t, end - a)
        over = [(p, _inside(p.polygon, points)) for p in pieces if p.type in ("building", "hill", "obstacle")]
        for level in LEVELS:
            z = eye + (height * level - eye) * t
            stopped += any(((z < p.height_mm) & mask).any() for p, mask in over)
    return stopped / (len(ACROSS) * len(LEVELS))


def _random_pieces(rng: np.random.Generator, n: int) -> list[Piece]:
    pieces = []
    for k in range(n):
        cx, cy = rng.uniform(100, 900, 2)
        count = int(rng.integers(3, 9))
        angles = np.sort(rng.uniform(0, 2 * np.pi, count))
        radii = rng.uniform(20, 90, count) if k % 2 else np.full(count, rng.uniform(30, 80))  # half are concave
        poly = np.column_stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)])
        if k % 3 == 0:
            poly = poly[::-1]  # clockwise outlines too
        pieces.append(
            Piece(f"p{k}", ["building", "hill", "obstacle", "woods"][k % 4], float(rng.uniform(10, 120)), poly)
        )
    return pieces


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_hidden_fraction_matches_densely_sampled_rays(seed):
    rng = np.random.default_rng(seed)
    pieces = _random_pieces(rng, 12)
    fp = Footprints.of(pieces)
    starts, ends = rng.uniform(0, 1000, (60, 2)), rng.uniform(0, 1000, (60, 2))
    seen = sightlines(fp, starts, np.full(60, 45.0), ends, np.full(60, 16.0), np.full(60, 40.0), fp.contains(starts))
    disagreements = 0
    for k in range(60):
        sampled = _sampled_hidden(starts[k], 45.0, ends[k], 16.0, 40.0, pieces)
        disagreements += abs(sampled - seen.hidden_fraction[k]) > 1e-9
        assert abs(sampled - seen.hidden_fraction[k]) <= 1 / 15 + 1e-9  # a grazing ray may fall between samples
    assert disagreements <= 2


def test_woods_length_and_shooters_standing_in_terrain():
    """Entering, leaving and starting inside a concave wood: the inside length adds up."""
    wood = Piece(
        "wood",
        "woods",
        80,
        np.array([[0, 0], [300, 0], [300, 100], [200, 100], [200, 20], [100, 20], [100, 100], [0, 100]], float),
    )
    shooter = Placed("s", Base("round", 25, 25, 50, 50))  # inside the left arm
    target = Placed("t", Base("round", 25, 25, 450, 50))
    sight = line_of_sight(shooter, 40, target, 40, [wood])
    assert sight.woods_mm == pytest.approx(50 + 100)  # 50 mm out of the left arm, 100 mm across the right
    assert not sight.blocked and sight.blockers == ()


def _figures(rng, n):
    return [
        Figure(Placed(f"f{k}", b), "red" if k % 2 else "blue", 40.0) for k, b in enumerate(_random_bases(rng, n, 900))
    ]


def test_table_geometry_agrees_with_the_single_measurements():
    rng = np.random.default_rng(11)
    figures = _figures(rng, 16)
    pieces = _random_pieces(rng, 8)
    table = TableGeometry.of(figures, Terrain(pieces))
    for a, b in itertools.permutations(figures, 2):
        i, j = table.index(a.id), table.index(b.id)
        assert table.edge_mm[i, j] == pytest.approx(closest_points(a.placed.base, b.placed.base)[0], abs=1e-3)
        assert table.centre_mm[i, j] == pytest.approx(
            np.hypot(a.placed.base.x - b.placed.base.x, a.placed.base.y - b.placed.base.y)
        )
        if a.side == b.side:
            with pytest.raises(ValueError, match="same side"):
                table.line_of_sight(a.id, b.id)
        else:
            assert table.line_of_sight(a.id, b.id) == line_of_sight(a.placed, 40 * EYE_FRACTION, b.placed, 40, pieces)
    origin = figures[0]
    enemies = [f.id for f in figures if f.side != origin.side]
    nearest = table.nearest(origin.id, enemies, 3)
    assert [mm for _, mm in nearest] == sorted(mm for _, mm in nearest)
    assert nearest[0][1] == pytest.approx(
        min(closest_points(origin.placed.base, f.placed.base)[0] for f in figures if f.id in enemies), abs=1e-3
    )


def test_bearings_give_the_arcs():
    figures = [
        Figure(Placed("tank", Base("rect", 100, 50, 0, 0, 90)), "red"),  # facing +y
        Figure(Placed("ahead", Base("round", 25, 25, 10, 300)), "blue"),
        Figure(Placed("behind", Base("round", 25, 25, -10, -300)), "blue"),
        Figure(Placed("right", Base("round", 25, 25, 300, 0)), "blue"),
    ]
    table = TableGeometry.of(figures)
    assert table.in_arc("tank", "ahead") and not table.in_arc("tank", "behind")
    assert table.in_arc("tank", "behind", 180, 90)
    assert table.bearing_deg[0, 3] == pytest.approx(-90)  # negative: to the right
    with pytest.raises(KeyError, match="not on the table"):
        table.index("ghost")


def _moved(figure: Figure, dx: float, dy: float, turn: float) -> Figure:
    b = figure.placed.base
    return Figure(
        Placed(figure.id, b.at(b.x + dx, b.y + dy, b.facing_deg + turn), figure.placed.sigma_mm),
        figure.side,
        figure.height_mm,
    )


def test_an_update_measures_again_only_what_moved_and_matches_a_fresh_table():
    rng = np.random.default_rng(12)
    figures = _figures(rng, 20)
    terrain = Terrain(_random_pieces(rng, 8))
    before = TableGeometry.of(figures, terrain)
    after = list(figures)
    for k in (3, 4, 11):
        after[k] = _moved(after[k], *rng.uniform(-200, 200, 2), rng.uniform(-90, 90))
    updated, fresh = before.update(after, terrain), TableGeometry.of(after, terrain)
    for name in ("edge_mm", "centre_mm", "bearing_deg", "hidden", "woods_mm"):
        np.testing.assert_array_equal(getattr(updated, name), getattr(fresh, name), err_msg=name)
    assert sorted(map(tuple, updated.blockers)) == sorted(map(tuple, fresh.blockers))
    assert updated.edge_mm[3, 4] != before.edge_mm[3, 4]


def test_tracker_wobble_is_not_movement_but_a_new_terrain_is_a_new_table():
    rng = np.random.default_rng(13)
    figures = _figures(rng, 6)
    terrain = Terrain(_random_pieces(rng, 3))
    table = TableGeometry.of(figures, terrain)
    wobbled = [_moved(f, 0.01, -0.02, 0.01) for f in figures]
    assert table.update(wobbled) is table
    other = Terrain(_random_pieces(rng, 3))
    assert table.update(wobbled, other).terrain is other


base_strategy = st.builds(
    lambda kind, x, y, f: Base(kind[0], kind[1], kind[2], x, y, f),
    st.sampled_from(KINDS),
    st.floats(0, 400),
    st.floats(0, 400),
    st.floats(0, 360),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(base_strategy, min_size=2, max_size=6))
def test_batched_distances_are_gjk_distances(bases):
    matrix = edge_distances(bases)
    assert (matrix == matrix.T).all() and (matrix >= 0).all()
    for i, j in itertools.combinations(range(len(bases)), 2):
        centre = np.hypot(bases[i].x - bases[j].x, bases[i].y - bases[j].y)
        assert matrix[i, j] <= centre + 1e-9
        assert matrix[i, j] == pytest.approx(closest_points(bases[i], bases[j])[0], abs=1e-3)
