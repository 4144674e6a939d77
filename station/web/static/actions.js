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
  fillSelect($("action-input"), named.map(([name, input]) => [name, `${input.label} (${input.section})`]));
  $("action-input").addEventListener("change", drawAction);
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
  $("action-args").replaceChildren(...Object.entries(input.args.properties).map(([arg, schema]) =>
    el("label", { class: "action-arg", title: schema.description },
      schema.title + (required.has(arg) ? " *" : ""), " ", argControl(arg, schema, required.has(arg)))));
  renderActions();
  for (const control of $("action-args").querySelectorAll("[data-arg]:not([multiple])")) {
    const value = kept[control.dataset.arg];
    if (value === undefined) continue;
    if (control.type === "checkbox") control.checked = value;
    else if (control.tagName !== "SELECT" || [...control.options].some((o) => o.value === value)) control.value = value;
  }
}

function argControl(arg, schema, required) {
  const kind = schema["x-kind"];
  const attrs = { "data-arg": arg, "data-kind": kind, "aria-label": schema.title };
  if (ID_KINDS.includes(kind)) {
    return el("select", { ...attrs, ...(kind.endsWith("s") ? { multiple: "multiple", size: "4" } : {}) },
      ...(required || kind.endsWith("s") ? [] : [el("option", { value: "" }, "–")]));
  }
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

// Live updates: the menus of ids follow the game (a model out of play leaves them).
function renderActions() {
  if (!$("action-panel") || !model.state) return;
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
  } catch (error) {
    showError(error);
    const named = error.data && error.data.field;  // the argument the station refused, focused
    const field = named && $("action-args").querySelector(`[data-arg="${named}"]`);
    if (field) field.focus();
  }
}

document.addEventListener("DOMContentLoaded", () => { setUpActions(); });
