// Alpha Strike on the dashboard: unit cards laid out as printed (§2.1) with live armour and
// structure pips, the heat scale and the critical boxes; the phase tracker (§4).  Moves, attacks
// and the rest are the action panel's (actions.js), as in every game.  Plain JS, loaded with
// dashboard.js and table.js.
"use strict";

// The card's printed words, in the page's language (the Russian rulebook's own abbreviations).
const AS_CRITS = () => [["engine", t("ENGINE"), 2], ["fire_control", t("FIRE CONTROL"), 4], ["mp", t("MP"), 4],
  ["weapons", t("WEAPONS"), 4]];

function pipRow(label, left, max, kind) {
  const row = el("div", { class: `pips ${kind}`, "data-pips": kind, title: t("{label} {left} of {max}", { label, left, max }) }, el("b", {}, label));
  for (let k = 0; k < max; k++) row.append(el("i", { class: k < left ? "pip on" : "pip off" }));
  return row;
}

function heatScale(heat) {
  const row = el("div", { class: "heat", "data-heat": heat }, el("b", {}, t("HEAT")));
  ["1", "2", "3", t("S (shutdown)")].forEach((label, k) => row.append(el("span", { class: k < heat ? "box hot" : "box" }, label)));
  return row;
}

function critBoxes(crits) {
  return el("div", { class: "crits" }, ...AS_CRITS().map(([key, label, boxes]) =>
    el("span", { "data-crit": key, title: `${label}: ${crits[key]}` }, el("b", {}, label),
      ...Array.from({ length: boxes }, (_, k) => el("i", { class: k < crits[key] ? "box hit" : "box" })))));
}

function alphaCard(unit) {
  const c = unit.elements[0];
  const status = c.status.replace(" ", "-");
  const mv = c.movement || (`${c.move_in}"` + (c.jump_in ? ` / ${c.jump_in}"j` : ""));
  const badges = el("span", {}, el("span", { class: `badge ${status}` }, t(c.status)),
    c.move ? el("span", { class: "badge" }, t(c.move)) : "", c.attacked ? el("span", { class: "badge acted" }, t("attacked")) : "");
  const card = el("article", { class: `card as-card player-${model.state.players.indexOf(unit.player)} ${status}${outOfPlay(c.status) ? " out" : ""}`,
    "data-unit": unit.id }, el("h3", {}, c.name, badges),
  el("div", { class: "row" }, t("{type} · SZ {size} · TMM {tmm} · MV {mv}", { type: t(c.type), size: c.size, tmm: c.tmm, mv }),
    el("span", {}, t("Skill {skill} · PV {pv}", c))),
  el("div", { class: "row", "data-damage": c.damage.join("/") }, `${t(c.role)} · ` + t("Damage S {s} / M {m} / L {l}",
    { s: c.damage[0], m: c.damage[1], l: c.damage[2] }) + (c.extreme !== "-" ? " / " + t("E {e}", { e: c.extreme }) : ""),
  el("span", {}, t("OV {ov}", { ov: c.overheat }) + (c.threshold ? " · " + t("TH {th}", { th: c.threshold }) : ""))),
  pipRow(t("A (armour)"), c.armour, c.armour_max, "armour"), pipRow(t("S (structure)"), c.structure, c.structure_max, "structure"),
  heatScale(c.heat), critBoxes(c.crits));
  if (c.specials.length) card.append(el("div", { class: "row" }, t("Specials: {specials}", { specials: c.specials.join(", ") })));
  if (c.sample_data) card.title = t("sample card values: replace them with your printed cards");
  if (!c.quick_start) {  // the quick-start has rules for BattleMechs only: said once on the card
    card.append(el("div", { class: "row note", "data-beyond": "quick-start" },
      t("{type}: the quick-start has no rules for it; the referee rules its moves and attacks", { type: c.unit_type })));
  }
  return card;
}
CARD_LAYOUTS.alpha = alphaCard;

function renderPhases() {
  const state = model.state;
  const tracker = $("phase-tracker");
  if (!tracker) return;
  tracker.replaceChildren(...state.phases.map((p) => el("li", { class: p === state.phase ? "current" : "", "data-phase": p }, t(p))),
    el("li", { class: "order" }, state.order.length ? t("order {players}", { players: state.order.join(" → ") }) : ""),
    el("li", { class: "order" }, state.active_player && !state.winner ? t("due: {player}", { player: state.active_player }) : ""));
}

// The attack wizard's extra declarations: the attack's kind and the overheat (table.js sends them).
function attackArgs() {
  return $("attack-kind") ? { kind: $("attack-kind").value, overheat: Number($("attack-overheat").value || 0) } : {};
}
