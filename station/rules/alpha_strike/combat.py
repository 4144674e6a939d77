"""Alpha Strike attack declarations (seed 004 digest §4.3, §6 steps 1-4, §8.1-8.3, §10): what is
attacked, from where, with what, and the target number, all before a die is rolled.  The
geometry comes from the camera and the terrain; ``strike`` resolves the plan."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ...measure.bases import MM_PER_INCH as INCH
from ...measure.measurement import CALL_SIGMAS, Placed, measure, too_close_to_call
from ...measure.relations import attack_side, share_in_front
from ...measure.terrain import line_of_sight
from ...measure.units import INCHES
from ..base import Refused
from ..text import Text, joined, say
from .attack import WOODS_BLOCK_IN, WORDS, Geometry, modifiers, target_number
from .cards import UnitState
from .declared import by_hand_of, declared_geometry
from .formations import benefit
from .heat import max_overheat
from .melee import CHARGE_CONTACT_IN, melee_plan
from .state import AlphaState
from .where import height_mm, on_terrain, placed

KINDS = ("weapon", "indirect", "standard", "melee_weapon", "charge", "dfa")
MELEE_KINDS = ("standard", "melee_weapon", "charge", "dfa")
ATTACK_KINDS = {  # as the rulings name them
    "weapon": say("weapon"),
    "indirect": say("indirect"),
    "standard": say("standard"),
    "melee_weapon": say("melee weapon"),
    "charge": say("charge"),
    "dfa": say("dfa"),
}
SPECIAL_MELEE = ("charge", "dfa")
CONTACT_MM = 2.0  # bases this close touch (the digest's S13: about 0.1")


def _placed(state: AlphaState, unit: UnitState) -> Placed:
    found = placed(state, unit.id)
    if found is None:
        raise Refused(
            say(
                "the camera has not placed {unit}: give the distance or the range band, and the cover, by hand",
                unit=unit.id,
            ),
            "§6",
        )
    return found


def geometry(
    state: AlphaState, attacker: UnitState, target: UnitState, arc: str = "front", touching_forbids: bool = False
) -> tuple[Geometry, dict[str, Any], list[Text]]:
    """§6.1-6.3, §6.6 from the measurement layer: edge distance, line of sight, woods, cover, the
    firing arc (A3: more than half the target's base outside the front half: no attack; a REAR
    attack wants the opposite, §10.3), and the attack direction (a corner is the target's
    controller's choice: the referee).  ``touching_forbids``: a weapon attack, which base contact
    forbids (§6.3)."""
    a, t = _placed(state, attacker), _placed(state, target)
    m = measure(a, t, INCHES)
    doubts = []
    in_front = share_in_front(a, t) >= 0.5
    if arc == "front" and not in_front:
        raise Refused(
            say(
                "more than half of {target}'s base is outside {attacker}'s firing arc",
                target=target.id,
                attacker=attacker.id,
            ),
            "§6.2 A3",
        )
    if arc == "rear" and in_front:
        raise Refused(
            say(
                "{target} is in {attacker}'s firing arc; REAR weapons fire at targets outside it",
                target=target.id,
                attacker=attacker.id,
            ),
            "§10.3",
        )
    sight = line_of_sight(a, height_mm(state, attacker.id) * 0.9, t, height_mm(state, target.id), list(state.terrain))
    side = attack_side(a, t)
    if side == "vertex":
        doubts.append(
            say("the attack line runs through a corner of the target's base: its controller chooses front or rear")
        )
    touching = m.mm <= CONTACT_MM  # §6.1: units in base contact always see each other
    if arc == "front" and touching_forbids:
        # §6.3 «Касание подставками»: no weapon attacks on a target whose base you touch; a touch
        # within the camera's uncertainty either way is the referee's to call
        if m.too_close_to_call(CONTACT_MM / INCH):
            doubts.append(
                say(
                    "{attacker} may be in base contact with {target} (no weapon attacks then, §6.3)",
                    attacker=attacker.id,
                    target=target.id,
                )
            )
        elif touching:
            raise Refused(
                say(
                    "{attacker}'s base touches {target}'s: only melee attacks (§8)",
                    attacker=attacker.id,
                    target=target.id,
                ),
                "§6.3",
            )
    g = Geometry(
        m.exact,
        0.0 if touching else sight.hidden_fraction,
        0.0 if touching else sight.woods_mm / INCH,
        on_terrain(state, target.id, ("woods",)),
        on_terrain(state, target.id, ("water",)),
        side == "rear",
    )
    doubts += [
        say("the distance is within the camera's uncertainty of the {edge}\" band edge", edge=f"{edge:g}")
        for edge in (6.0, 24.0, 42.0)
        if m.too_close_to_call(edge)
    ]
    # §6.1 A19: the woods the line crosses move with its two ends, so they are as uncertain as the distance
    if g.woods_in and too_close_to_call(g.woods_in * INCH, WOODS_BLOCK_IN * INCH, m.sigma_mm):
        doubts.append(
            say(
                'the woods along the line ({woods_in}") are within the camera\'s uncertainty of the 6" that blocks it',
                woods_in=f"{g.woods_in:.2f}",
            )
        )
    return g, {**m.as_dict(), "table_seq": state.table_seq}, doubts


@dataclass(frozen=True)
class AttackPlan:
    """A declared attack checked and measured, before any die is rolled: what the dashboard's
    attack wizard shows and what ``strike.attack`` resolves."""

    attacker: UnitState  # as the Combat Phase began, armed with the damage this attack deals
    target: UnitState  # as the Combat Phase began
    kind: str
    overheat: int
    geometry: Geometry
    measured: dict[str, Any]
    doubts: tuple[Text, ...]
    side: int  # the attacker's place in the initiative order
    tn: int
    parts: tuple[tuple[Text, int], ...]
    band: str | None  # weapon and indirect attacks
    melee_damage: int = 0  # physical attacks
    rear: bool = False  # fired from REAR weapons (§10.3)
    heat: int = 0  # HT: heat the target gains on a hit (§10.1)
    declared: dict[str, Any] | None = None  # the referee's range and cover, with no camera (declared.py)

    @property
    def done_key(self) -> str:
        """What the unit has used up: its attack, or its REAR attack (§4.3, §10.3)."""
        return f"{self.attacker.id}/rear" if self.rear else self.attacker.id

    def hit_chance(self) -> float:
        """2D6 >= TN (§6.5)."""
        return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= self.tn) / 36


def _armed(unit: UnitState, damage: tuple[str, str, str]) -> UnitState:
    return replace(unit, card=replace(unit.card, damage=damage))


def _reduced(damage: tuple[str, ...], by: int) -> tuple[str, str, str]:
    """§10.3: the forward attack's damage after its REAR attack, before overheat is added."""

    def less(v: str) -> str:
        return v if v == "-" or not by else str(max(0, (1 if v == "0*" else int(v)) - by))

    return tuple(less(v) for v in damage)  # type: ignore[return-value]


def rear_points(values: tuple[str, str, str], band: str) -> int:
    """What a REAR attack could deal at a band (§10.3, A21): the forward attack loses as much."""
    v = values[("short", "medium", "long").index(band)]
    return 0 if v == "-" else 1 if v == "0*" else int(v)


def _check_declaration(
    state: AlphaState, attacker: UnitState, target: UnitState, kind: str, overheat: Any, rear: bool
) -> None:
    """§4.3 and the specials' limits (§9.1, §10): everything that refuses an attack before measuring."""
    if attacker.player == target.player:
        raise Refused(say("quick-start targets are enemy units"), "§4.3")
    if kind not in KINDS or not isinstance(overheat, int) or isinstance(overheat, bool) or overheat < 0:
        raise Refused(say("kind is one of {kinds}, and overheat a whole number", kinds=", ".join(KINDS)), "§4.3")
    if attacker.id in state.attacked:
        raise Refused(say("{attacker} has made its attack this turn", attacker=attacker.id), "§4.3")
    if rear and (kind != "weapon" or not attacker.card.special_values("REAR")):
        raise Refused(say("{attacker} has no REAR weapons for this", attacker=attacker.id), "§10.3")
    if rear and f"{attacker.id}/rear" in state.attacked:
        raise Refused(say("{attacker} has fired its REAR weapons this turn", attacker=attacker.id), "§10.3")
    if attacker.shutdown:
        raise Refused(say("{attacker} is shut down", attacker=attacker.id), "§9.4")
    if overheat and (kind != "weapon" or rear):
        raise Refused(say("only a forward weapon attack may overheat"), "§9.1 §10.3")
    if overheat and attacker.card.special_values("HT"):
        raise Refused(say("{attacker}'s HT attack cannot be overheated", attacker=attacker.id), "§10.1")
    if overheat > max_overheat(attacker):
        raise Refused(
            say(
                "{attacker} may overheat by at most {max_overheat}",
                attacker=attacker.id,
                max_overheat=max_overheat(attacker),
            ),
            "§9.1",
        )
    if kind == "indirect" and not attacker.card.has("IF"):
        raise Refused(say("{attacker} has no IF special", attacker=attacker.id), "§10.4")
    if kind in SPECIAL_MELEE:
        _check_special_melee(state, attacker, target)


def _check_special_melee(state: AlphaState, attacker: UnitState, target: UnitState) -> None:
    """§8.2 «Особые атаки ближнего боя»: one charge or death from above on a target a turn, and
    the target must already have finished its movement when the attacker moved into contact."""
    if target.id in state.special_targets:
        raise Refused(
            say("{target} has already been the target of a charge or death from above this turn", target=target.id),
            "§8.2",
        )
    moved = list(state.moves)  # in the order the units declared their moves (§5)
    if attacker.id not in moved or target.id not in moved or moved.index(target.id) > moved.index(attacker.id):
        raise Refused(
            say(
                "{target} had not finished its movement when {attacker} moved into contact",
                target=target.id,
                attacker=attacker.id,
            ),
            "§8.2",
        )


def _spotter(
    state: AlphaState, attacker: UnitState, target: UnitState, spotter_id: Any, seen_by_referee: bool = False
) -> UnitState:
    """§10.4: a friendly unit with line of sight to the target (the referee's word for it, when
    they declare the attack by hand)."""
    spotter = state.units.get(str(spotter_id))
    if spotter is None or spotter.player != attacker.player or spotter.id == attacker.id or spotter.id in state.removed:
        raise Refused(say("an indirect attack needs a spotter: another friendly unit in play"), "§10.4")
    if seen_by_referee:
        return spotter
    s, t = _placed(state, spotter), _placed(state, target)
    sight = line_of_sight(s, height_mm(state, spotter.id) * 0.9, t, height_mm(state, target.id), list(state.terrain))
    if sight.hidden_fraction > 2 / 3 or sight.woods_mm / INCH >= WOODS_BLOCK_IN:
        raise Refused(
            say("the spotter {spotter} has no line of sight to {target}", spotter=spotter.id, target=target.id), "§10.4"
        )
    return spotter


def plan_attack(state: AlphaState, args: Mapping[str, Any]) -> AttackPlan:
    """§4.3 declaration, §6 steps 1-4, §8.1-8.3 or §10.3-10.4: the attack's legality and TN."""
    if state.phase != "combat":
        raise Refused(say("it is the {phase} phase", phase=WORDS[state.phase]), "§4.3")
    attacker, target = state.units.get(str(args.get("attacker"))), state.units.get(str(args.get("target")))
    if attacker is None or target is None or attacker.id in state.removed or target.id in state.removed:
        raise Refused(say("give an attacker and a target in play"), "§4.3")
    kind, overheat, rear = args.get("kind", "weapon"), args.get("overheat", 0), bool(args.get("rear", False))
    _check_declaration(state, attacker, target, kind, overheat, rear)
    weapon = kind not in MELEE_KINDS
    declared: dict[str, Any] | None = None
    by_hand = by_hand_of(args)
    if by_hand is not None:  # no camera, or the referee's own tape: their word stands
        g, declared, doubts = declared_geometry(by_hand, melee=not weapon)
        measured: dict[str, Any] = {}
    else:
        g, measured, doubts = geometry(state, attacker, target, "rear" if rear else "front", touching_forbids=weapon)
    doubts += [why for why in (attacker.card.beyond_quick_start(), target.card.beyond_quick_start()) if why]
    side = state.order.index(attacker.player) if attacker.player in state.order else 0
    if side < state.combat_side:  # §4.3: the loser attacks with all its units, then the winner
        doubts.append(
            say(
                "the {order} side has begun its attacks, which ends the {player} side's (§4.3)",
                order=state.order[state.combat_side],
                player=attacker.player,
            )
        )
    # §4.3: damage and critical hits take effect in the End Phase, so both units fight as they
    # were when the Combat Phase began
    shooter, aimed_at = (state.combat_start.get(u.id, u) for u in (attacker, target))
    moves = (state.moves.get(attacker.id, "still"), state.moves.get(target.id, "still"))
    if not weapon:
        edge_in = g.edge_in
        contact_mm = CHARGE_CONTACT_IN * INCH
        if (
            kind in SPECIAL_MELEE
            and measured
            and contact_mm < measured["mm"] <= contact_mm + CALL_SIGMAS * measured["sigma_mm"]
        ):
            # a gap the camera cannot tell from contact: the charge stands, and the referee decides
            doubts.append(
                say(
                    '{attacker} may not quite touch {target} ({edge_in}"): a charge needs contact',
                    attacker=attacker.id,
                    target=target.id,
                    edge_in=f"{edge_in:.2f}",
                )
            )
            edge_in = 0.0
        melee = melee_plan(
            shooter,
            aimed_at,
            kind,
            edge_in,
            state.moved_in.get(attacker.id, 0.0),
            *moves,
            shutdown_counts_immobile=state.options.shutdown_in_melee == "immobile",
            attacker_movement=state.options.melee_attacker_movement,
        )
        if melee.why_not or melee.tn is None:
            raise Refused(melee.why_not or say("no attack"), "§8")
        return AttackPlan(
            shooter,
            aimed_at,
            kind,
            0,
            g,
            measured,
            tuple(doubts),
            side,
            melee.tn,
            melee.parts,
            None,
            melee.damage,
            declared=declared,
        )
    extra: list[tuple[Text, int]] = []
    if rear:
        armed = _armed(shooter, shooter.card.special_values("REAR"))  # type: ignore[arg-type]
        extra.append((say("REAR weapons"), 1))
    elif kind == "indirect":
        spotter = _spotter(state, attacker, target, args.get("spotter"), seen_by_referee=declared is not None)
        value = str(
            shooter.card.special_values("IF")
            or next(s[2:].strip() for s in shooter.card.specials if s.startswith("IF"))
        )
        armed = _armed(shooter, (value, value, value))
        g = replace(g, hidden_fraction=0.0, woods_in=0.0, target_in_woods=False)  # lobbed: the spotter sees for it
        if state.options.indirect_modifiers == "ascec":
            extra.append((say("indirect"), 1))
            if spotter.id in state.attacked:
                extra.append((say("spotter attacked"), 1))
    else:
        armed = _armed(shooter, _reduced(shooter.card.damage, state.rear_fired.get(attacker.id, 0)))
    sniper = attacker.id in state.snipers and benefit(state, attacker.player, "fire_support")
    tn = target_number(armed, aimed_at, g, *moves, sniper=sniper)
    if tn.value is None or tn.band is None:
        why = tn.why_not or say("no attack")
        if doubts:  # refused as measured, and said to be within the camera's doubt
            why += say(" (too close to call: {doubts}; the referee decides)", doubts=joined(doubts, "; "))
        raise Refused(why, "§6")
    band_index = ("short", "medium", "long").index(tn.band)
    if overheat and armed.damage_at(band_index) == "0*" and state.options.minimal_overheat == "forbid":
        raise Refused(say("minimal damage 0* cannot be overheated (option minimal_overheat)"), "§9.1 A10")
    heat_values = shooter.card.special_values("HT") if kind == "weapon" and not rear else None
    heat = int(heat_values[band_index]) if heat_values and heat_values[band_index].isdigit() else 0
    parts = tn.parts + tuple(extra)
    return AttackPlan(
        armed,
        aimed_at,
        kind,
        overheat,
        g,
        measured,
        tuple(doubts),
        side,
        tn.value + sum(v for _, v in extra),
        parts,
        tn.band,
        rear=rear,
        heat=heat,
        declared=declared,
    )


def preview(state: AlphaState, args: Mapping[str, Any]) -> dict[str, Any]:
    """The attack wizard's view of a declared attack: the range and its band with the margin to
    the band's edges, line of sight and cover, the TN breakdown and the chance to hit."""
    try:
        plan = plan_attack(state, args)
    except Refused as no:
        return {"refused": say("{why} ({section})", why=no.text, section=no.section)}
    g = plan.geometry
    low, high = {"short": (0.0, 6.0), "medium": (6.0, 24.0), "long": (24.0, 42.0)}.get(plan.band or "", (0.0, 0.0))
    margin = [round(g.edge_in - low, 2), round(high - g.edge_in, 2)] if plan.band else None
    if plan.declared is not None and "distance_in" not in plan.declared:  # a band, or base contact
        distance = say("{band} range", band=WORDS[plan.band]) if plan.band else say("base contact")
        margin = None
    else:
        distance = say('{distance}" {band}', distance=f"{g.edge_in:.2f}", band=WORDS[plan.band] if plan.band else "")
    if plan.declared is not None:
        distance += say(", as the referee measured")
    lines = [
        distance + (say(' ({margin}" in, {margin2}" to spare)', margin=margin[0], margin2=margin[1]) if margin else ""),
        modifiers(plan.parts),
    ] + ([say("from the rear: +1 damage")] if g.rear else [])
    return {
        "tn": plan.tn,
        "parts": [list(p) for p in plan.parts],
        "band": plan.band,
        "distance_in": round(g.edge_in, 2),
        "band_margin_in": margin,
        "hidden_fraction": round(g.hidden_fraction, 3),
        "woods_in": round(g.woods_in, 2),
        "rear": g.rear,
        "hit_chance": round(plan.hit_chance(), 3),
        "doubts": list(plan.doubts),
        "kind": plan.kind,
        "by_hand": plan.declared,
        "summary": say("TN {tn} · {n} %", tn=plan.tn, n=round(plan.hit_chance() * 100)),
        "lines": lines,
        "input": {
            "type": "attack",
            "label": "Attack",
            "args": {
                "attacker": plan.attacker.id,
                "target": plan.target.id,
                **({"by_hand": plan.declared} if plan.declared is not None else {}),
            },
        },
    }
