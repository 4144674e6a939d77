"""The judge's side of a tournament: the players registered, checked in and dropped; each round
paired within its game's pool with a seeded toss; results entered and corrected; the order of
the tiebreaks.

Every change is written to the ``changes`` table, with the judge who made it and why, in the
same transaction as the change itself: the evening's audit trail, which the judge's page shows
and a restart keeps.  A problem with what the judge sent is a ``RosterError`` naming the field,
said with ``say`` so the page shows it in its language, under that field.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import tempfile
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..dice import DiceBook
from ..game import RESULTS
from ..playerclock import MOST_CLOCK_MINUTES
from ..rules.registry import RULESETS, make_ruleset
from ..rules.text import Text, say
from .results import Pairing, Result, put_result
from .standings import DEFAULT_ORDER, Standing, checked_order, standings, swiss_pairs
from .store import Store

NAME_CHARS = 64  # a player's, a club's or a judge's name
WHY_CHARS = 500
MOST_SCORE = 100_000


class RosterError(ValueError):
    """What the judge sent is wrong: ``field`` says where, ``text`` what (in any language)."""

    def __init__(self, field: str, text: Text) -> None:
        super().__init__(text)
        self.field, self.text = field, text


def _name(value: Any, field: str, optional: bool = False) -> str:
    """A name as it is kept: trimmed, in one Unicode form (so «Ёжик» typed two ways is one
    player), 1-64 characters with no control characters."""
    text = unicodedata.normalize("NFC", value).strip() if isinstance(value, str) else None
    if text is None or len(text) > NAME_CHARS or any(unicodedata.category(c) == "Cc" for c in text):
        raise RosterError(field, say("text of at most {most} characters", most=NAME_CHARS))
    if not text and not optional:
        raise RosterError(field, say("this cannot be empty"))
    return text


def _judge(body: Mapping[str, Any]) -> str:
    """Who did it, for the log of changes (empty: the log says "judge")."""
    return _name(body.get("judge", ""), "judge", optional=True)


def _round_and_table(body: Mapping[str, Any]) -> tuple[int, str]:
    try:
        return int(body["round"]), str(body["table"])
    except (KeyError, TypeError, ValueError):
        raise RosterError("round", say("round (a number) and table are needed")) from None


def player_id(name: str, taken: set[str]) -> str:
    """The id the player's army carries at a table (an army's ``player``: letters, digits, ``-``),
    made from the name and unique: «Олег Петров» is ``Олег-Петров``."""
    words = "".join(c if c.isalnum() else " " for c in name).split()
    base = "-".join(words)[:28] or "player"
    ident, n = base, 1
    while ident.casefold() in taken:
        n += 1
        ident = f"{base}-{n}"
    return ident


def toss(seed: str, round_number: int, table: str, a: str, b: str) -> str:
    """Who plays first at a table: a coin the tournament's seed, the round, the table and the
    players decide, so anyone with the seed (on the judge's page) can toss it again."""
    digest = hashlib.sha256(f"{seed}:{round_number}:{table}:{a}:{b}".encode()).digest()
    return a if digest[0] % 2 == 0 else b


def checked_army(game: str, army: Any, ident: str) -> dict[str, Any]:
    """An army file a judge uploaded for a player, checked by the game's own loader (a bad
    field is a ``DataFileError`` saying which), with the player's id as its player."""
    if not isinstance(army, dict):
        raise RosterError("army", say("army: a JSON army file of the game"))
    named: dict[str, Any] = {**army, "player": ident}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "army.json"
        path.write_text(json.dumps(named, ensure_ascii=False), encoding="utf-8")
        make_ruleset(game, DiceBook()).load_army(str(path))
    return named


class Roster:
    """The judge's actions on the tournament's store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        with store.transaction() as db:
            db.execute("INSERT OR IGNORE INTO settings VALUES ('seed', ?)", (secrets.token_hex(8),))

    def _setting(self, name: str) -> str | None:
        rows = self.store.rows("SELECT value FROM settings WHERE name = ?", name)
        return rows[0]["value"] if rows else None

    @staticmethod
    def _log(db: sqlite3.Connection, judge: str, what: str, body: Mapping[str, Any], **where: Any) -> None:
        db.execute(
            "INSERT INTO changes VALUES (?, ?, ?, ?, ?, ?, ?)",
            (time.time(), judge or "judge", what, where.get("round"), where.get("table"),
             json.dumps(body, ensure_ascii=False), where.get("why", "")),
        )  # fmt: skip

    # -- players -------------------------------------------------------------------------------------
    def players(self) -> list[dict[str, Any]]:
        """Every registered player, without their army's contents (its name only)."""
        rows = self.store.rows("SELECT * FROM players ORDER BY game, name")
        for row in rows:
            army = json.loads(row.pop("army")) if row["army"] else None
            row["army"] = (army.get("name") or row["name"]) if army else None
            row["checked_in"], row["dropped"] = bool(row["checked_in"]), bool(row["dropped"])
        return rows

    def register(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """A player at the desk: name, club, game, and their army if they brought its file."""
        judge = _judge(body)
        name, club = _name(body.get("name"), "name"), _name(body.get("club", ""), "club", optional=True)
        game = body.get("game")
        if game not in RULESETS:
            raise RosterError("game", say("game: choose the game they play"))
        kept = self.store.rows("SELECT name, id FROM players")
        if any(row["name"].casefold() == name.casefold() for row in kept):
            raise RosterError("name", say("{name} is already registered", name=name))
        ident = player_id(name, {row["id"].casefold() for row in kept})
        army = checked_army(game, body["army"], ident) if body.get("army") is not None else None
        checked_in = bool(body.get("checked_in", False))
        with self.store.transaction() as db:
            db.execute(
                "INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
                (name, ident, club, game, json.dumps(army, ensure_ascii=False) if army else None, checked_in,
                 time.time()),
            )  # fmt: skip
            self._log(db, judge, "register", {"name": name, "club": club, "game": game, "checked_in": checked_in})
        return {"name": name, "id": ident}

    def update(self, name: str, body: Mapping[str, Any]) -> None:
        """Check a player in or out, drop them or take them back, or give their army."""
        judge = _judge(body)
        rows = self.store.rows("SELECT id, game FROM players WHERE name = ?", name)
        if not rows:
            raise RosterError("name", say("{name} is not registered", name=name))
        changes: dict[str, Any] = {}
        for flag in ("checked_in", "dropped"):
            if flag in body:
                if not isinstance(body[flag], bool):
                    raise RosterError(flag, say("true or false"))
                changes[flag] = body[flag]
        if body.get("army") is not None:
            changes["army"] = json.dumps(checked_army(rows[0]["game"], body["army"], rows[0]["id"]), ensure_ascii=False)
        if not changes:
            raise RosterError("name", say("nothing to change: give checked_in, dropped or army"))
        with self.store.transaction() as db:
            for column, value in changes.items():  # the columns are the three named above
                db.execute(f"UPDATE players SET {column} = ? WHERE name = ?", (value, name))
            said = {k: (v if k != "army" else "uploaded") for k, v in changes.items()}
            self._log(db, judge, "player", {"name": name, **said})

    # -- standings -----------------------------------------------------------------------------------
    def tiebreaks(self) -> tuple[str, ...]:
        kept = self._setting("tiebreaks")
        return tuple(json.loads(kept)) if kept else DEFAULT_ORDER

    def set_tiebreaks(self, body: Mapping[str, Any]) -> None:
        judge = _judge(body)
        order = body.get("order")
        try:
            order = checked_order(order if isinstance(order, list) else [])
        except ValueError:
            raise RosterError(
                "order", say("order: each tiebreak once, from {names}", names=", ".join(DEFAULT_ORDER))
            ) from None
        with self.store.transaction() as db:
            db.execute("INSERT OR REPLACE INTO settings VALUES ('tiebreaks', ?)", (json.dumps(order),))
            self._log(db, judge, "tiebreaks", {"order": order})

    def clock_minutes(self) -> float | None:
        """Each player's time a game, in minutes, for the whole event (None: no clocks)."""
        kept = self._setting("clock_minutes")
        return float(kept) if kept else None

    def set_clock_minutes(self, body: Mapping[str, Any]) -> None:
        judge = _judge(body)
        minutes = body.get("minutes")
        if minutes is not None and (type(minutes) not in (int, float) or not 1 <= minutes <= MOST_CLOCK_MINUTES):
            raise RosterError("minutes", say("a number from 1 to {most}, or none", most=MOST_CLOCK_MINUTES))
        with self.store.transaction() as db:
            db.execute("INSERT OR REPLACE INTO settings VALUES ('clock_minutes', ?)", (str(minutes or ""),))
            self._log(db, judge, "clock", {"minutes": minutes})

    def pools(self) -> dict[str, list[Standing]]:
        """Each game's players, best first: a game is its own pool, ranked and paired apart.
        Players no judge registered (named by a table's armies) are in the pool of the game
        they played.  A player dropped before their first game is left out."""
        registered = self.store.rows("SELECT name, game, dropped FROM players")
        game_of = {p["name"]: p["game"] for p in registered}
        for game in self.store.games():
            for player in json.loads(game["players"]):
                if player and game["game"]:
                    game_of.setdefault(player, game["game"])
        for pairing in self.store.pairings():
            for player in (pairing["a"], pairing["b"]):
                if player:
                    game_of.setdefault(player, pairing["game"] or "")
        ranked = standings(self.store.results(), sorted(game_of), self.tiebreaks())
        dropped = {p["name"] for p in registered if p["dropped"]}
        pools: dict[str, list[Standing]] = {}
        for s in ranked:
            if s.played or s.player not in dropped:  # one dropped before playing was never in it
                pools.setdefault(game_of.get(s.player, ""), []).append(s)
        return dict(sorted(pools.items()))

    # -- rounds and results --------------------------------------------------------------------------
    def pair_round(self, body: Mapping[str, Any], tables: Sequence[str]) -> tuple[int, list[Pairing]]:
        """The next round: Swiss within each game's pool, of the players checked in and not
        dropped (every player named so far, when nobody registered), with the toss.  Refused
        while a table of the round open has no result."""
        judge = _judge(body)
        current = self.store.current_round()
        results = [r for r in self.store.results() if r["round"] == current]
        scored = {r["table_id"] for r in results}
        waiting = sorted(
            p["table_id"] for p in self.store.pairings() if p["round"] == current and p["table_id"] not in scored
        )
        if waiting:
            raise RosterError("round", say("round {round} is not over: no result yet at {tables}", round=current,
                                            tables=", ".join(waiting)))  # fmt: skip
        unconfirmed = sorted(r["table_id"] for r in results if not r["confirmed"])
        if unconfirmed:
            raise RosterError("round", say("round {round}: confirm the result of table {tables} first", round=current,
                                            tables=", ".join(unconfirmed)))  # fmt: skip
        registered = self.store.rows("SELECT name, club, checked_in, dropped FROM players")
        playing = {p["name"] for p in registered if p["checked_in"] and not p["dropped"]} if registered else None
        clubs = {p["name"]: p["club"] for p in registered}
        pools = {
            game: [s for s in ranked if playing is None or s.player in playing] for game, ranked in self.pools().items()
        }
        if sum(len(ranked) for ranked in pools.values()) < 2:
            raise RosterError("round", say("fewer than two players are checked in"))
        seed, number = self._setting("seed") or "", self.store.round_for_pairing()
        names, byes, pairings = iter([*tables, *(str(k) for k in range(len(tables) + 1, 1000))]), 0, []
        for game, ranked in pools.items():
            first_round = all(not s.opponents and not s.byes for s in ranked)
            pairs, bye = swiss_pairs(ranked, clubs if first_round else None)
            for a, b in pairs:
                table = next(names)
                pairings.append(Pairing(table, a, b, game, toss(seed, number, table, a, b)))
            if bye is not None:
                byes += 1
                pairings.append(Pairing(f"bye-{byes}", bye, None, game))
        number = self.store.open_round(pairings)
        with self.store.transaction() as db:
            self._log(db, judge, "pair", {"seed": seed, "pairings": [asdict(p) for p in pairings]}, round=number)
        return number, pairings

    def set_result(self, body: Mapping[str, Any]) -> None:
        """A judge's result for a round's table: the winner (None: a draw), why the game ended,
        the game's own scores if any; a result already there is corrected only with a reason."""
        judge = _judge(body)
        number, table = _round_and_table(body)
        paired = self.store.rows("SELECT a, b FROM pairings WHERE round = ? AND table_id = ?", number, table)
        a, b = (paired[0]["a"], paired[0]["b"]) if paired else (body.get("a"), body.get("b"))
        if not isinstance(a, str) or not (b is None or isinstance(b, str)):
            raise RosterError("table", say("no pairing at table {table} in round {round}", table=table, round=number))
        winner, reason = body.get("winner"), body.get("reason") or ("victory" if body.get("winner") else "draw")
        if winner not in (a, b, None) or (winner is None and b is None):
            raise RosterError("winner", say("winner: {a}, {b} or nobody (a draw)", a=a, b=b or "—"))
        if reason not in RESULTS or (reason == "draw") != (winner is None):
            raise RosterError("reason", say("reason: a draw has no winner, and a win has one"))
        scores = [body.get("score_a"), body.get("score_b")]
        for field, score in zip(("score_a", "score_b"), scores, strict=True):
            if score is not None and (type(score) not in (int, float) or not 0 <= score <= MOST_SCORE):
                raise RosterError(field, say("a number from 0 to {most}", most=MOST_SCORE))
        why = body.get("why", "")
        if not isinstance(why, str) or len(why) > WHY_CHARS:
            raise RosterError("why", say("text of at most {most} characters", most=WHY_CHARS))
        before = self.store.rows("SELECT * FROM results WHERE round = ? AND table_id = ?", number, table)
        if before and not why.strip():
            raise RosterError("why", say("a correction needs a reason: say why the result changes"))
        result = Result(number, table, a, b, winner, reason, *scores)
        with self.store.transaction() as db:
            put_result(db, result, "judge")
            was = {k: before[0][k] for k in ("winner", "reason", "score_a", "score_b", "source")} if before else None
            now = {"a": a, "b": b, "winner": winner, "reason": reason, "score_a": scores[0], "score_b": scores[1]}
            self._log(db, judge, "result", {**now, "before": was}, round=number, table=table, why=why.strip())

    def confirm(self, body: Mapping[str, Any]) -> None:
        """The judge confirms the result a table sent, as it is."""
        judge = _judge(body)
        number, table = _round_and_table(body)
        with self.store.transaction() as db:
            if not db.execute(
                "UPDATE results SET confirmed = 1 WHERE round = ? AND table_id = ?", (number, table)
            ).rowcount:
                raise RosterError(
                    "table", say("no result at table {table} in round {round}", table=table, round=number)
                )
            self._log(db, judge, "confirm", {}, round=number, table=table)

    def messages_for_tables(self, number: int, pairings: Sequence[Pairing]) -> dict[str, dict[str, Any]]:
        """What each table of a round is told (station/pairing.py): the game, the players with
        the ids their armies carry, and each army whole if the judge has it."""
        kept = {p["name"]: p for p in self.store.rows("SELECT name, id, army FROM players")}

        def player(name: str) -> dict[str, Any]:
            row = kept.get(name)
            army = json.loads(row["army"]) if row and row["army"] else None
            return {"name": name, "id": row["id"] if row else name, "army": army}

        clock = self.clock_minutes()
        return {
            p.table: {
                "round": number,
                "game": p.game,
                "first": p.first,
                "players": [player(p.a), player(p.b)],
                "clock_minutes": clock,
            }
            for p in pairings
            if p.b is not None
        }

    def changes(self) -> list[dict[str, Any]]:
        """The audit trail, newest first."""
        rows = self.store.rows("SELECT * FROM changes ORDER BY rowid DESC")
        for row in rows:
            row["body"] = json.loads(row["body"])
        return rows

    def seed(self) -> str:
        return self._setting("seed") or ""
