"""Which real shot hit which model: the hit window both Бронепехота rulebooks need.

Real shooting (seed 000 §6.7, seed 002 §11) judges a hit by what the model does *after the hit*:
it stood, it fell, it leant against an obstacle.  The station sees a spring launcher's SHOT and,
from the model's tilt node, an IMPACT and then maybe a fall.  So:

- an impact or fall within ``hit_window_ms`` after a shot by *another* model is evidence that the
  shot hit it (the latest such shot; a model is hit once per shot);
- an impact waits ``settle_ms`` for the model to come to rest, counted from the impact itself,
  because the rulebooks read the model's state after the hit, and a slow mortar bomb can land
  near the end of the window.  Counting from the shot instead would call a model "stood" before
  it had time to fall (the quick rules did so until the two copies were made one);
- shots expire once no impact can still be theirs.

With several hubs the shot and the impact may come from two boards with two clocks, and each
board has its own link, so their lines reach the journal in either order.  Attribution depends
on the timeline alone, never on which line came first: evidence (a fall, an impact, a lean) waits
``LATE_SHOT_MS`` of the timeline for every shot that another hub may still be sending, and is
then ruled with the latest shot on the timeline whose window holds it.  Evidence ruled with no
shot is kept ``ALONE_MS`` more: a shot whose line comes later still (its hub was unplugged, say)
rules it again, in a new ruling that says which one it supersedes.

Every time here is a ``Stamp``: the hub's own ``t`` and its place on the station's one timeline
(station/hubclock.py).  Two stamps of one hub are compared by ``t``, exactly, as they always were;
two of different hubs by their mapped times, within the mappings' uncertainty.  An impact whose
place in a shot's window that uncertainty cannot settle is still attributed, with its doubt
said, and the referee judges it (every hit waits for the referee) rather than a clock error.

The tracker is part of a game state (immutable, replayed from the journal); the games decide what
a hit does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, NamedTuple, Protocol, Self, TypeVar

from ..hubclock import STAMP_MS
from .base import Event, Evolving, HubLink, Ruling, RulingKind
from .text import Text, joined, say


class Stamp(NamedTuple):
    """When a hub event happened: ``t`` on its hub's own clock (``clock``: "hub/boot"), and
    ``at`` on the station's timeline, uncertain by ``err`` ms (infinite: not mapped yet).  A
    named tuple: every hub event makes one."""

    t: int
    clock: str = ""
    at: float = 0.0
    err: float = 0.0

    def since(self, earlier: Stamp) -> tuple[float, float]:
        """How many ms after ``earlier`` this came, and how uncertain that is."""
        if self.clock == earlier.clock:
            return float(self.t - earlier.t), 0.0
        return self.at - earlier.at, self.err + earlier.err + STAMP_MS


def stamp_of(event: Event, t: int) -> Stamp:
    """The stamp of a hub event whose own time is ``t``."""
    if event.at is None:
        return Stamp(t, event.clock, float(t), math.inf if event.clock else 0.0)
    return Stamp(t, event.clock, event.at, event.err)


@dataclass(frozen=True, slots=True)
class ClockDoubt:
    """Why the hubs cannot settle a hit: ``ms`` either side of the window's edge, or
    ``unmapped``, the hub whose clock is not mapped yet (no bound at all: said in words, never as
    an infinite number a ruling could not be journaled with); and ``away``, hubs whose link is
    lost, which may hold a later shot they will send when back.  False when the hubs can tell."""

    ms: float = 0.0
    unmapped: str = ""
    away: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.ms or self.unmapped or self.away)

    @classmethod
    def between(cls, gap: float, doubt: float, window_ms: int, shot: Stamp, t: Stamp) -> ClockDoubt:
        if in_window(gap, doubt, window_ms) is not None:
            return NO_DOUBT
        if math.isfinite(doubt):
            return cls(doubt)
        unmapped = t if not math.isfinite(t.err) else shot
        return cls(unmapped=unmapped.clock.partition("/")[0])

    def details(self) -> dict[str, Any]:
        """What a hit ruling's details say of it (nothing when the hubs can tell)."""
        said: dict[str, Any] = {"hubs_away": list(self.away)} if self.away else {}
        if self.unmapped:
            return {"clock_unmapped": self.unmapped, **said}
        return {"clock_doubt_ms": round(self.ms, 2), **said} if self.ms else said


NO_DOUBT = ClockDoubt()


def clock_doubt(doubt: ClockDoubt) -> Text:
    """What a hit ruling adds when the hubs cannot settle it: their clocks cannot place the
    impact in or out of the shot's window, or a hub that may hold another shot is away."""
    parts: list[Text] = []
    if doubt.unmapped:
        parts.append(
            say(
                " The clock of hub {hub} is not mapped yet, so nothing can tell whether the impact came in the shot's hit window: judge it.",
                hub=doubt.unmapped,
            )
        )
    elif doubt.ms:
        parts.append(
            say(
                " The impact came within ±{doubt} ms of the edge of the shot's hit window, closer than the two hubs' clocks can tell: judge it.",
                doubt=f"{doubt.ms:.1f}",
            )
        )
    if doubt.away:
        parts.append(hubs_away(doubt.away))
    return joined(parts, "")


def hubs_away(hubs: tuple[str, ...]) -> Text:
    """What a hit ruling adds while hubs that may hold a shot are disconnected."""
    return say(
        " Hub {hubs} is disconnected, and a shot it holds would reach the station only when it is back: judge it.",
        hubs=", ".join(hubs),
    )


def in_window(gap: float, doubt: float, window_ms: int) -> bool | None:
    """Whether ``gap`` ms after a shot is in its window: True, False, or None when ``doubt``
    cannot tell."""
    if doubt == 0.0:
        return 0 <= gap <= window_ms
    if gap - doubt >= 0 and gap + doubt <= window_ms:
        return True
    if gap + doubt < 0 or gap - doubt > window_ms:
        return False
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Fired:
    """A real shot still inside its hit window: its journal seq, the model that fired, the hub
    time, and the models it has already hit."""

    seq: int
    shooter: str
    t: Stamp
    hit: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Impact:
    """An impact attributed to a shot, waiting ``settle_ms`` for a fall; else the target stood."""

    seq: int
    target: str
    shot_seq: int
    t: Stamp
    how: str = ""  # how the evidence came, when it is not the target's own node ("on its pilot figure")
    doubt: ClockDoubt = ClockDoubt()  # the two hubs' clocks cannot tell whether it fell in the shot's window


LATE_SHOT_MS = 250  # on the station's clock: how long evidence on one hub waits for another hub's shot line
ALONE_MS = 30_000  # on the station's clock: how long evidence ruled with no shot may still be ruled again


@dataclass(frozen=True, slots=True)
class Unexplained:
    """A fall, an impact or a lean waiting on the timeline, while a shot from another hub may
    still be on its way: each hub has its own link, so a shot's line can reach the station after
    the line of the fall it caused.  ``ruling`` is what is said if no shot explains it (None:
    nothing is said)."""

    seq: int
    target: str
    t: Stamp
    fell: bool  # a fall (else an impact or a lean)
    ruling: Ruling | None = None
    how: str = ""


F = TypeVar("F", bound=Fired)


class _Tracking(Protocol):
    """A game state that keeps a hit tracker (both Бронепехота rulebooks' states)."""

    @property
    def hits(self) -> HitTracker[Any]: ...

    @property
    def now(self) -> Stamp: ...

    def evolve(self, **changes: Any) -> Self: ...


S = TypeVar("S", bound=_Tracking)


Resolve = Callable[[S, Unexplained, Any, ClockDoubt, int], "tuple[S, list[Ruling]] | None"]
"""A game's ruling of one piece of evidence with the shot found for it, the clocks' doubt and how
many shots qualified; None when it is an impact on a model still up, which then waits to settle."""


def time_moves_on(
    state: S, now: Stamp, window_ms: int, resolve: Resolve[S], **also: Any
) -> tuple[S, list[Ruling]] | None:
    """Hub time ``now`` heard (a new clock noted).  None when it is not later than the state's
    time: nothing more to settle.  Else the state at ``now`` (with ``also``, the caller's other
    changes, in the same copy: this runs for every hub event), and the evidence whose wait for a
    late shot is over, ruled with the latest shot on the timeline that explains it."""
    if now.clock not in state.hits.clocks:
        state = state.evolve(hits=state.hits.heard(now))
    advances = now.since(state.now)[0] > 0
    if not advances and not state.hits.unexplained:
        return None
    # evidence on a hub whose clock is not mapped waits by that hub's own clock: its lines
    # cannot move the one timeline, but they do tell when its own wait is over
    hits, past = state.hits.unexplained_past(now)
    if not advances and not past:
        return None
    state = state.evolve(**({"now": now} if advances else {}), **also)
    if not (past or state.hits.alone):
        return state, []
    state = state.evolve(hits=hits.forget_alone(now))
    rulings: list[Ruling] = []
    for evidence in past:
        shot, count = state.hits.shot_for(evidence.target, evidence.t, window_ms)
        if shot is None:  # ruled as it stands, and kept a while for a shot later still
            state = state.evolve(hits=state.hits.evolve(alone=state.hits.alone + (evidence,)))
            rulings += [state.hits.said_away(evidence.ruling, evidence.t)] if evidence.ruling is not None else []
            continue
        state, more = _rule_with(state, evidence, shot, count, window_ms, resolve)
        rulings += more
    return state, rulings


def _rule_with(
    state: S, evidence: Unexplained, shot: Fired, count: int, window_ms: int, resolve: Resolve[S]
) -> tuple[S, list[Ruling]]:
    ruled = resolve(state, evidence, shot, state.hits.doubt(shot, evidence.t, window_ms), count)
    if ruled is None:  # an impact on a model still up: it waits to settle, as in order
        hits = state.hits.struck(evidence.seq, evidence.target, evidence.t, window_ms, evidence.how)
        return state.evolve(hits=hits), []
    return ruled


def rule_late_shot(state: S, shot: Fired, window_ms: int, resolve: Resolve[S]) -> tuple[S, list[Ruling]]:
    """A shot whose line came after evidence it explains had been ruled with no shot (its hub
    was unplugged, or its line slower than ``LATE_SHOT_MS``): the evidence is ruled again with
    it, in a new ruling that names the one it supersedes (both stay in the journal)."""
    if not state.hits.alone:  # the common case: nothing was ruled alone
        return state, []
    found = [
        u
        for u in state.hits.alone
        if u.target != shot.shooter and in_window(*u.t.since(shot.t), window_ms) is not False
    ]
    rulings: list[Ruling] = []
    for evidence in found:
        best, count = state.hits.shot_for(evidence.target, evidence.t, window_ms)
        if best is None:
            continue
        alone = tuple(u for u in state.hits.alone if u is not evidence)
        state, more = _rule_with(
            state.evolve(hits=state.hits.evolve(alone=alone)), evidence, best, count, window_ms, resolve
        )
        rulings += [_superseding(r, evidence.ruling) for r in more]
    return state, rulings


def _superseding(ruling: Ruling, old: Ruling | None) -> Ruling:
    if old is None:
        return ruling
    text = ruling.text + say(" It supersedes {old}, ruled before this shot's line came.", old=old.id)
    return replace(ruling, text=text, details={**ruling.details, "supersedes": old.id}, needs_referee=True)


@dataclass(frozen=True)
class HitTracker(Evolving, Generic[F]):
    """The shots in their window and the impacts waiting to settle.  Not slotted, like the game
    states: ``evolve`` copies it in one C call on the fold's hot path (every hub event)."""

    shots: tuple[F, ...] = ()
    waiting: tuple[Impact, ...] = ()
    unexplained: tuple[Unexplained, ...] = ()
    alone: tuple[Unexplained, ...] = ()  # evidence ruled with no shot, for ``ALONE_MS``: a later line may explain it
    clocks: frozenset[str] = frozenset()  # every hub clock heard ("hub/boot"; "" in an older journal)
    away: frozenset[str] = frozenset()  # hubs whose link is lost: they may hold a shot not sent yet

    def fire(self, shot: F) -> HitTracker[F]:
        return self.evolve(shots=self.shots + (shot,))

    def linked(self, link: HubLink) -> HitTracker[F]:
        """A hub's link lost, or connected again."""
        away = self.away - {link.hub} if link.connected else self.away | {link.hub}
        return self if away == self.away else self.evolve(away=away)

    def away_from(self, t: Stamp) -> tuple[str, ...]:
        """The hubs away that may hold a shot explaining evidence at ``t``: all but the
        evidence's own hub, whose lines come in the order it made them."""
        if not self.away:
            return ()
        return tuple(sorted(self.away - {t.clock.partition("/")[0]}))

    def said_away(self, ruling: Ruling, t: Stamp) -> Ruling:
        """A ruling made with no shot for evidence at ``t``: while a hub that may hold one is
        away, it says so, and the referee judges it."""
        away = self.away_from(t)
        if not away:
            return ruling
        details = {**ruling.details, "hubs_away": list(away)}
        return replace(ruling, text=ruling.text + hubs_away(away), details=details, needs_referee=True)

    def heard(self, t: Stamp) -> HitTracker[F]:
        return self if t.clock in self.clocks else self.evolve(clocks=self.clocks | {t.clock})

    def may_be_late(self, t: Stamp) -> bool:
        """Whether a shot explaining evidence at ``t`` may still come, from another hub."""
        hub = t.clock.partition("/")[0]
        return bool(hub) and any(c.partition("/")[0] != hub for c in self.clocks)

    def park(self, evidence: Unexplained) -> HitTracker[F]:
        """Evidence waits for the shots another hub may still send.  A fall of a model whose
        impact already waits is that impact's outcome: the impact waits on, as a fall."""
        earlier = next((u for u in self.unexplained if u.target == evidence.target), None)
        if earlier is None:
            return self.evolve(unexplained=self.unexplained + (evidence,))
        if not evidence.fell or earlier.fell:
            return self  # the model was already struck: one hit per shot
        fell = replace(earlier, fell=True, ruling=evidence.ruling, how=earlier.how or evidence.how)
        return self.evolve(unexplained=tuple(fell if u is earlier else u for u in self.unexplained))

    def forget_alone(self, now: Stamp) -> HitTracker[F]:
        if not self.alone:
            return self
        kept = tuple(u for u in self.alone if not _surely_after(now, u.t, ALONE_MS))
        return self if len(kept) == len(self.alone) else self.evolve(alone=kept)

    def unexplained_past(self, now: Stamp) -> tuple[HitTracker[F], list[Unexplained]]:
        """Evidence no shot can explain any more: ``LATE_SHOT_MS`` surely passed."""
        past = [u for u in self.unexplained if _surely_after(now, u.t, LATE_SHOT_MS)]
        if not past:
            return self, []
        return self.evolve(unexplained=tuple(u for u in self.unexplained if u not in past)), past

    def shot(self, seq: int) -> F:
        return next(s for s in self.shots if s.seq == seq)

    def shot_for(self, target: str, t: Stamp, window_ms: int) -> tuple[F | None, int]:
        """The latest shot by another model whose window may hold ``t`` and that has not hit
        this target yet; and how many qualified (more than one is worth a referee's look).
        On one hub, the latest fired (as it always was); across hubs, whose lines reach the
        journal in either order, the latest on the timeline."""
        found = [
            s
            for s in self.shots
            if s.shooter != target and target not in s.hit and in_window(*t.since(s.t), window_ms) is not False
        ]
        if not found:
            return None, 0
        if any(s.t.clock != t.clock for s in found):
            latest = min(range(len(found)), key=lambda k: (t.since(found[k].t)[0], -k))
            return found[latest], len(found)
        return found[-1], len(found)

    def doubt(self, shot: Fired, t: Stamp, window_ms: int) -> ClockDoubt:
        """The hubs' doubt when their clocks cannot tell whether ``t`` is in the shot's window,
        or a hub that may hold a later shot is away; false when they can tell."""
        doubt = ClockDoubt.between(*t.since(shot.t), window_ms, shot.t, t)
        away = self.away_from(t)
        return replace(doubt, away=away) if away else doubt

    def impact_on(self, target: str) -> Impact | None:
        return next((i for i in self.waiting if i.target == target), None)

    def struck(self, seq: int, target: str, t: Stamp, window_ms: int, how: str = "") -> HitTracker[F]:
        """An impact on ``target`` at ``t``: it waits for a fall, if a shot explains it and no
        earlier impact on the same target is already waiting."""
        if self.impact_on(target) is not None:
            return self
        shot, _ = self.shot_for(target, t, window_ms)
        if shot is None:
            return self
        impact = Impact(seq, target, shot.seq, t, how, self.doubt(shot, t, window_ms))
        return self.mark(shot.seq, target).evolve(waiting=self.waiting + (impact,))

    def mark(self, shot_seq: int, target: str) -> HitTracker[F]:
        """The shot has hit ``target``: it cannot be that target's hit again."""
        return replace(
            self, shots=tuple(replace(s, hit=s.hit | {target}) if s.seq == shot_seq else s for s in self.shots)
        )

    def take(self, impact: Impact) -> tuple[HitTracker[F], F]:
        """The impact is ruled on (a fall came, or it settled): stop waiting; its shot."""
        return self.evolve(waiting=tuple(i for i in self.waiting if i is not impact)), self.shot(impact.shot_seq)

    def settled(self, now: Stamp, settle_ms: int) -> list[Impact]:
        """Impacts whose target has had ``settle_ms`` since the impact to fall, and has not (on
        another hub's clock: surely had, whatever the mapping's error)."""
        return [i for i in self.waiting if _surely_after(now, i.t, settle_ms)] if self.waiting else []

    def expire(self, now: Stamp, window_ms: int) -> HitTracker[F]:
        """Drop shots whose window has surely closed, unless an impact still waits on them, or
        evidence waiting (or ruled alone) may still be theirs.  With several hubs a shot is kept
        ``ALONE_MS`` longer: the line of the fall it caused may come that late from an unplugged
        hub, and is still that shot's hit."""
        if not self.shots or not _surely_after(now, self.shots[0].t, window_ms + 1):
            return self  # shots are kept in the order fired (the common case: none has closed)
        horizon = window_ms + 1 + (ALONE_MS if len({c.partition("/")[0] for c in self.clocks}) > 1 else 0)
        if horizon > window_ms + 1 and not _surely_after(now, self.shots[0].t, horizon):
            return self
        keep = {i.shot_seq for i in self.waiting} if self.waiting else set()
        for u in self.unexplained + self.alone:
            keep |= {s.seq for s in self.shots if in_window(*u.t.since(s.t), window_ms) is not False}
        kept = tuple(s for s in self.shots if s.seq in keep or not _surely_after(now, s.t, horizon))
        return self if len(kept) == len(self.shots) else self.evolve(shots=kept)


def _surely_after(now: Stamp, then: Stamp, ms: int) -> bool:
    """``now`` is at least ``ms`` after ``then``, whatever the clocks' error."""
    gap, doubt = now.since(then)
    return gap - doubt >= ms


def hub_overflow(seq: int, lost: int) -> Ruling:
    """The hub's buffer was full and it says how many events it dropped: no rule can rule on
    what was never seen, so the referee looks at the table."""
    text = say("The hub lost {lost} event(s): its buffer was full. Check the table by hand.", lost=lost)
    return Ruling(f"{seq}:overflow", seq, RulingKind.WARNING, text, "", needs_referee=True)  # the hub's, no section


def unknown_launcher(seq: int, node: str, section: str) -> Ruling:
    """A shot from a launcher no army is wired to: a stray node, or an army file that forgot it."""
    text = say("SHOT from unknown launcher {node}; not in any army file.", node=node)
    return Ruling(f"{seq}:shot", seq, RulingKind.WARNING, text, section, needs_referee=True)
