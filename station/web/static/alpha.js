// Alpha Strike on the dashboard: unit cards laid out as printed (§2.1) with live armour and
// structure pips, the heat scale and the critical boxes; the phase tracker (§4); the move
// declaration and the attack wizard.  Plain JS, loaded with dashboard.js and table.js.
"use strict";

const AS_CRITS = [["engine", "ENGINE", 2], ["fire_control", "FIRE CONTROL", 4], ["mp", "MP", 4], ["weapons", "WEAPONS", 4]];

function pipRow(label, left, max, kind) {
  const row = el("div", { class: `pips ${kind}`, "data-pips": kind, title: t("{label} {left} of {max}", { label, left, max }) }, el("b", {}, label));
  for (let k = 0; k < max; k++) row.append(el("i", { class: k < left ? "pip on" : "pip off" }));
  return row;
}

function heatScale(heat) {
  const row = el("div", { class: "heat", "data-heat": heat }, el("b", {}, "HEAT"));
  ["1", "2", "3", "S"].forEach((label, k) => row.append(el("span", { class: k < heat ? "box hot" : "box" }, label)));
  return row;
}

function critBoxes(crits) {
  return el("div", { class: "crits" }, ...AS_CRITS.map(([key, label, boxes]) =>
    el("span", { "data-crit": key, title: `${label}: ${crits[key]}` }, el("b", {}, label),
      ...Array.from({ length: boxes }, (_, k) => el("i", { class: k < crits[key] ? "box hit" : "box" })))));
}

function alphaCard(unit) {
  const c = unit.elements[0];
  const status = c.status.replace(" ", "-");
  const mv = c.movement || (`${c.move_in}"` + (c.jump_in ? ` / ${c.jump_in}"j` : ""));
  const badges = el("span", {}, el("span", { class: `badge ${status}` }, t(c.status)),
    c.move ? el("span", { class: "badge" }, c.move) : "", c.attacked ? el("span", { class: "badge acted" }, "attacked") : "");
  const card = el("article", { class: `card as-card player-${model.state.players.indexOf(unit.player)} ${status}`,
    "data-unit": unit.id }, el("h3", {}, c.name, badges),
  el("div", { class: "row" }, `${c.type} · SZ ${c.size} · TMM ${c.tmm} · MV ${mv}`, el("span", {}, `Skill ${c.skill} · PV ${c.pv}`)),
  el("div", { class: "row", "data-damage": c.damage.join("/") }, `${c.role} · ${t("Damage")} S ${c.damage[0]} / M ${c.damage[1]} / L ${c.damage[2]}`
    + (c.extreme !== "-" ? ` / E ${c.extreme}` : ""), el("span", {}, `OV ${c.overheat}` + (c.threshold ? ` · TH ${c.threshold}` : ""))),
  pipRow("A", c.armour, c.armour_max, "armour"), pipRow("S", c.structure, c.structure_max, "structure"),
  heatScale(c.heat), critBoxes(c.crits));
  if (c.specials.length) card.append(el("div", { class: "row" }, `Specials: ${c.specials.join(", ")}`));
  if (c.sample_data) card.title = t("sample card values: replace them with your printed cards");
  if (!c.quick_start) {  // the quick-start has rules for BattleMechs only: said once on the card
    card.append(el("div", { class: "row note", "data-beyond": "quick-start" },
      t("{type}: the quick-start has no rules for it; the referee rules its moves and attacks", { type: c.unit_type })));
  }
  return card;
}

function renderPhases() {
  const state = model.state;
  const tracker = $("phase-tracker");
  if (!tracker) return;
  tracker.replaceChildren(...state.phases.map((p) => el("li", { class: p === state.phase ? "current" : "", "data-phase": p }, p)),
    el("li", { class: "order" }, state.order.length ? t("order {players}", { players: state.order.join(" → ") }) : ""),
    el("li", { class: "order" }, state.active_player && !state.winner ? t("due: {player}", { player: state.active_player }) : ""));
  fillSelect($("move-unit"), state.units.filter((u) => u.can_act).map((u) => [u.id, `${u.name} (${u.player})`]));
  const lucky = $("lucky");  // §11.1: offered straight after a Battle Lance's miss
  lucky.hidden = !state.lucky;
  if (state.lucky) lucky.textContent = t("Lucky re-roll for {unit}", { unit: state.lucky });
}

// The attack wizard's extra declarations: the attack's kind and the overheat (table.js sends them).
function attackArgs() {
  return $("attack-kind") ? { kind: $("attack-kind").value, overheat: Number($("attack-overheat").value || 0) } : {};
}

document.addEventListener("DOMContentLoaded", () => {
  if (!$("move")) return;
  $("move").addEventListener("click", () => act("/api/input", { type: "move", args: { unit: $("move-unit").value,
    mode: $("move-mode").value } }));
  $("set-home-edge").addEventListener("click", () => act("/api/input", { type: "home_edge",
    args: { edge: $("home-edge").value } }));
  $("lucky").addEventListener("click", () => act("/api/input", { type: "lucky", args: { unit: model.state.lucky } }));
  $("sniper").addEventListener("click", () => act("/api/input", { type: "sniper",
    args: { units: $("sniper-units").value.split(/[\s,]+/).filter(Boolean) } }));
});
