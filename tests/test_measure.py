"""The measurement layer: distances, units, uncertainty, contact, arcs, templates, terrain, LOS."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.datafile import DataFileError
from station.measure.bases import Base, centre_distance, closest_points
from station.measure.measurement import CALL_SIGMAS, Placed, measure, position_sigma
from station.measure.relations import bearing_deg, coherent, front_half, in_arc, in_contact, nearest
from station.measure.templates import blast, scatter, strip
from station.measure.terrain import Piece, line_of_sight, load_terrain
from station.measure.units import BRONEPEKHOTA, CM, INCH, INCHES, Convention, step

coord = st.floats(0, 1200)
angle = st.floats(0, 360)
bases = st.one_of(
    st.builds(lambda d, x, y, f: Base("round", d, d, x, y, f), st.floats(20, 60), coord, coord, angle),
    st.builds(
        lambda length, w, x, y, f: Base("oval", length, min(w, length), x, y, f),
        st.floats(30, 110),
        st.floats(20, 70),
        coord,
        coord,
        angle,
    ),
    st.builds(
        lambda length, w, x, y, f: Base("rect", length, w, x, y, f),
        st.floats(20, 120),
        st.floats(20, 60),
        coord,
        coord,
        angle,
    ),
)


def _dense(base, n=1500):
    if base.kind != "rect":
        return base.outline(n)
    c = base.outline()
    return np.vstack([c[i] + np.linspace(0, 1, n // 4)[:, None] * (c[(i + 1) % 4] - c[i]) for i in range(4)])


@given(bases, bases)
@settings(max_examples=150, deadline=None)
def test_distance_is_symmetric_and_never_more_than_centre_distance(p, q):
    d_pq, pa, pb = closest_points(p, q)
    d_qp = closest_points(q, p)[0]
    assert d_pq == pytest.approx(d_qp, abs=1e-4)
    assert d_pq <= centre_distance(p, q) + 1e-6
    if d_pq > 0:
        assert np.linalg.norm(pa - pb) == pytest.approx(d_pq, abs=1e-4)  # the points are the ones measured


@given(bases, bases, bases)
@settings(max_examples=80, deadline=None)
def test_triangle_inequality_of_centre_distances(p, q, r):
    assert centre_distance(p, r) <= centre_distance(p, q) + centre_distance(q, r) + 1e-9


@given(st.floats(0, 5000), st.sampled_from([INCH, CM, step(5), step(2.5)]))
def test_units_round_trip(mm, unit):
    assert unit.to_mm(unit.from_mm(mm)) == pytest.approx(mm)


@pytest.mark.parametrize("seed", range(12))
def test_rectangle_to_oval_closest_points_match_brute_force_sampling(seed):
    rng = np.random.default_rng(seed)
    rect = Base("rect", rng.uniform(40, 120), rng.uniform(20, 60), 300, 300, rng.uniform(0, 360))
    oval = Base(
        "oval",
        rng.uniform(40, 100),
        rng.uniform(20, 40),
        300 + rng.uniform(60, 160),
        300 + rng.uniform(-80, 80),
        rng.uniform(0, 360),
    )
    exact = closest_points(rect, oval)[0]
    sampled = np.linalg.norm(_dense(rect)[:, None] - _dense(oval)[None], axis=2).min()
    assert exact == pytest.approx(sampled, abs=0.05)


def test_bronepekhota_counts_steps_rounded_up_and_inches_keep_fractions():
    """Seed 000 digest §7: range in steps of 5 cm, rounded up."""
    assert BRONEPEKHOTA.state(250.0) == 5 and BRONEPEKHOTA.state(250.1) == 6 and BRONEPEKHOTA.state(1) == 1
    assert INCHES.state(25.4 * 6) == pytest.approx(6.0)
    assert Convention(INCH, "down").state(25.4 * 5.99) == 5
    with pytest.raises(ValueError):
        Convention(INCH, "sideways")


@pytest.mark.parametrize("offset_sigmas, close", [(0.0, True), (1.5, True), (-1.9, True), (2.5, False), (-6.0, False)])
def test_too_close_to_call_at_a_range_band_edge(offset_sigmas, close):
    """Alpha Strike's 6" short-range edge: a measurement within 2 sigma of it goes to the referee."""
    sigma = position_sigma(0.5, 0.8)
    total = math.hypot(sigma, sigma)
    gap = 6 * 25.4 + offset_sigmas * total
    a = Placed("a", Base("round", 40, 40, 0, 0), sigma)
    b = Placed("b", Base("round", 40, 40, 40 + gap, 0), sigma)
    m = measure(a, b, INCHES)
    assert m.too_close_to_call(6) is close
    assert CALL_SIGMAS == 2.0 and "edge to edge" in m.describe()


def test_contact_coherency_and_nearest():
    squad = [Placed(f"s{i}", Base("round", 25, 25, 30.0 * i, 0)) for i in range(5)]  # 5 mm gaps
    assert in_contact(squad[0], Placed("t", Base("round", 25, 25, 25.5, 0)))
    assert not in_contact(squad[0], squad[1])
    assert coherent(squad, command_mm=2 * 25.4) == [["s0", "s1", "s2", "s3", "s4"]]
    stray = Placed("s5", Base("round", 25, 25, 400, 0))
    assert coherent(squad + [stray], command_mm=2 * 25.4) == [["s0", "s1", "s2", "s3", "s4"], ["s5"]]
    assert [n for n, _ in nearest(squad[0], squad + [stray], 3)] == ["s1", "s2", "s3"]


def test_arcs_front_rear_and_turret():
    """§7.3 field of view is the front half; §6.3 a turret turns at most 90 degrees."""
    tank = Placed("tank", Base("rect", 100, 60, 500, 500, 90))  # facing +y
    ahead, behind, left = (
        Placed(n, Base("round", 25, 25, x, y))
        for n, (x, y) in (("ahead", (520, 800)), ("behind", (500, 200)), ("left", (200, 510)))
    )
    assert front_half(tank, ahead) and not front_half(tank, behind)
    assert in_arc(tank, behind, 180, 90) and bearing_deg(tank, left) == pytest.approx(88.1, abs=0.2)
    assert in_arc(tank, left, 0, 90) and not in_arc(tank, left, 0, 45)


def test_templates_list_every_base_they_touch():
    near = Placed("near", Base("round", 25, 25, 130, 100))  # its edge 17.5 mm from the centre of a 20 mm blast
    edge = Placed("edge", Base("round", 25, 25, 132, 100))  # 19.5 mm: still touched
    far = Placed("far", Base("round", 25, 25, 140, 100))
    assert blast((100, 100), 20.0, [near, edge, far]) == ["near", "edge"]
    line = [Placed(f"m{i}", Base("round", 25, 25, 100 + 50 * i, 100 + 8 * i)) for i in range(6)]
    touched = strip((100, 100), 0.0, 8 * 25.4, 1 * 25.4, line)  # The Price of a Mile's 8"x1" flamer
    assert touched == ["m0", "m1", "m2", "m3"]  # m4's edge is 6.8 mm beside the strip, m5 beyond its end


@pytest.mark.parametrize(
    "roll, sides, dx, dy",
    [(12, 12, 0, 1), (3, 12, 1, 0), (6, 12, 0, -1), (9, 12, -1, 0), (6, 6, 0, 1), (2, 6, 0.866, -0.5)],
)
def test_scatter_reads_the_die_as_a_clock_face(roll, sides, dx, dy):
    x, y = scatter((100, 100), roll, sides, 50)
    assert (x - 100) / 50 == pytest.approx(dx, abs=1e-3) and (y - 100) / 50 == pytest.approx(dy, abs=1e-3)
    with pytest.raises(ValueError):
        scatter((0, 0), 13, 12, 10)


def _box(piece_id, kind, height, x0, y0, x1, y1):
    return Piece(piece_id, kind, height, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float))


def test_line_of_sight_blocked_clear_partial_and_woods():
    shooter = Placed("shooter", Base("round", 40, 40, 100, 300))
    target = Placed("target", Base("round", 40, 40, 700, 300))
    wall = _box("wall", "building", 150, 390, 250, 410, 350)
    assert line_of_sight(shooter, 50, target, 40, [wall]).blocked
    low_wall = _box("low", "obstacle", 25, 660, 200, 670, 400)  # half the target's height, right in front of it
    partial = line_of_sight(shooter, 50, target, 40, [low_wall])
    assert not partial.blocked and 0.2 < partial.hidden_fraction < 0.8 and partial.blockers == ("low",)
    woods = _box("wood", "woods", 100, 300, 200, 300 + 6 * 25.4, 400)  # Alpha Strike: 6" of woods blocks
    sight = line_of_sight(shooter, 50, target, 40, [woods])
    assert not sight.blocked and sight.woods_mm == pytest.approx(6 * 25.4)
    aside = _box("aside", "building", 500, 390, 500, 410, 600)
    assert line_of_sight(shooter, 50, target, 40, [aside]).hidden_fraction == 0


@pytest.mark.parametrize(
    "change, where, problem",
    [
        (lambda p: p.update(polygon=[[0, 0], [100, 100], [100, 0], [0, 100]]), "pieces[0].polygon", "crosses itself"),
        (lambda p: p.update(height_mm=-5), "pieces[0].height_mm", "0 to 2000"),
        (lambda p: p.update(type="lava"), "pieces[0].type", "expected one of"),
        (lambda p: p.update(polygon=[[0, 0], [10, 10], [20, 20]]), "pieces[0].polygon", "no area"),
        (lambda p: p.update(polygon=[[0, 0], [10, 0]]), "pieces[0].polygon", "3 to 64"),
    ],
)
def test_terrain_file_errors_name_the_field(tmp_path, change, where, problem):
    piece = {"id": "ruin", "type": "building", "height_mm": 80, "polygon": [[0, 0], [100, 0], [100, 80], [0, 80]]}
    change(piece)
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"format": "station-terrain/1", "pieces": [piece]}))
    with pytest.raises(DataFileError) as err:
        load_terrain(path)
    assert err.value.path == str(path) and err.value.where == where and problem in err.value.problem


def test_a_good_terrain_file_loads(tmp_path):
    path = tmp_path / "table.json"
    path.write_text(
        json.dumps(
            {
                "format": "station-terrain/1",
                "pieces": [
                    {
                        "id": "wood",
                        "type": "woods",
                        "height_mm": 90,
                        "polygon": [[0, 0], [200, 0], [150, 120], [20, 100]],
                    }
                ],
            }
        )
    )
    [wood] = load_terrain(path)
    assert (
        wood.type == "woods" and wood.contains(np.array([100.0, 50.0])) and not wood.contains(np.array([190.0, 110.0]))
    )


def test_alpha_strike_firing_arc_counts_the_share_of_the_target_base():
    """Digest §6.2, A3: illegal when more than half the target's base is outside the front 180°."""
    from station.measure.relations import share_in_front

    mech = Placed("mech", Base("round", 32, 32, 500, 500, 90))  # facing +y
    assert share_in_front(mech, Placed("t", Base("round", 32, 32, 700, 700))) == pytest.approx(1.0)
    assert share_in_front(mech, Placed("t", Base("round", 32, 32, 700, 300))) == pytest.approx(0.0)
    straddling = share_in_front(mech, Placed("t", Base("round", 32, 32, 700, 500)))
    assert straddling == pytest.approx(0.5, abs=1e-3)
    mostly_behind = share_in_front(mech, Placed("t", Base("rect", 40, 40, 700, 495)))  # 15 of 40 mm ahead
    assert mostly_behind == pytest.approx(15 / 40, abs=1e-6)


@pytest.mark.parametrize(
    "where, side",
    [
        ((500, 300), "rear"),
        ((500, 700), "front"),
        ((200, 500), "front"),
        ((500 + 300 * math.tan(math.radians(25)), 200), "rear"),
        ((500 + 300 * math.tan(math.radians(35)), 200), "front"),
        ((500 + 300 * math.tan(math.radians(30)), 200), "vertex"),
    ],
)
def test_alpha_strike_attack_direction_by_the_rear_hex_side(where, side):
    """Digest §6.6: the centre-to-centre line through the rear side (60° opposite the front) is
    a rear hit; through a corner the target's controller chooses, so the referee is asked."""
    from station.measure.relations import attack_side

    target = Placed("target", Base("round", 32, 32, 500, 500, 90))  # facing +y: its rear side faces -y
    assert attack_side(Placed("attacker", Base("round", 32, 32, *where)), target) == side


def test_a_path_splits_into_forward_backward_sideways_turns_and_terrain():
    from station.measure.movement import movement, terrain_crossed

    path = [(0, 0, 0), (100, 0, 0), (100, 0, 45), (100, 0, 90), (100, 50, 90), (100, 20, 90), (60, 20, 90)]
    moved = movement(path)
    assert (moved.forward_mm, moved.backward_mm, moved.sideways_mm) == pytest.approx((150, 30, 40))
    assert moved.turns == (90,)  # one turn on the spot, seen in two snapshots
    assert movement([(0, 0, 0), (50, 0, 30), (100, 0, 30)]).turns == (30,)  # turning while moving counts too
    assert movement([(0, 0, 0), (50, 0, 4), (100, 0, 8)]).turns == ()  # nudges are not turns
    fence = _box("fence", "obstacle", 40, 40, -100, 50, 100)
    wood = _box("wood", "woods", 80, 80, -100, 200, 100)
    crossed = {c.piece: c for c in terrain_crossed([(0, 0, 0), (100, 0, 0), (0, 0, 0)], [fence, wood])}
    assert crossed["fence"].entered == 2 and crossed["fence"].inside_mm == pytest.approx(20)
    assert crossed["wood"].entered == 1 and crossed["wood"].inside_mm == pytest.approx(40)  # 20 in and 20 back
    assert terrain_crossed([(0, 0, 0), (30, 0, 0)], [fence]) == []


def test_each_game_states_a_distance_its_own_way():
    """Бронепехота: "a little over 4 steps, rounded up to 5" (seed 000 §7.4 Рис. 40); the inch
    games keep fractions: 6.5" is medium range in Alpha Strike, past the 6" band edge."""
    from station.measure.units import CONVENTIONS

    assert CONVENTIONS["bronepekhota"].state(4.1 * 50) == 5 and CONVENTIONS["bronepekhota_quick"].state(200) == 4
    for game in ("alpha_strike", "price_of_a_mile", "steel_warriors"):
        assert CONVENTIONS[game].state(6.5 * 25.4) == pytest.approx(6.5)


@pytest.mark.parametrize(
    "name, kind, length, width",
    [
        ("round32", "round", 32, 32),
        ("oval75x42", "oval", 75, 42),
        ("rect50x100", "rect", 100, 50),
        ("rect70x130", "rect", 130, 70),
        ("round27.5", "round", 27.5, 27.5),
    ],
)
def test_a_base_is_named_by_shape_and_size(name, kind, length, width):
    base = Base.named(name)
    assert (base.kind, base.length, base.width) == (kind, length, width)


@pytest.mark.parametrize("name", ["hex40", "round", "rect50", "round4", "rect600x20", "Round25"])
def test_a_bad_base_name_says_what_a_name_looks_like(name):
    with pytest.raises(ValueError, match="round<diameter>"):
        Base.named(name)


def test_alpha_strike_line_of_sight_diagram():
    """Seed 004 digest §6.1, the LOS diagram: A sees B only through 7" of light woods (blocked at
    6" or more); ground vehicle C is hidden by a low hill; hovering D is seen over a small patch
    of woods (+1).  Heights: 'Mechs 60 mm, the vehicle 25 mm, the hovercraft 5" up (a 150 mm
    cylinder here, since models stand on the table in this model)."""
    inch = 25.4
    a = Placed("A", Base("round", 32, 32, 100, 500))
    b = Placed("B", Base("round", 32, 32, 100 + 12 * inch, 500))
    c = Placed("C", Base("round", 32, 32, 100, 100))
    d = Placed("D", Base("round", 32, 32, 100, 900))
    woods = _box("light woods", "woods", 80, 100 + 2 * inch, 400, 100 + 9 * inch, 600)  # 7" along A-B
    hill = _box("low hill", "hill", 40, 40, 200, 160, 300)  # between A and C, taller than C
    patch = _box("small woods", "woods", 60, 80, 680, 120, 720)  # on the line A-D
    terrain = [woods, hill, patch]
    to_b = line_of_sight(a, 54, b, 60, terrain)
    assert (
        not to_b.blocked and to_b.woods_mm == pytest.approx(7 * inch) and to_b.woods_mm >= 6 * inch
    )  # the rules block
    to_c = line_of_sight(a, 54, c, 25, terrain)
    assert to_c.blocked and to_c.blockers == ("low hill",)
    to_d = line_of_sight(a, 54, d, 150, terrain)
    assert to_d.hidden_fraction == 0 and 0 < to_d.woods_mm < 6 * inch  # visible, woods intervene: +1


def test_partial_cover_by_thirds_and_bronepekhota_table_5_by_halves():
    """Alpha Strike: more than 1/3 but less than 2/3 hidden behind solid terrain is partial
    cover.  Бронепехота Table 5: more than half visible +1, less than half +3, none: no shot."""
    from station.rules.bronepekhota.tables import cover

    shooter = Placed("s", Base("round", 40, 40, 100, 300))
    target = Placed("t", Base("round", 40, 40, 700, 300))
    wall = _box("wall", "building", 120, 600, 300, 610, 500)  # hides the left part of the target
    seen = line_of_sight(shooter, 40, target, 40, [wall])
    assert 1 / 3 < seen.hidden_fraction < 2 / 3
    assert [cover(f)["armour"] for f in (0.0, 0.2, 0.5, 0.8, 1.0)] == [0, 1, 3, 3, None]
