// Referee station dashboard: follows /api/stream (Server-Sent Events) and renders the game.
// Plain JS, no build step.  Spectators only read; the referee token unlocks the controls
// (referee.js: the token, `call`, `$` and `el`, shared with the calibration page).
"use strict";

const model = { state: null, rulings: [], verdicts: [], health: {}, records: 0, table: null, terrainSeq: null,
  picked: null, measurement: null, older: 0, olderBefore: null, waiting: [], olderPending: 0, pendingBefore: null, shown: 0, statuses: {} };
const PLAYER_COLOURS = ["#4a90e2", "#e2574a", "#3fb950", "#d29922"];
// What the server declares once for every page (station/web/vocabulary.py): the terrain types
// and their colours, the base-name pattern, and which statuses take a model out of play.
const VOCABULARY = JSON.parse(document.getElementById("vocabulary")?.textContent || "{}");
const outOfPlay = (status) => (VOCABULARY.out_of_play || []).includes(status);
// A unit card's layout by the name the game's ruleset gives it (<body data-card>); a game's own
// script adds its layout here (alpha.js: the card as printed).
const CARD_LAYOUTS = {};
const cardLayout = () => CARD_LAYOUTS[document.body.dataset.card] || unitCard;

function unconfirmedStand() {  // the game's option: a ruling left pending when its round ends stands
  return ((model.state && model.state.options && model.state.options.unconfirmed) || "stand") === "stand";
}

// A ruling's status as the station computed it (game.py, ruling_status): sent with every
// ruling, and again in each update's "statuses" whenever it changes (confirmed, or the round
// ended and it stood unchallenged).  The page never works it out itself.
function rulingStatus(ruling) {
  return model.statuses[ruling.id] || ruling.status || "applied";
}


async function act(path, body) {
  try { showError(null); await call(path, body); } catch (error) { showError(error); }
}

// What the rules say of a model, and whether that still waits on the referee: a hit awaiting
// confirmation is shown as provisional, not as settled.
function modelStatus(id) {
  const element = (model.state ? model.state.units : []).flatMap((u) => u.elements).find((e) => e.id === id);
  const provisional = model.rulings.some((r) => r.element === id && rulingStatus(r) === "pending");
  const active = model.state && model.state.active_unit;
  const acting = Boolean(active) && (model.state.units.find((u) => u.id === active)?.elements || []).some((e) => e.id === id);
  return { status: element ? element.status : null, provisional, acting };
}

// Spoken rulings (off by default, remembered in this browser): players hear a ruling without
// looking up.  The browser's own Web Speech API; nothing leaves the table.
const SPEAK_KEY = "station.speak-rulings";
const SPOKEN_KINDS = ["hit", "shot", "melee", "warning", "status"];

function speak(rulings) {
  if (localStorage.getItem(SPEAK_KEY) !== "on" || !window.speechSynthesis) return;
  for (const ruling of rulings.filter((r) => SPOKEN_KINDS.includes(r.kind))) {
    const utterance = new SpeechSynthesisUtterance(rulingText(ruling).replace(/§/g, ""));
    utterance.lang = document.documentElement.lang || "en";
    window.speechSynthesis.speak(utterance);
  }
}

// --- rendering ------------------------------------------------------------------------------
function bar(value, max, kind) {
  const share = max ? Math.max(0, Math.min(1, value / max)) : 0;
  return el("div", { class: `bar ${kind}` }, el("i", { style: `width:${(share * 100).toFixed(0)}%` }));
}

function unitCard(unit) {
  const state = model.state;
  const playerIndex = state.players.indexOf(unit.player);
  const classes = ["card", `player-${playerIndex}`, unit.status, ...(outOfPlay(unit.status) ? ["out"] : [])];
  if (state.active_unit === unit.id) classes.push("active");
  const head = el("h3", {}, unit.name,
    el("span", {}, el("span", { class: `badge ${unit.status}` }, t(unit.status)), " ",
      unit.acted ? el("span", { class: "badge acted" }, t("acted")) : "",
      ...(unit.markers || []).map((m, k) => el("span", { class: "badge marker", "data-marker": m },
        inLanguage(m, (unit.markers_messages || [])[k])))));
  const card = el("article", { class: classes.join(" "), "data-unit": unit.id }, head);
  const machine = unit.elements.find((e) => e.durability_max);
  if (machine) {
    card.append(el("div", { class: "row" }, el("span", {}, t("Armour {a}/{max}", { a: machine.armour, max: machine.durability_max })),
      el("span", {}, machine.kind === "vehicle" && machine.speed !== undefined ? t("Speed {speed}", machine) : "")),
      bar(machine.armour, machine.durability_max, "durability"));
    if (machine.ammo_max) {
      const ammo = state.options.ammo === "unlimited" ? "∞" : `${machine.ammo}/${machine.ammo_max}`;
      card.append(el("div", { class: "row" }, el("span", {}, t("Ammo {ammo}", { ammo })),
        el("span", {}, machine.fired.length ? t("fired {barrels}", { barrels: machine.fired.join(" ") }) : "")),
        bar(state.options.ammo === "unlimited" ? 1 : machine.ammo, state.options.ammo === "unlimited" ? 1 : machine.ammo_max, "ammo"));
    }
    if (machine.needs_repair) card.append(el("div", { class: "row" }, t("needs repair before it may act (§6.7)")));
  }
  for (const e of unit.elements) {  // the activation so far, measured by the camera (§4)
    const moved = (state.moved || {})[e.id];
    if (moved) {
      card.append(el("div", { class: `row moved${moved.over ? " over" : ""}`, "data-moved": e.id,
        title: [...(moved.charged || []), ...(moved.problems || [])].join("\n") }, `${e.name}: ${inLanguage(moved.text, moved.text_message)}`));
    }
  }
  if (state.active_unit === unit.id) {  // §3.2: what each model may still do in this activation
    for (const e of unit.elements.filter((x) => (x.actions_left || []).length)) {
      card.append(el("div", { class: "row actions", "data-actions": e.id }, t("{name} may still: {actions}", { name: e.name, actions: e.actions_left.map((a, k) => inLanguage(a, (e.actions_left_messages || [])[k])).join(", ") })));
    }
  }
  const people = unit.elements.filter((e) => e.kind === "infantry");
  if (people.length) {
    card.append(el("ul", { class: "members" }, ...people.map((e) => {
      const provisional = modelStatus(e.id).provisional;
      return el("li", { class: `${e.status}${outOfPlay(e.status) ? " out" : ""}${provisional ? " provisional" : ""}`, "data-model": e.id },
        `${e.name} · ${e.label ? inLanguage(e.label, e.label_message) : t("Armour {armour}", e)} · ${t(e.status)}${provisional ? t(" (awaiting the referee)") : ""}`
        + `${unit.kind === "vehicle" ? t(" (pilot)") : ""}`);
    })));
  }
  return card;
}

function rulingItem(ruling, withControls) {
  const status = rulingStatus(ruling);
  const item = el("li", { class: `ruling ${ruling.kind} ${status}`, "data-ruling": ruling.id },
    el("div", { class: "text" }, rulingText(ruling)),
    el("div", { class: "meta" }, [sectionText(ruling.section), `#${ruling.cause}`, t(status)].filter(Boolean).join(" · ")));
  if (ruling.details && ruling.details.template && model.table) {  // a blast or a flame strip, on the map
    item.append(el("button", { class: "show-template", onclick: () => { model.template = ruling.details.template; renderTable(); } },
      t("show on map")));
  }
  if (ruling.details && ruling.details.measured && model.table) {  // show what was measured, on the map (if any)
    item.append(el("button", { class: "show-measure", onclick: () => {
      model.measurement = ruling.details.measured;
      $("measure-text").textContent = rulingText(ruling);
      renderTable();
    } }, t("show on map")));
    item.append(el("a", { class: "picture", href: `/api/rulings/${encodeURIComponent(ruling.id)}/picture.svg`,
      target: "_blank" }, t("picture")));
  }
  if (withControls) {
    const form = el("div", { class: "override", hidden: "" });
    item.append(el("div", { class: "referee-only ruling-controls" },
      el("button", { class: "confirm", onclick: () => act(`/api/rulings/${encodeURIComponent(ruling.id)}/confirm`) }, t("Confirm")), " ",
      el("button", { class: "override-open", "aria-expanded": "false", onclick: (event) => toggleOverride(ruling, form, event.currentTarget) },
        t("Override…"))), form);
  }
  return item;
}

// Only the verdicts that fit this ruling, each with what it does; none is chosen for the referee.
// The note comes first, so it is typed before a verdict is tapped; the verdict then sends both.
async function toggleOverride(ruling, form, opener) {
  if (!form.hidden) { form.hidden = true; opener.setAttribute("aria-expanded", "false"); return; }
  try {
    const { verdicts } = await (await fetch(`/api/rulings/${encodeURIComponent(ruling.id)}/verdicts`)).json();
    const note = el("input", { placeholder: t("why (kept in the journal)"), "aria-label": t("override note") });
    form.replaceChildren(el("label", { class: "note" }, t("Note, then a verdict:"), note),
      ...verdicts.map(({ verdict, why }) => el("button", { class: "verdict", "data-verdict": verdict,
        onclick: () => act(`/api/rulings/${encodeURIComponent(ruling.id)}/override`, { verdict, note: note.value }) },
      el("b", {}, t(verdict)), el("span", {}, ` — ${t(why)}`))));
    form.hidden = false;
    opener.setAttribute("aria-expanded", "true");
    note.focus();
  } catch (error) { showError(error); }
}

// Nothing the referee has open moves under the finger: whenever the page's layout changes (new
// rulings above an open Override panel, a card that grew, the health line), the page scrolls by
// as much as the open panel moved, so its note and verdicts stay where they were on the screen.
// The referee's own scrolling moves the panel, and is followed.
const held = { panel: null, top: 0 };

function holdOpenPanel() {
  const open = document.querySelector(".override:not([hidden])");
  if (open !== held.panel) {
    held.panel = open;
    held.top = open ? open.getBoundingClientRect().top : 0;
    return;
  }
  if (!open) return;
  const moved = open.getBoundingClientRect().top - held.top;
  if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
}

function setUpHolding() {
  window.addEventListener("scroll", () => { if (held.panel) held.top = held.panel.getBoundingClientRect().top; });
  new ResizeObserver(holdOpenPanel).observe(document.body);
  // a ruling added above and another dropped below leave the page's height as it was
  new MutationObserver(holdOpenPanel).observe(document.body, { childList: true, subtree: true });
}

// Refill a menu only when its choices changed: rebuilding it closes a menu open under the finger.
function fillSelect(select, options) {
  const wanted = JSON.stringify(options);
  if (select.dataset.options === wanted) return;
  select.dataset.options = wanted;
  const keep = select.value;
  select.replaceChildren(...options.map(([value, label]) => el("option", { value }, label)));
  if (options.some(([value]) => value === keep)) select.value = keep;
}

// The models a ruling still waiting for the referee is about (shown as provisional).
function provisionalElements() {
  return model.rulings.filter((r) => r.element && rulingStatus(r) === "pending").map((r) => r.element);
}

// What a unit's card shows, as one string: the card is rebuilt only when this changes.
function unitKey(unit, provisional) {
  const ids = unit.elements.map((e) => e.id);
  const moved = ids.map((id) => (model.state.moved || {})[id] || null);
  return JSON.stringify([unit, model.state.active_unit === unit.id, ids.map((id) => provisional.has(id)), moved,
    model.state.options.ammo]);
}

// --- the players' clocks (station/playerclock.py): the running one counts down here between
// updates; the referee alone pauses them.
const clocks = { view: null, at: 0 };

function showClocks(view) {
  clocks.view = view || null;
  clocks.at = performance.now();
  drawClocks();
}

function drawClocks() {
  const view = clocks.view;
  $("clocks").hidden = !view;
  if (!view) return;
  const gone = (performance.now() - clocks.at) / 1000;
  $("clock-faces").replaceChildren(...Object.entries(view.players).map(([player, c]) =>
    clockFace(player, c.left_s - (view.running === player ? gone : 0), view.running === player)));
  $("clock-pause").textContent = view.paused ? t("Resume the clocks") : t("Pause the clocks");
}
setInterval(() => { if (clocks.view && clocks.view.running) drawClocks(); }, 1000);

function render() {
  const state = model.state;
  if (!state) return;
  $("round").textContent = state.round;
  $("active-player").textContent = state.winner ? t("{winner} wins", state) : (state.active_player || "–");
  $("winner").hidden = !state.winner;
  $("winner").textContent = !state.winner ? ""
    : state.won_by ? t("Game over: {winner} wins: {how}. The referee ends the game to keep its result.",
      { winner: state.winner, how: inLanguage(state.won_by, state.won_by_message) })
      : t("Game over: {winner} wins. The referee ends the game to keep its result.", state);
  document.body.classList.toggle("over", Boolean(state.winner));
  fillSelect($("end-winner"), state.players.map((p) => [p, p]));
  if (state.winner && $("end-winner").dataset.ruled !== state.winner) {  // the rules' winner, offered once
    $("end-winner").dataset.ruled = state.winner;
    $("end-winner").value = state.winner;
  }
  $("end-winner").disabled = ["", "draw"].includes($("end-result").value);
  $("active-unit").textContent = MODEL_NAMES[state.active_unit] || state.active_unit || "";
  $("initiative").textContent = Object.keys(state.initiative).length
    ? t("Initiative") + " " + Object.entries(state.initiative).map(([p, r]) => `${p} ${r}`).join(", ") : "";
  const provisional = new Set(provisionalElements());
  patchList($("units"), state.units, (unit) => unitKey(unit, provisional), cardLayout());
  if (state.phases) renderPhases();
  const inFeed = new Set(model.rulings.map((r) => r.id));
  const pending = model.waiting.filter((r) => !inFeed.has(r.id)).concat(model.rulings)
    .filter((r) => rulingStatus(r) === "pending");
  const onScreen = pending.slice(-20).reverse();
  $("pending-count").textContent = pending.length + model.olderPending;
  $("unconfirmed-rule").textContent = unconfirmedStand()
    ? t("A ruling not confirmed by the end of its round stands as ruled.")
    : t("A ruling not confirmed keeps waiting after its round ends.");
  $("pending-older").hidden = !model.olderPending;
  $("pending-older").textContent = t("{n} older rulings still wait", { n: model.olderPending });
  if (model.olderPending && pending.length < 20) loadOlderPending();  // the referee worked down to them
  patchList($("pending"), onScreen, (r) => `${r.id}|${r.text}`, (r) => rulingItem(r, true));
  $("confirm-all").hidden = onScreen.length < 2;
  $("confirm-all").textContent = t("Confirm all {n}", { n: onScreen.length });
  patchList($("feed"), model.rulings.slice(-model.shown).reverse(), (r) => `${r.id}|${rulingStatus(r)}|${r.text}`,
    (r) => rulingItem(r, false));
  $("feed-older").hidden = !model.older;
  $("feed-older").textContent = t("Older rulings ({n})", { n: model.older });
  if ($("activate-unit")) {  // rulesets with activations (Бронепехота): pick the unit and the repair
    fillSelect($("activate-unit"), state.units.filter((u) => u.kind !== "gun" && u.can_act && !u.acted)
      .map((u) => [u.id, `${u.name} (${u.player})`]));
    if ($("repair-element")) {
      fillSelect($("repair-element"), state.units.flatMap((u) => u.elements)
        .filter((e) => e.durability_max && !outOfPlay(e.status)).map((e) => [e.id, e.name]));
    }
  }
  if ($("mission-picker")) {  // rulesets with missions (Бронепехота §1.1): the player, and an enemy vehicle
    const player = $("mission-player").value;
    fillSelect($("mission-player"), state.players.map((p) => [p, p]));
    fillSelect($("mission-target"), state.units.filter((u) => u.kind === "vehicle" && u.player !== (player || state.players[0]))
      .map((u) => [u.id, `${u.name} (${u.player})`]));
    $("mission-target-label").hidden = $("mission-objective").value !== "command_vehicle";
  }
  $("records").textContent = model.records;
  renderDice();
  if (typeof renderActions === "function") renderActions();  // the action panel's menus of ids
}

// Dice rolled at the table, waiting to be used (in order) for the next rolls of that die.
function renderDice() {
  const waiting = Object.entries(model.diceWaiting || {}).map(([sides, values]) => `D${sides}: ${values.join(", ")}`);
  $("dice-waiting").textContent = waiting.length ? t("waiting: {dice}", { dice: waiting.join("; ") }) : "";
}

// The judge call's way to the tournament, said at the table: sent (journaled), received (the
// tournament has kept the record: MQTT's confirmed mark), taken (a judge marked it handled).
const judgeCall = { seq: null };

function showJudgeCall() {
  const said = $("judge-said"), mqtt = (model.health || {}).mqtt;
  said.hidden = judgeCall.seq === null;  // no empty line under the controls before a call
  if (judgeCall.seq === null) { said.textContent = ""; return; }
  said.textContent = !mqtt ? t("Call journaled; this station is not on a tournament's broker (--mqtt), so tell a judge yourself.")
    : mqtt.calls_handled >= judgeCall.seq ? t("A judge has taken the call and is on the way.")
      : mqtt.confirmed !== null && mqtt.confirmed >= judgeCall.seq ? t("The tournament has the call; waiting for a judge.")
        : t("Call sent; the tournament has not confirmed it yet.");
}

function renderHealth(health) {
  model.health = health || {};
  showJudgeCall();
  if ("camera" in model.health) $("calibrate-link").hidden = model.health.camera === null;  // no camera, nothing to calibrate
  const link = $("link");
  const state = model.health.state === "none" && model.health.hub_needed === false ? "not-needed" : model.health.state || "unknown";
  link.className = `link ${state}`;
  const parts = [{ lost: t("hub unplugged or silent"), connecting: t("hub: connecting"), connected: t("hub connected"),
    silent: t("hub silent"), none: t("no hub"), "not-needed": t("no hub needed"), server: t("station unreachable") }[state] || t("link …")];
  const hubs = model.health.hubs || [];
  if (hubs.length > 1) {  // several hubs: how many answer, and which do not
    parts[0] = t("{connected} of {count} hubs connected", { connected: hubs.filter((h) => h.state === "connected").length, count: hubs.length });
    hubs.filter((h) => h.state !== "connected").forEach((h) => parts.push(t("hub {id}: {state}", { id: h.hub, state: t(h.state) })));
  }
  hubs.filter((h) => h.clock_state === "unsteady" || h.clock_state === "unmappable").forEach((h) => parts.push(h.clock_state === "unsteady"
    ? t("hub {id}: its clock is unsteady, its times are less sure", { id: h.hub })
    : t("hub {id}: its clock cannot be mapped; judge its hits by hand", { id: h.hub })));
  hubs.filter((h) => h.identity).forEach((h) => parts.push(h.identity === "twin"
    ? t("hub {id}: another board has its id; its hits are the referee's", { id: h.hub })
    : t("hub {id}: it changed its id mid-game; its lines still count as {id}'s", { id: h.hub })));
  if (state !== "connected" && model.health.last_error) parts.push(portError(model.health.last_error));
  if (model.health.seen_ago_s !== null && model.health.seen_ago_s !== undefined && model.health.seen_ago_s > 2) {
    parts.push(t("last seen {s} s ago", { s: model.health.seen_ago_s.toFixed(0) }));
  }
  link.replaceChildren(parts.join(" · "), ...(model.health.hub_fw ? [" · ", el("code", {}, model.health.hub_fw)] : []));
  link.title = (model.health.last_error ? model.health.last_error + "\n" : "") + ["lines_ok", "events", "checksum_errors", "syntax_errors", "unknown", "out_of_order", "duplicates",
    "resets_detected", "resends_requested", "reconnects", "overflows", "held"]
    .map((k) => `${k}: ${model.health[k] ?? "–"}`).join("\n")
    + (model.health.resolved_error ? "\n" + t("recovered at {at}: {error}", { at: model.health.resolved_at, error: model.health.resolved_error }) : "");
  renderRadio(model.health.radio);
  renderSmartDice(model.health.dice);
  // A journal that cannot write takes no inputs; everyone at the table should know why.
  const journal = model.health.journal;
  const alert = $("journal-alert");
  alert.hidden = !journal || journal.state === "ok";
  alert.textContent = alert.hidden ? "" : t("journal {state}: {error} · inputs refused, hub events wait", { state: journal.state, error: journal.error || "" });
}

// Radio nodes (hardware.md "Radio option"): each one's cell and link, and an alert for a node that
// fell silent or whose cell runs low.  No controls here, so redrawing it never moves a finger's target.
function clockTime(iso) {
  return new Date(iso).toLocaleTimeString(document.documentElement.lang || undefined, { hour12: false });
}
function renderRadio(radio) {
  const nodes = Object.entries(radio || {});
  const list = $("radio-nodes");
  list.hidden = !nodes.length;
  list.replaceChildren(...nodes.map(([name, n]) => el("li", { "data-node": name, class: n.silent ? "silent" : n.low_battery ? "low" : "" },
    el("code", {}, name), " ", t("{volts} V", { volts: n.battery_v.toFixed(2) }), " · ",
    t("{retries} resends, {failed} given up", { retries: n.retries, failed: n.failed }))));
  const alerts = nodes.filter(([, n]) => n.silent).map(([name, n]) => t("node {node} silent since {time}", { node: name, time: clockTime(n.heard_at) }))
    .concat(nodes.filter(([, n]) => n.low_battery && !n.silent).map(([name, n]) => t("node {node}: battery low ({volts} V)", { node: name, volts: n.battery_v.toFixed(2) })));
  const alert = $("radio-alert");
  alert.hidden = !alerts.length;
  alert.textContent = alerts.join(" · ");
}

// The paired smart dice (hardware.md "Smart dice"): each one's link, battery and last throw, and an
// alert for a die lost mid-roll, silent, or low.  No controls here either: a throw never moves a target.
function renderSmartDice(dice) {
  const paired = (dice && dice.dice) || [];
  const list = $("dice-badge");
  list.hidden = !paired.length;
  list.replaceChildren(...paired.map((d) => el("li", { "data-die": d.id, class: d.link === "silent" || d.lost_mid_roll ? "silent"
    : d.battery !== null && d.battery < 20 ? "low" : "" },
  `🎲 ${d.name}`, " · ", d.use === "any" ? t("any roll") : d.use, " · ", t(d.link),
  d.battery !== null ? ` · ${d.battery} %` : "",
  d.last_roll ? ` · ${d.last_roll.used ? t("rolled {face}", d.last_roll) : t("rolled {face}, not used", d.last_roll)}` : "")));
  const alerts = paired.filter((d) => d.lost_mid_roll).map((d) => t("{die} lost mid-roll: throw again, or type the value", { die: d.name }))
    .concat(paired.filter((d) => d.link === "silent").map((d) => t("{die} is silent: out of range, or its battery is flat", { die: d.name })))
    .concat(paired.filter((d) => d.battery !== null && d.battery < 20).map((d) => t("{die}: battery low ({battery} %)", { die: d.name, battery: d.battery })))
    .concat(dice && dice.problem ? [t(dice.problem)] : []);
  const alert = $("dice-alert");
  alert.hidden = !alerts.length;
  alert.textContent = alerts.join(" · ");
}

// A long game's screen opens with the recent rulings; scrolling to the end of the feed (or its
// button) loads older ones a page at a time.
let loadingOlder = false;
let loadingPending = false;

// Older rulings still pending, a page at a time: a screen opens with the latest of them only.
async function loadOlderPending() {
  if (loadingPending || !model.olderPending || !model.pendingBefore) return;
  loadingPending = true;
  try {
    const answer = await fetch(`/api/rulings?before=${encodeURIComponent(model.pendingBefore)}&limit=50&pending=1`);
    if (!answer.ok) return;
    const page = await answer.json();
    const known = new Set(model.waiting.map((r) => r.id));
    model.waiting.unshift(...page.rulings.filter((r) => !known.has(r.id)));
    model.olderPending = page.more;
    model.pendingBefore = page.rulings.length ? page.rulings[0].id : null;
    render();
  } finally {
    loadingPending = false;
  }
}
async function loadOlderRulings() {
  if (loadingOlder || !model.older || !model.olderBefore) return;
  loadingOlder = true;
  try {
    const answer = await fetch(`/api/rulings?before=${encodeURIComponent(model.olderBefore)}&limit=100`);
    if (!answer.ok) return;
    const page = await answer.json();
    const known = new Set(model.rulings.map((r) => r.id));
    const fresh = page.rulings.filter((r) => !known.has(r.id));
    model.rulings.unshift(...fresh);
    model.shown += fresh.length;
    model.older = page.more ? Math.max(0, model.older - page.rulings.length) : 0;
    model.olderBefore = page.rulings.length ? page.rulings[0].id : null;
    render();
  } finally {
    loadingOlder = false;
  }
}

// The map is redrawn only when what it draws changed: a hub's heartbeat is journaled and sent as an
// update, and redrawing the bases twice a second would swallow a tap that lands between the two.
let drawnMap = null;
function redrawMapIfChanged() {
  const state = model.state || {};
  const drawn = JSON.stringify([model.table, state.players, state.units, state.active_unit, state.links, state.cut_off,
    provisionalElements(), model.health.camera]);
  if (drawn === drawnMap) return;
  drawnMap = drawn;
  renderTable();
}

// --- the stream -----------------------------------------------------------------------------
function connect() {
  const source = new EventSource("/api/stream");
  source.addEventListener("snapshot", (event) => {
    const data = JSON.parse(event.data);
    Object.assign(model, { state: data.state, rulings: data.rulings, verdicts: data.override_verdicts, records: data.records,
      table: data.table, diceWaiting: data.dice_waiting, inputsNow: data.inputs_now || [],
      older: data.older_rulings, olderBefore: data.older_before,
      waiting: data.waiting || [], olderPending: data.older_pending || 0, pendingBefore: data.pending_before,
      statuses: {},
      shown: data.rulings.length });
    showClocks(data.clocks);
    learnModelNames(data.state);
    followTerrain(data.terrain_seq);
    renderHealth(data.health);
    render();
    renderTable();
  });
  source.addEventListener("update", (event) => {
    const data = JSON.parse(event.data);
    model.state = data.state;
    learnModelNames(data.state);
    Object.assign(model.statuses, data.statuses || {});
    model.rulings.push(...data.rulings);
    model.shown += data.rulings.length;
    speak(data.rulings);
    model.records = data.records;
    model.table = data.table;
    model.diceWaiting = data.dice_waiting;
    model.inputsNow = data.inputs_now || [];
    showClocks(data.clocks);
    followTerrain(data.terrain_seq);
    renderHealth(data.health);
    render();
    redrawMapIfChanged();
  });
  source.addEventListener("health", (event) => renderHealth(JSON.parse(event.data)));
  source.addEventListener("ended", () => {  // the referee ended the game: its record is in the lobby
    source.close();
    $("game-ended").hidden = false;
    setTimeout(() => { window.location.href = "/lobby?ended=1"; }, 1500);  // the lobby says it was saved
  });
  source.onerror = () => renderHealth({ state: "server", last_error: t("the station is not answering (restarting, or off the network); retrying") });
}

document.addEventListener("DOMContentLoaded", () => {
  setUpLogin();
  $("feed-older").addEventListener("click", loadOlderRulings);
  $("pending-older").addEventListener("click", loadOlderPending);
  new IntersectionObserver((seen) => { if (seen.some((e) => e.isIntersecting)) loadOlderRulings(); })
    .observe($("feed-older"));
  for (const button of document.querySelectorAll("[data-input]")) {
    button.addEventListener("click", () => act("/api/input", { type: button.dataset.input }));
  }
  if ($("activate")) {
    $("activate").addEventListener("click", () => act("/api/input", { type: "activate", args: { unit: $("activate-unit").value } }));
    if ($("repair")) {
      $("repair").addEventListener("click", () => act("/api/input", { type: "repair", args: { element: $("repair-element").value, cells: 1 } }));
    }
  }
  if ($("mission-picker")) {
    const mission = () => ({ player: $("mission-player").value, objective: $("mission-objective").value,
      target: $("mission-objective").value === "command_vehicle" ? $("mission-target").value : undefined,
      note: $("mission-note").value.trim() });
    $("mission-objective").addEventListener("change", () => { if (model.state) render(); });
    $("mission-player").addEventListener("change", () => { if (model.state) render(); });
    $("mission-declare").addEventListener("click", () => act("/api/input", { type: "mission", args: mission() }));
    $("mission-complete").addEventListener("click", () => act("/api/input",
      { type: "mission_complete", args: { player: $("mission-player").value } }));
  }
  let stillTimer = null;
  $("show-still").addEventListener("change", (event) => {
    const still = $("camera-still");
    still.hidden = !event.target.checked;
    clearInterval(stillTimer);
    const refresh = () => { still.src = `/api/camera.jpg?t=${Date.now()}`; };
    if (event.target.checked) { refresh(); stillTimer = setInterval(refresh, 5000); }
  });
  $("dice-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = $("dice-values").value.trim().split(/[\s,]+/).filter(Boolean).map(Number);
    try {
      showError(null);
      const result = await call("/api/dice", { sides: Number($("dice-sides").value), values });
      model.diceWaiting = result.waiting;
      $("dice-values").value = "";
      renderDice();
    } catch (error) { showError(error); }
  });
  $("dice-clear").addEventListener("click", async () => {
    try { model.diceWaiting = (await call("/api/dice", {}, "DELETE")).waiting; renderDice(); } catch (error) { showError(error); }
  });
  $("speak").checked = localStorage.getItem(SPEAK_KEY) === "on";
  $("speak").addEventListener("change", (event) => {
    localStorage.setItem(SPEAK_KEY, event.target.checked ? "on" : "off");
    if (!event.target.checked && window.speechSynthesis) window.speechSynthesis.cancel();
  });
  $("confirm-all").addEventListener("click", () => {  // the rulings on screen, newest first, as listed
    const ids = [...$("pending").children].map((item) => item.dataset.ruling);
    if (ids.length && window.confirm(t("Confirm these {n} rulings as the station ruled them?", { n: ids.length }))) {
      act("/api/rulings/confirm", { rulings: ids });
    }
  });
  $("end-result").addEventListener("change", () => { if (model.state) render(); });  // a winner only for a win
  $("end-game").addEventListener("click", async () => {
    const pending = model.rulings.filter((r) => rulingStatus(r) === "pending").length;
    const stand = pending ? " " + t("{n} ruling(s) still await confirmation: they stand as the station ruled them.", { n: pending }) : "";
    const result = $("end-result").value || null;  // none: as the rules ruled (their winner, if any)
    const winner = result && result !== "draw" ? $("end-winner").value || null : null;
    const said = result === "draw" ? t("a draw") : winner ? t("{winner} wins", { winner }) : "";
    if (!window.confirm(t("End this game? Its result is journaled and it moves to the history.") + " " + said + stand)) return;
    await act("/api/game/end", { note: $("end-note").value, result, winner });
  });
  $("clock-pause").addEventListener("click", async () => {
    try { showClocks(await call("/api/clocks", { running: Boolean(clocks.view && clocks.view.paused) })); }
    catch (error) { showError(error); }
  });
  $("call-judge").addEventListener("click", async () => {
    try {
      showError(null);
      judgeCall.seq = (await call("/api/judge", { note: $("judge-note").value })).seq;
      $("judge-note").value = "";
      showJudgeCall();
    } catch (error) { showError(error); }
  });
  setUpMap();
  setUpRehearsal();
  setUpHolding();
  connect();
});

// The rehearsal hub's buttons (switched on in the settings): a trigger pulled per barrel, a model
// leaning, falling, standing up or hit, as the hub would report them.
async function setUpRehearsal() {
  const { on, nodes } = await (await fetch("/api/rehearsal")).json();
  $("rehearsal").hidden = !on || !nodes.length;  // a game with no launchers or tilt nodes has no buttons
  if (!on) return;
  const fire = (body) => act("/api/rehearsal", body);
  $("rehearsal-nodes").replaceChildren(...nodes.map((node) => el("li", { "data-node": node.id }, el("code", {}, node.id), " ",
    (node.owners || []).join(", "), " ",
    ...(node.kind === "launcher"
      ? Array.from({ length: Math.max(1, node.barrels) }, (_, k) => el("button", { type: "button", class: "pull",
        onclick: () => fire({ node: node.id, event: "shot", barrel: k + 1, charge: $("rehearsal-charge").value }) },
      t("pull trigger {barrel}", { barrel: k + 1 })))
      : [["leaning", t("lean")], ["fallen", t("fall")], ["upright", t("stand up")]].map(([posture, label]) =>
        el("button", { type: "button", class: `tilt ${posture}`, onclick: () => fire({ node: node.id, event: "tilt", posture }) }, label))
        .concat([el("button", { type: "button", class: "impact", onclick: () => fire({ node: node.id, event: "impact" }) }, t("hit"))])))));
}
