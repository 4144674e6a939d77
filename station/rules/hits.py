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

The tracker is part of a game state (immutable, replayed from the journal); the games decide what
a hit does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from .base import Evolving


@dataclass(frozen=True, slots=True, kw_only=True)
class Fired:
    """A real shot still inside its hit window: its journal seq, the model that fired, the hub
    time, and the models it has already hit."""

    seq: int
    shooter: str
    t: int
    hit: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Impact:
    """An impact attributed to a shot, waiting ``settle_ms`` for a fall; else the target stood."""

    seq: int
    target: str
    shot_seq: int
    t: int
    how: str = ""  # how the evidence came, when it is not the target's own node ("on its pilot figure")


F = TypeVar("F", bound=Fired)


@dataclass(frozen=True)
class HitTracker(Evolving, Generic[F]):
    """The shots in their window and the impacts waiting to settle.  Not slotted, like the game
    states: ``evolve`` copies it in one C call on the fold's hot path (every hub event)."""

    shots: tuple[F, ...] = ()
    waiting: tuple[Impact, ...] = ()

    def fire(self, shot: F) -> HitTracker[F]:
        return self.evolve(shots=self.shots + (shot,))

    def shot(self, seq: int) -> F:
        return next(s for s in self.shots if s.seq == seq)

    def shot_for(self, target: str, t: int, window_ms: int) -> tuple[F | None, int]:
        """The latest shot by another model whose window holds hub time ``t`` and that has not
        hit this target yet; and how many qualified (more than one is worth a referee's look)."""
        found = [s for s in self.shots if s.t <= t <= s.t + window_ms and s.shooter != target and target not in s.hit]
        return (found[-1] if found else None), len(found)

    def impact_on(self, target: str) -> Impact | None:
        return next((i for i in self.waiting if i.target == target), None)

    def struck(self, seq: int, target: str, t: int, window_ms: int, how: str = "") -> HitTracker[F]:
        """An impact on ``target`` at hub time ``t``: it waits for a fall, if a shot explains it
        and no earlier impact on the same target is already waiting."""
        if self.impact_on(target) is not None:
            return self
        shot, _ = self.shot_for(target, t, window_ms)
        if shot is None:
            return self
        return self.mark(shot.seq, target).evolve(waiting=self.waiting + (Impact(seq, target, shot.seq, t, how),))

    def mark(self, shot_seq: int, target: str) -> HitTracker[F]:
        """The shot has hit ``target``: it cannot be that target's hit again."""
        return replace(
            self, shots=tuple(replace(s, hit=s.hit | {target}) if s.seq == shot_seq else s for s in self.shots)
        )

    def take(self, impact: Impact) -> tuple[HitTracker[F], F]:
        """The impact is ruled on (a fall came, or it settled): stop waiting; its shot."""
        return self.evolve(waiting=tuple(i for i in self.waiting if i is not impact)), self.shot(impact.shot_seq)

    def settled(self, now: int, settle_ms: int) -> list[Impact]:
        """Impacts whose target has had ``settle_ms`` since the impact to fall, and has not."""
        return [i for i in self.waiting if i.t + settle_ms <= now] if self.waiting else []

    def expire(self, now: int, window_ms: int) -> HitTracker[F]:
        """Drop shots whose window has closed, unless an impact still waits on them."""
        horizon = now - window_ms
        if not self.shots or self.shots[0].t >= horizon:  # shots are kept in the order fired
            return self
        keep = {i.shot_seq for i in self.waiting}
        if not any(s.t < horizon and s.seq not in keep for s in self.shots):
            return self
        return self.evolve(shots=tuple(s for s in self.shots if s.t >= horizon or s.seq in keep))
