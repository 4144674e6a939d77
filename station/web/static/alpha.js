// Alpha Strike on the dashboard: unit cards laid out as printed (§2.1) with live armour and
// structure pips, the heat scale and the critical boxes; the phase tracker (§4); the move
// declaration and the attack wizard.  Plain JS, loaded with dashboard.js and table.js.
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
  fillSelect($("move-unit"), state.units.filter((u) => u.can_act).map((u) => [u.id, `${u.name} (${u.player})`]));
  renderPicker();
  const lucky = $("lucky");  // §11.1: offered straight after a Battle Lance's miss
  lucky.hidden = !state.lucky;
  if (state.lucky) lucky.textContent = t("Lucky re-roll for {unit}", { unit: state.lucky });
}

// The attack picker in the referee's controls: attacker, target and the attack, with the range
// and cover from the camera or, with no camera, as the referee measured them (``by_hand``).  The
// station previews the target number before anything is declared.
function renderPicker() {
  const state = model.state;
  const label = (u) => [u.id, `${u.name} (${u.player})`];
  const inPlay = state.units.filter((u) => u.can_act);
  fillSelect($("pick-attacker"), inPlay.filter((u) => !u.acted).map(label));
  const attacker = state.units.find((u) => u.id === $("pick-attacker").value);
  fillSelect($("pick-target"), inPlay.filter((u) => attacker && u.player !== attacker.player).map(label));
  fillSelect($("pick-spotter"), inPlay.filter((u) => attacker && u.player === attacker.player && u.id !== attacker.id).map(label));
  const camera = $("pick-band").querySelector('option[value="camera"]');
  camera.hidden = camera.disabled = !model.table;  // no camera, no camera's range
  if (!model.table && $("pick-band").value === "camera") $("pick-band").value = "";
  const shown = JSON.stringify([pickedAttack(), state.phase, state.units, Boolean(model.table)]);
  if (shown === previewShown || !document.body.classList.contains("referee")) return;  // the picker is the referee's
  previewShown = shown;
  previewAttack();
}

function pickedAttack() {
  const kind = $("pick-kind").value;
  const args = { attacker: $("pick-attacker").value, target: $("pick-target").value, kind,
    overheat: Number($("pick-overheat").value || 0) };
  if (kind === "indirect") args.spotter = $("pick-spotter").value;
  const band = $("pick-band").value, inches = $("pick-inches").value.trim();
  if (band !== "camera" || inches) {
    const byHand = {};
    if (inches) byHand.distance_in = Number(inches);
    else if (band) byHand.band = band;
    for (const [flag, box] of [["woods", "pick-woods"], ["partial_cover", "pick-cover"], ["from_behind", "pick-behind"]]) {
      if ($(box).checked) byHand[flag] = true;
    }
    args.by_hand = byHand;
  }
  return args;
}

let previewAsked = 0, previewShown = null;
async function previewAttack() {
  $("pick-spotter-label").hidden = $("pick-kind").value !== "indirect";
  const args = pickedAttack();
  const out = $("pick-preview");
  if (!args.attacker || !args.target || model.state.phase !== "combat") {
    out.textContent = model.state.phase !== "combat" ? t("Attacks are declared in the Combat Phase.") : "";
    $("pick-attack").disabled = true;
    return;
  }
  const asked = ++previewAsked;
  try {
    const seen = await call("/api/preview", { type: "attack", args });
    if (asked !== previewAsked) return;  // a newer choice is being previewed
    out.replaceChildren(...previewNodes(seen));
    $("pick-attack").disabled = Boolean(seen.refused);
  } catch (error) { out.textContent = error.message; }
}

// The attack wizard's extra declarations: the attack's kind and the overheat (table.js sends them).
function attackArgs() {
  return $("attack-kind") ? { kind: $("attack-kind").value, overheat: Number($("attack-overheat").value || 0) } : {};
}

document.addEventListener("DOMContentLoaded", () => {
  if (!$("move")) return;
  $("move").addEventListener("click", async () => {
    const inches = $("move-inches").value.trim();
    await act("/api/input", { type: "move", args: { unit: $("move-unit").value, mode: $("move-mode").value,
      ...(inches ? { inches: Number(inches) } : {}) } });
    $("move-inches").value = "";
  });
  for (const id of ["pick-attacker", "pick-target", "pick-kind", "pick-band", "pick-inches", "pick-woods", "pick-cover",
    "pick-behind", "pick-overheat", "pick-spotter"]) {
    $(id).addEventListener(id === "pick-inches" || id === "pick-overheat" ? "input" : "change",
      () => (id === "pick-attacker" ? renderPicker() : previewAttack()));
  }
  $("pick-attack").addEventListener("click", async () => {
    await act("/api/input", { type: "attack", args: pickedAttack() });
    for (const box of ["pick-woods", "pick-cover", "pick-behind"]) $(box).checked = false;
    $("pick-inches").value = "";
    $("pick-overheat").value = "0";
  });
  $("leave-table").addEventListener("click", () => act("/api/input", { type: "leave_table",
    args: { unit: $("move-unit").value } }));
  $("set-home-edge").addEventListener("click", () => act("/api/input", { type: "home_edge",
    args: { edge: $("home-edge").value } }));
  $("lucky").addEventListener("click", () => act("/api/input", { type: "lucky", args: { unit: model.state.lucky } }));
  $("sniper").addEventListener("click", () => act("/api/input", { type: "sniper",
    args: { units: $("sniper-units").value.split(/[\s,]+/).filter(Boolean) } }));
});
