// The referee's action panel: every input the game declares (GET /api/rulesets/GAME/inputs,
// station/rules/input_args.py), its arguments drawn as controls from their kinds, and sent as the
// referee filled them.  What the camera gives is not asked for; what it cannot give (a distance
// by the tape, cover, who moved) the referee enters here.  The controls are built once per chosen
// input; live updates only refill the menus of ids (fillSelect keeps a choice under the finger).
// Plain JS, loaded after dashboard.js, whose model, act and fillSelect it uses.
"use strict";

const ACTIONS = { inputs: null };
const ID_KINDS = ["model", "unit", "player", "models", "units", "players"];

async function setUpActions() {
  if (!$("action-panel")) return;
  const game = $("action-panel").dataset.game;
  ACTIONS.inputs = (await (await fetch(`/api/rulesets/${encodeURIComponent(game)}/inputs`)).json()).inputs;
  const named = Object.entries(ACTIONS.inputs).filter(([, input]) => Object.keys(input.args.properties).length);
  $("action-panel").hidden = !named.length;  // a game whose inputs take nothing has its buttons only
  ACTIONS.named = named.map(([name]) => name);
  orderInputs();
  // the referee's own choice wins: once they touch the panel, it no longer follows the game
  $("action-input").addEventListener("change", () => {
    ACTIONS.picked = 0;
    ACTIONS.touched = true;
    ACTIONS.follow = false;
    drawAction();
  });
  $("action-args").addEventListener("input", () => { ACTIONS.touched = true; ACTIONS.follow = false; });
  $("units").addEventListener("click", pickFromCard);
  for (const button of document.querySelectorAll("#controls button[data-input]")) {  // end movement, end turn…
    button.addEventListener("click", () => { ACTIONS.follow = true; });  // …and the panel moves on with the game
  }
  $("action-args").addEventListener("input", previewSoon);
  $("action-args").addEventListener("change", () => { fillWeapons(); previewSoon(); });
  $("action-do").addEventListener("click", doAction);
  drawAction();
}

// The controls of the chosen input, one per argument, each marked data-arg with its name.
function drawAction() {
  const name = $("action-input").value;
  const input = ACTIONS.inputs && ACTIONS.inputs[name];
  $("action-do").dataset.input = name;
  $("action-input").dataset.input = name;
  if (!input) return $("action-args").replaceChildren();
  const kept = {};  // what the referee filled in already stays, where the next input has the same argument
  for (const control of $("action-args").querySelectorAll("[data-arg]:not([multiple])")) {
    kept[control.dataset.arg] = control.type === "checkbox" ? control.checked : control.value;
  }
  const required = new Set(input.args.required);
  const ordered = (input.args["x-order"] || Object.keys(input.args.properties))
    .map((arg) => [arg, input.args.properties[arg]]).filter(([, schema]) => !schema["x-hidden"]);
  const field = ([arg, schema]) => el("label", { class: "action-arg", title: schema.description },
    schema.title + (required.has(arg) ? " *" : ""), " ", argControl(arg, schema, required.has(arg)));
  // what the camera measures is asked for only without one: with a camera on the table, the
  // referee's measures wait, folded, for a model it cannot see
  ACTIONS.camera = Boolean(model.table);
  const asked = ordered.filter(([, schema]) => !(ACTIONS.camera && schema["x-taped"]));
  const tucked = ordered.filter(([, schema]) => ACTIONS.camera && schema["x-taped"]);
  $("action-args").replaceChildren(...asked.map(field), ...(tucked.length
    ? [el("details", { class: "taped" }, el("summary", {}, t("by hand, for a model the camera does not see")), ...tucked.map(field))]
    : []));
  renderActions();
  for (const control of $("action-args").querySelectorAll("[data-arg]:not([multiple])")) {
    const value = kept[control.dataset.arg];
    if (value === undefined) continue;
    if (control.type === "checkbox") control.checked = value;
    else if (control.tagName !== "SELECT" || [...control.options].some((o) => o.value === value)) control.value = value;
  }
  previewSoon();
}

function argControl(arg, schema, required) {
  const kind = schema["x-kind"];
  const attrs = { "data-arg": arg, "data-kind": kind, "aria-label": schema.title };
  if (ID_KINDS.includes(kind)) {
    return el("select", { ...attrs, ...(kind.endsWith("s") ? { multiple: "multiple", size: "4" } : {}) },
      ...(required || kind.endsWith("s") ? [] : [el("option", { value: "" }, "–")]));
  }
  if (kind === "weapon") return el("select", attrs, el("option", { value: "" }, "–"));  // the actor's own weapons
  if (kind === "choice") {
    return el("select", attrs, ...(required ? [] : [el("option", { value: "" }, "–")]),
      ...schema.enum.map((value, k) => el("option", { value }, schema["x-labels"][k])));
  }
  if (kind === "flag") return el("input", { ...attrs, type: "checkbox" });
  if (kind === "number" || kind === "integer") {
    const unit = schema["x-distance"] ? ` (${$("action-panel").dataset.unit})` : "";
    return el("input", { ...attrs, type: "number", inputmode: "decimal", step: kind === "integer" ? "1" : "any",
      ...(schema.minimum !== undefined ? { min: schema.minimum } : {}),
      ...(schema.maximum !== undefined ? { max: schema.maximum } : {}), placeholder: unit.trim() });
  }
  if (kind === "point") return el("input", { ...attrs, placeholder: "x, y (mm)" });
  if (kind === "points") return el("input", { ...attrs, placeholder: "x, y; x, y (mm)" });
  return el("input", { ...attrs, ...(kind === "object" ? { placeholder: "{…}" } : {}) });
}

// Before the referee taps "Do it", the station says what it would rule (a dry run, nothing
// journaled): a refusal and its reason, a shot's odds, the dice it takes.  Asked a moment after
// the last change, and only the newest answer is shown.
function previewSoon() {
  clearTimeout(ACTIONS.previewTimer);
  ACTIONS.previewTimer = setTimeout(previewAction, 250);
}

async function previewAction() {
  const out = $("action-preview");
  const input = ACTIONS.inputs && ACTIONS.inputs[$("action-input").value];
  if (!out || !input || !document.body.classList.contains("referee")) return;
  const args = actionArgs();
  const asked = ACTIONS.previewAsked = (ACTIONS.previewAsked || 0) + 1;
  if (input.args.required.some((name) => !(name in args))) return out.replaceChildren();  // not yet filled in
  try {
    const seen = await call("/api/preview", { type: $("action-input").value, args });
    if (asked === ACTIONS.previewAsked) out.replaceChildren(...previewNodes(seen));
  } catch (error) {
    if (asked === ACTIONS.previewAsked) out.replaceChildren(el("b", { class: "error" }, error.message));
  }
}

// The inputs the game says fit now come first (Ruleset.inputs_now: the active unit's actions, a
// template waiting to be laid), then the rest.  After "Do it", the panel follows the game to what
// fits next, unless the referee's input still fits.
function orderInputs() {
  const now = (model.inputsNow || []).filter((name) => ACTIONS.named.includes(name));
  ACTIONS.now = now;
  const label = (name) => `${ACTIONS.inputs[name].label} (${ACTIONS.inputs[name].section})`;
  fillSelect($("action-input"), [...now.map((name) => [name, `▸ ${label(name)}`]),
    ...ACTIONS.named.filter((name) => !now.includes(name)).map((name) => [name, label(name)])]);
  // until the referee touches the panel, and after each "Do it", it follows the game
  if ((ACTIONS.follow || !ACTIONS.touched) && now.length && !now.includes($("action-input").value)) {
    $("action-input").value = now[0];
    ACTIONS.picked = 0;
    drawAction();
  }
  ACTIONS.follow = false;
}

// A tap on a unit card (or on one of its models), or on a base on the map, fills the panel's next
// menu of ids: the actor first, then the target, and round again.
function pickFromCard(event) {
  const card = event.target.closest("[data-unit]");
  const member = event.target.closest("[data-model]");
  if (card) pickForAction(card.dataset.unit, member && member.dataset.model);
}

function pickForAction(unitId, modelId) {
  if (!ACTIONS.inputs || !model.state) return;
  const menus = [...$("action-args").querySelectorAll("select[data-kind]:not([multiple])")]
    .filter((select) => ["model", "unit"].includes(select.dataset.kind));
  if (!menus.length) return;
  const unit = model.state.units.find((u) => u.id === unitId);
  const menu = menus[(ACTIONS.picked || 0) % menus.length];
  const first = unit && unit.elements.find((e) => !outOfPlay(e.status));
  const id = menu.dataset.kind === "unit" ? unitId : modelId || (first && first.id);
  if (!id || ![...menu.options].some((o) => o.value === id)) return;
  menu.value = id;
  fillWeapons();
  ACTIONS.picked = (ACTIONS.picked || 0) + 1;
  ACTIONS.touched = true;
  ACTIONS.follow = false;
  menu.classList.add("picked");
  setTimeout(() => menu.classList.remove("picked"), 600);
  previewSoon();
}

// Live updates: the menus of ids follow the game (a model out of play leaves them).
function renderActions() {
  if (!$("action-panel") || !model.state) return;
  if (ACTIONS.named) orderInputs();
  if (ACTIONS.inputs && ACTIONS.camera !== undefined && ACTIONS.camera !== Boolean(model.table)) drawAction();
  const units = model.state.units;
  const ids = {
    model: units.flatMap((u) => u.elements).filter((e) => !outOfPlay(e.status)).map((e) => [e.id, `${e.name} (${e.id})`]),
    unit: units.map((u) => [u.id, `${u.name} (${u.player})`]),
    player: model.state.players.map((p) => [p, p]),
  };
  for (const select of $("action-args").querySelectorAll("select[data-kind]")) {
    const kind = select.dataset.kind.replace(/s$/, "");
    if (!(kind in ids)) continue;
    const blank = select.multiple || !select.querySelector("option[value='']") ? [] : [["", "–"]];
    fillSelect(select, blank.concat(ids[kind]));
  }
  fillWeapons();
}

// A weapon menu offers the weapons of the model chosen first (the shooter), as its army names them.
function fillWeapons() {
  const menu = $("action-args").querySelector('select[data-kind="weapon"]');
  if (!menu || !model.state) return;
  const actor = $("action-args").querySelector('select[data-kind="model"]');
  const element = actor && model.state.units.flatMap((u) => u.elements).find((e) => e.id === actor.value);
  fillSelect(menu, [["", "–"], ...((element && element.weapons) || []).map((w) => [w.id, w.name || w.id])]);
}

// The arguments as the rules declare them; a control left empty is left out.
function actionArgs() {
  const args = {};
  for (const control of $("action-args").querySelectorAll("[data-arg]")) {
    const kind = control.dataset.kind;
    let value;
    if (kind === "flag") value = control.checked || undefined;
    else if (control.multiple) value = [...control.selectedOptions].map((o) => o.value);
    else if (control.value.trim() === "") value = undefined;
    else if (kind === "number" || kind === "integer") value = Number(control.value);
    else if (kind === "point") value = control.value.split(",").map(Number);
    else if (kind === "points") value = control.value.split(";").map((p) => p.split(",").map(Number));
    else if (kind === "object") { try { value = JSON.parse(control.value); } catch { value = control.value; } }
    else value = control.value;
    if (value !== undefined && !(Array.isArray(value) && !value.length)) args[control.dataset.arg] = value;
  }
  return args;
}

async function doAction() {
  try {
    showError(null);
    const result = await call("/api/input", { type: $("action-input").value, args: actionArgs() });
    $("action-said").textContent = result.rulings.map(rulingText).join(" ");
    ACTIONS.follow = !result.rulings.some((r) => r.refused);
    model.inputsNow = result.inputs_now || model.inputsNow;
    orderInputs();
    previewSoon();  // the state moved on: what the same input would do now
  } catch (error) {
    showError(error);
    const named = error.data && error.data.field;  // the argument the station refused, focused
    const field = named && $("action-args").querySelector(`[data-arg="${named}"]`);
    if (field) field.focus();
  }
}

document.addEventListener("DOMContentLoaded", () => { setUpActions(); });
