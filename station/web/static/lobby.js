// The lobby: what runs now, a new game (its form made from each game's own option declarations
// and army shelf), an army editor, the spectators' address and the history.
// Plain JS, no build step; referee.js gives the token, `call`, `$` and `el`.
"use strict";

const lobby = { games: [], uploaded: {} };  // uploaded: label -> army document, used without saving

function editorError(error) {
  showError(error, "editor-error");
  if (error) $("editor-done").textContent = "";  // an old success would contradict the error
}

function currentGame() { return lobby.games.find((g) => g.name === $("game").value); }

function minutes(seconds) {
  if (seconds == null) return "";
  const m = Math.round(seconds / 60);
  return m < 60 ? t("{m} min", { m }) : t("{h} h {m} min", { h: Math.floor(m / 60), m: m % 60 });
}

// --- now: the running game, or the one a power cut left --------------------------------------
async function refreshStatus() {
  const status = await (await fetch("/api/lobby")).json();
  const running = $("running");
  running.replaceChildren();
  if (status.running) {
    running.append(el("p", { class: "game" }, t("Playing: {title}", { title: status.running.title }), " ",
      el("a", { href: "/", id: "open-dashboard" }, t("open the dashboard"))),
    el("p", { class: "role" }, ...withCode(t("journal {journal}, {records} records", { ...status.running, journal: "\u0000" }),
      status.running.journal)));
  } else {
    running.append(el("p", { id: "no-game" }, t("No game is running.")));
  }
  const resumable = $("resumable");
  resumable.replaceChildren();
  if (status.resumable && !status.running) {
    const game = status.resumable;
    resumable.append(el("p", {}, t("An unfinished game: {game}, {armies}, {records} records, last at {last}.", {
      game: game.game, armies: game.armies.join(t(" vs ")), records: game.records,
      last: (game.last || "").slice(0, 16).replace("T", " ") })),
    el("button", { id: "resume", class: "referee-only", onclick: () => resume(game.name) }, t("Resume it")));
  }
  $("messages").replaceChildren(...status.messages.map((m, k) => el("li", {}, inLanguage(m, (status.messages_messages || [])[k]))));
  $("hub").replaceChildren(...hubLine(status.hub, status.hardware.rehearsal));
  $("camera").replaceChildren(...(status.camera ? withCode(t("Camera: {state} ({source})", { state: t(status.camera.state), source: "\u0000" }),
    status.camera.source || "").concat(status.camera.error ? [` — ${status.camera.error}`] : []) : [t("Camera: none: no map, no measuring, and the referee's inputs rule alone.")]));
  $("start").disabled = Boolean(status.running);
  $("start").title = status.running ? t("A game is running; end it first") : "";
  showPairing(status.pairing, status.running);
}

// --- a tournament's pairing for this table (station/pairing.py) -----------------------------------
function showPairing(pairing, running) {
  if (!pairing) { $("pairing").replaceChildren(); return; }
  const title = (lobby.games.find((g) => g.name === pairing.game) || {}).title || pairing.game;
  const missing = pairing.players.filter((p) => !p.army).map((p) => p.name);
  $("pairing").replaceChildren(el("div", { class: "pairing-card" },
    el("p", { class: "game" }, t("Tournament, round {n}: {players}", { n: pairing.round, players: pairing.players.map((p) => p.name).join(" — ") })),
    el("p", {}, title, pairing.first ? ` · ${t("{player} plays first", { player: pairing.first })}` : "",
      pairing.clock_minutes ? ` · ${t("{minutes} min a player", { minutes: pairing.clock_minutes })}` : ""),
    el("ul", { class: "role" }, ...pairing.players.map((p) => el("li", {}, `${p.name}: ${p.army || t("no army from the judge: choose it below")}`))),
    running ? "" : el("button", { id: "start-pairing", class: "referee-only", onclick: () => startPairing(missing) },
      missing.length ? t("Prepare this game") : t("Start this game"))));
}

// One tap: the pairing's game and armies in the new-game form, then the usual start (the pre-game
// check, and its note if it fails).  An army the judge has not given is left to choose.
async function startPairing(missing) {
  try {
    const { pairing } = await call("/api/lobby/pairing", null, "GET");
    if (!pairing) return;
    $("game").value = pairing.game;
    renderGameForm();
    lobby.clock = { game: pairing.game, minutes: pairing.clock_minutes };  // the event's clock per player
    const uploads = (lobby.uploaded[pairing.game] = lobby.uploaded[pairing.game] || {});
    for (const row of document.querySelectorAll("#armies .army-row")) row.remove();
    for (const player of pairing.players.filter((p) => p.army)) uploads[t("{player}'s army", { player: player.name })] = player.army;
    for (const player of pairing.players) addArmyRow(player.army ? `upload:${t("{player}'s army", { player: player.name })}` : undefined);
    if (missing.length) {
      $("new-game").scrollIntoView({ block: "start" });
      showError(new Error(t("Choose the army of {players}, then start.", { players: missing.join(", ") })), "lobby-error");
      return;
    }
    await startGame(null);
  } catch (error) { showError(error, "lobby-error"); }
}

function hubLine(hub, rehearsal = false) {
  if (!hub || hub.state === "none") return [t("Hub: none: no launcher or tilt node is read.")];
  const nodes = (hub.nodes || []).length;
  if (rehearsal) return [t("Hub: the rehearsal hub, {nodes} nodes; its buttons are on the dashboard.", { nodes })];  // its link's path says nothing
  if (hub.state === "connected") {
    return withCode(t("Hub: connected on {url}, {fw}, {nodes} nodes.", { url: "\u0000", fw: "\u0000", nodes }), hub.url, hub.hub_fw || "?");
  }
  return withCode(t("Hub: {state} on {url}", { state: t(hub.state), url: "\u0000" }), hub.url)
    .concat(hub.last_error ? [` — ${portError(hub.last_error)}`, "."] : ["."]);
}

async function resume(name) {
  try { showError(null, "lobby-error"); await call(`/api/games/${encodeURIComponent(name)}/resume`); window.location.href = "/"; }
  catch (error) { showError(error, "lobby-error"); }
}

// --- the new-game form --------------------------------------------------------------------------
function armyOptions(game) {
  const options = game.armies.map((a) => a.broken  // listed, so the referee sees why; never chosen
    ? el("option", { value: a.id, disabled: "" }, t("{name}: cannot be read ({why})", { name: a.name, why: a.broken }))
    : el("option", { value: a.id }, `${a.player}: ${a.name}${a.sample ? t(" (sample)") : ""}`));
  for (const label of Object.keys(lobby.uploaded[game.name] || {})) {
    options.push(el("option", { value: `upload:${label}` }, t("uploaded: {label}", { label })));
  }
  return options;
}

function addArmyRow(selected) {
  const game = currentGame();
  const select = el("select", { "aria-label": t("army"), onchange: rememberArmies }, ...armyOptions(game));
  if (selected) select.value = selected;
  const row = el("div", { class: "army-row" }, select,
    el("button", { type: "button", "aria-label": t("remove this army"), onclick: () => { row.remove(); rememberArmies(); } }, "✕"));
  $("armies").append(row);
}

// The armies chosen for each game are kept in this browser, so a reload (or a saved army, which
// the shelf lists first) does not put other armies in the menus.  Uploads are not kept.
const CHOSEN_KEY = (game) => `station.armies.${game}`;

function rememberArmies() {
  const kept = [...document.querySelectorAll("#armies select")].map((s) => s.value).filter((v) => !v.startsWith("upload:"));
  localStorage.setItem(CHOSEN_KEY(currentGame().name), JSON.stringify(kept));
}

function rememberedArmies(game) {
  let kept;
  try { kept = JSON.parse(localStorage.getItem(CHOSEN_KEY(game.name)) || "[]"); } catch { kept = []; }
  const known = new Set(game.armies.filter((a) => !a.broken).map((a) => a.id));
  return Array.isArray(kept) && kept.length && kept.every((id) => known.has(id)) ? kept : null;
}

function optionInput(option) {
  const id = `option-${option.name}`;
  let input;
  if (option.kind === "flag") {
    input = el("input", { type: "checkbox", id });
    input.checked = Boolean(option.default);
  } else if (option.kind === "choice") {
    input = el("select", { id }, ...option.choices.map((c, k) => el("option", { value: JSON.stringify(c) },
      (option.choice_labels || [])[k] || String(c))));
    input.value = JSON.stringify(option.default);
  } else if (option.kind === "integer" || option.kind === "number") {
    input = el("input", { type: "number", id, min: option.low, max: option.high, step: option.kind === "integer" ? 1 : "any" });
    input.value = option.default;
  } else if (option.kind === "table") {
    input = el("textarea", { id, rows: 2 });
    input.value = JSON.stringify(option.default);
  } else {  // side, names: text ("names" separated by commas)
    input = el("input", { id, placeholder: option.kind === "side" ? t("a player, or none") : t("names, separated by commas") });
    input.value = Array.isArray(option.default) ? option.default.join(", ") : option.default || "";
  }
  const name = option.label || option.name;
  return el("div", { class: `option ${option.kind}`, "data-option": option.name },
    option.kind === "flag" ? el("label", { for: id, class: "check" }, input, ` ${name}`) : el("label", { for: id }, `${name} `, input),
    el("div", { class: "help" }, `${t(option.help)} (${option.section})`));
}

function optionValue(option) {
  const input = $(`option-${option.name}`);
  switch (option.kind) {
    case "flag": return input.checked;
    case "choice": return JSON.parse(input.value);
    case "integer": case "number": return input.value === "" ? option.default : Number(input.value);
    case "table": return JSON.parse(input.value);
    case "names": return input.value.split(",").map((s) => s.trim()).filter(Boolean);
    default: return input.value.trim() || null;
  }
}

async function importMul() {
  try {
    editorError(null);
    let pasted;
    try { pasted = JSON.parse($("mul-text").value); }
    catch (error) { throw new Error(t("the MUL text is not valid JSON: {why}", { why: error.message })); }
    const game = currentGame().name;
    const result = await call(`/api/rulesets/${encodeURIComponent(game)}/cards`, { cards: pasted });
    delete schemas[game];  // the new cards are offered by name and MUL id in the form
    await drawArmyForm();  // before saying it is done, so what follows works on the new form
    $("mul-result").replaceChildren(el("li", {}, t("{added} added, {updated} updated, {skipped} skipped; the library holds {cards} cards.",
      { added: result.added.length, updated: result.updated.length, skipped: result.skipped.length, cards: result.cards })),
      ...result.added.map((name) => el("li", { class: "added" }, t("added: {name}", { name }))),
      ...result.updated.map((name) => el("li", {}, t("updated: {name}", { name }))),
      ...result.skipped.map((why) => el("li", { class: "error" }, t("skipped: {why}", { why }))));
  } catch (error) { editorError(error); }
}

function renderGameForm() {
  const game = currentGame();
  $("mul-paste").hidden = !game.card_library;
  $("armies").replaceChildren(el("legend", {}, t("Armies")));
  const kept = rememberedArmies(game);
  if (kept) kept.forEach((id) => addArmyRow(id));
  const players = [];
  for (const army of kept ? [] : game.armies.filter((a) => !a.broken)) {  // else one army per player to begin with
    if (!players.includes(army.player) && players.length < 2) { players.push(army.player); addArmyRow(army.id); }
  }
  $("options").replaceChildren(...game.options.map(optionInput));
  $("editor-from").replaceChildren(...game.armies.map((a) => el("option", { value: a.id }, `${a.player}: ${a.name}`)));
  if (lobby.editorGame !== game.name) {  // another game: the editor's army was the other game's
    lobby.editorGame = game.name;
    lobby.editorFrom = null;
    $("editor-text").value = "";
    $("editor-name").value = "";
    $("army-form").replaceChildren();
    $("wiring").replaceChildren();
    editorError(null);
    $("editor-done").textContent = "";
    if ($("editor").open) loadIntoEditor();
  }
}

function chosenArmies() {
  const game = currentGame();
  return [...document.querySelectorAll("#armies select")].map((select) => {
    if (!select.value.startsWith("upload:")) return select.value;
    const label = select.value.slice("upload:".length);
    return { label, army: lobby.uploaded[game.name][label] };
  });
}

// The player of each chosen army (a shelf's, or one edited and used unsaved); the first named twice.
function samePlayerTwice(chosen) {
  const game = currentGame();
  const players = chosen.map((army) => (typeof army === "string" ? game.armies.find((a) => a.id === army)?.player : army.army.player));
  return players.find((player, k) => player && players.indexOf(player) !== k) || null;
}

function changedOptions() {
  const options = {};
  for (const option of currentGame().options) {
    const value = optionValue(option);
    if (JSON.stringify(value) !== JSON.stringify(option.default)) options[option.name] = value;
  }
  return options;
}

function renderChecks(checks) {
  $("checks").replaceChildren(...checks.map((c) => el("li", { class: `check ${c.level}` },
    `${c.level === "ok" ? "✓" : c.level === "warn" ? "!" : "✗"} ${t(c.check)}: ${inLanguage(c.said, c.said_message)}`,
    c.fix && c.level !== "ok" ? el("div", { class: "help" }, inLanguage(c.fix, c.fix_message)) : "")));
}

async function startGame(event, force = false) {
  if (event) event.preventDefault();
  for (const node of document.querySelectorAll(".option.bad")) node.classList.remove("bad");
  const body = { game: $("game").value, options: changedOptions(), armies: chosenArmies() };
  if (lobby.clock && lobby.clock.game === body.game && lobby.clock.minutes) body.clock_minutes = lobby.clock.minutes;
  try {
    showError(null, "lobby-error");
    const twice = samePlayerTwice(body.armies);
    if (twice) throw new Error(t("Each player brings one army: {player} is chosen twice.", { player: twice }));
    if (!force) {  // the pre-game check first: a failure stops here, with the reasons
      const check = await call("/api/games/check", body);
      renderChecks(check.checks);
      $("force").hidden = check.ready;
      if (!check.ready) { showError(new Error(t("The pre-game check failed; fix what it says, or start anyway with a note.")), "lobby-error"); return; }
    }
    const result = await call("/api/games", force ? { ...body, force: true, note: $("force-note").value } : body);
    if (result.messages.length) window.alert(result.messages.join("\n"));
    window.location.href = "/";
  } catch (error) {
    const named = currentGame().options.find((o) => error.data && o.name === error.data.field);
    if (named) {  // an option: said under it
      $("options-box").open = true;
      const option = document.querySelector(`[data-option="${named.name}"]`);
      option.classList.add("bad");
      showError(null, "lobby-error");
      showAtField(option.querySelector("input, select, textarea") || option, problemText(error), named.label || named.name);
      return;
    }
    const file = error.data && error.data.file;  // an army: named by its file, the problem in words
    showError(file ? new Error(`${file}: ${problemText(error)}`) : error, "lobby-error");
  }
}

// --- wiring: pair each launcher, tilt node and marker with what the hub reports ---------------
const pairing = { slot: null, since: 0, timer: null, offer: null };

function setAt(document_, path, value) {
  let node = document_;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path.at(-1)] = value;
}

async function refreshWiring() {
  try {
    editorError(null);
    const result = await call(`/api/armies/${$("game").value}/wiring`, { army: editorDocument() });
    $("wiring").replaceChildren(...result.slots.map((slot) => {
      const flags = [slot.conflict && t("used twice"), slot.empty && t("not paired"), slot.absent && t("not on the hub")].filter(Boolean);
      const armed = pairing.slot && JSON.stringify(pairing.slot.path) === JSON.stringify(slot.path);
      return el("li", { class: `slot${flags.length ? " bad" : ""}`, "data-path": JSON.stringify(slot.path) },
        `${slot.owner} · ${t(slot.kind)} · `, el("code", {}, slot.id ?? "—"), flags.length ? ` (${flags.join(", ")})` : "",
        el("button", { type: "button", class: "pair", onclick: () => (slot.kind === "marker" ? pairMarker(slot) : pair(slot)) },
          armed ? { launcher: t("pull its trigger…"), tilt: t("tilt it…"), marker: t("put it under the camera…") }[slot.kind] : t("Pair")),
        armed && slot.kind !== "marker" ? rehearsalButtons(slot.kind) : "",
        armed && pairing.offer ? el("span", { class: "offer" },
          el("img", { src: `${pairing.offer.thumb}?t=${Date.now()}`, alt: t("marker {id} as the camera sees it", pairing.offer), width: 64, height: 64 }),
          el("button", { type: "button", class: "use-marker", onclick: () => useMarker(pairing.offer.id) }, t("Use marker {id}", pairing.offer))) : "");
    }));
  } catch (error) { editorError(error); }
}

// With the rehearsal hub on (settings), a slot waiting to be paired offers its nodes of that kind
// as buttons: pulling a rehearsal trigger, or tilting a rehearsal node, pairs it as the real
// hub's would (it was a dead end: the buttons lived only on the dashboard, during a game).
function rehearsalButtons(kind) {
  const nodes = (pairing.rehearsal || []).filter((node) => node.kind === kind);
  if (!nodes.length) return "";
  return el("span", { class: "rehearse" }, t("rehearsal hub:"), " ", ...nodes.map((node) =>
    el("button", { type: "button", class: "rehearse-node", "data-node": node.id, onclick: async () => {
      try {
        await call("/api/rehearsal", kind === "launcher" ? { node: node.id, event: "shot", barrel: 1 }
          : { node: node.id, event: "tilt", posture: "leaning" });
      } catch (error) { editorError(error); }
    } }, kind === "launcher" ? t("{id}: pull", node) : t("{id}: tilt", node))));
}

async function pair(slot) {
  clearInterval(pairing.timer);
  const rehearsal = await (await fetch("/api/rehearsal")).json();
  pairing.rehearsal = rehearsal.on ? rehearsal.nodes : [];
  const now = await (await fetch("/api/hub/events?since=0")).json();
  pairing.slot = slot;
  pairing.since = Math.max(0, ...now.events.map((e) => e.n));
  refreshWiring();
  pairing.timer = setInterval(async () => {
    const { events } = await (await fetch(`/api/hub/events?since=${pairing.since}`)).json();
    if (events.length) pairing.since = events.at(-1).n;
    const match = events.find((e) => e.kind === pairing.slot.kind);
    if (!match) return;
    clearInterval(pairing.timer);
    const document_ = editorDocument();
    setAt(document_, pairing.slot.path, match.node);
    setEditorDocument(document_);
    pairing.slot = null;
    refreshWiring();
  }, 400);
}

// A marker is paired by sight: the model goes under the camera, and the marker that newly
// appears is offered with its crop, for the referee to accept.
async function pairMarker(slot) {
  clearInterval(pairing.timer);
  const now = await (await fetch("/api/camera/markers")).json();
  pairing.slot = slot;
  pairing.offer = null;
  pairing.since = Math.max(0, ...now.markers.map((m) => m.n));
  refreshWiring();
  pairing.timer = setInterval(async () => {
    const { markers } = await (await fetch("/api/camera/markers")).json();
    const fresh = markers.find((m) => m.n > pairing.since);
    if (!fresh || (pairing.offer && pairing.offer.id === fresh.id)) return;
    pairing.offer = fresh;
    refreshWiring();
  }, 500);
}

function useMarker(id) {
  clearInterval(pairing.timer);
  const document_ = editorDocument();
  setAt(document_, pairing.slot.path, id);
  pairing.slot = null;
  pairing.offer = null;
  setEditorDocument(document_).then(refreshWiring);
}

// --- the army editor ------------------------------------------------------------------------------
let editorLoads = 0;  // only the latest choice fills the editor, however the answers arrive
const schemas = {};  // each game's army format, for the form

async function armySchema(game) {
  if (!schemas[game]) schemas[game] = await (await fetch(`/api/rulesets/${game}/schema`)).json();
  return schemas[game];
}

// The army being edited lives in the JSON text; the form is drawn from it and writes back to it.
async function setEditorDocument(document_) {
  $("editor-text").value = JSON.stringify(document_, null, 1);
  await drawArmyForm();
}

async function drawArmyForm() {
  let document_;
  try { document_ = JSON.parse($("editor-text").value); } catch { return; }  // the JSON tab says why on save
  renderSchemaForm($("army-form"), await armySchema($("game").value), document_, (next) => {
    $("editor-text").value = JSON.stringify(next, null, 1);
  }, armyLead);
}

// How an error under a field of the editor begins: the army it is in, by its name.
function armyLead() {
  let name = $("editor-name").value.trim();
  try { name = JSON.parse($("editor-text").value).name || name; } catch { /* the JSON tab says why */ }
  return name ? t("Army «{name}»", { name }) : t("The army");
}

async function loadIntoEditor() {
  const id = $("editor-from").value;
  if (!id) return;
  const load = ++editorLoads;
  const document_ = await (await fetch(`/api/armies/${$("game").value}/${encodeURIComponent(id)}`)).json();
  if (load !== editorLoads) return;
  await setEditorDocument(document_);
  lobby.editorFrom = id;
  $("editor-name").value = id.split(":")[1].replace(/\.json$/, "") + (id.startsWith("sample:") ? "-copy" : "");
  refreshWiring();
}

function editorDocument() {
  $("editor-text").classList.remove("bad");
  try { return JSON.parse($("editor-text").value); }
  catch (error) { $("editor-text").classList.add("bad"); throw new Error(t("the army is not valid JSON: {why}", { why: error.message })); }
}

// The armies this one will meet: every army chosen for the game but the one the editor replaces.
function armiesAlongside() {
  const from = lobby.editorFrom || $("editor-from").value;
  return chosenArmies().filter((id) => typeof id === "string" && id !== from);
}

async function saveArmy() {
  try {
    editorError(null);
    clearFieldErrors(document);
    const wrong = firstFormProblem($("army-form"));
    if (wrong) {  // the browser knows already: the field says so, and nothing is sent
      sayAtField(wrong.input, wrong.problem, armyLead());
      return;
    }
    const result = await call(`/api/armies/${$("game").value}`,
      { name: $("editor-name").value, army: editorDocument(), alongside: armiesAlongside() });
    const from = $("editor-from").value;
    const rows = [...document.querySelectorAll("#armies select")].map((select) => select.value);
    await loadRulesets($("game").value);
    const selects = [...document.querySelectorAll("#armies select")];
    rows.forEach((value, i) => { if (selects[i]) selects[i].value = value; });
    replaceArmyRow(lobby.editorFrom || from, result.army.id);  // the army the editor started from is replaced
    lobby.editorFrom = result.army.id;
    showDone(t("Saved as {name}.", { name: result.army.id.split(":")[1] }));
    if (result.clash) {  // saved, but it cannot meet an army chosen beside it as it is
      const clash = { data: result.clash };
      if (!markField($("army-form"), result.clash.field, problemText(clash), armyLead())) editorError(new Error(problemText(clash)));
    }
  } catch (error) {
    const where = error.data && error.data.field;
    if (where && markField($("army-form"), where, problemText(error), armyLead())) { editorError(null); return; }
    editorError(error);
    $("editor-text").classList.add("bad");
  }
}

// The army the editor started from is replaced by the edited one (the game keeps its two sides);
// an army that came from nowhere on the list is added.
function replaceArmyRow(from, id) {
  const selects = [...document.querySelectorAll("#armies select")];
  const target = selects.find((select) => select.value === from);
  if (target) target.value = id; else addArmyRow(id);
  rememberArmies();
}

function useUnsaved() {
  try {
    editorError(null);
    const game = $("game").value, label = $("editor-name").value.trim() || t("uploaded army");
    (lobby.uploaded[game] = lobby.uploaded[game] || {})[label] = editorDocument();
    const id = `upload:${label}`, from = lobby.editorFrom;
    for (const select of document.querySelectorAll("#armies select")) {  // the new choice, in every menu
      if (![...select.options].some((o) => o.value === id)) select.append(el("option", { value: id }, t("uploaded: {label}", { label })));
    }
    replaceArmyRow(from, id);
    lobby.editorFrom = id;
    showDone(t("In this game as {label}; not saved to the shelf.", { label }));
  } catch (error) { editorError(error); }
}

// A success is said as one, not in the error's red.
function showDone(text) {
  $("editor-error").textContent = "";
  $("editor-done").textContent = text;
}

async function readUpload(event) {
  const file = event.target.files[0];
  if (!file) return;
  $("editor-text").value = await file.text();
  $("editor-name").value = file.name.replace(/\.json$/i, "");
  await drawArmyForm();
}

// --- history ------------------------------------------------------------------------------------
// How a game ended, as its end record says: the referee's result, or the rules' winner.
function endedAs(g) {
  if (g.result === "draw") return t("a draw");
  if (!g.winner) return t("ended, no winner");
  if (g.result === "time") return t("winner on time: {winner}", g);
  if (g.result === "concession") return t("winner by concession: {winner}", g);
  return t("winner: {winner}", g);
}

async function refreshHistory() {
  const { games } = await (await fetch("/api/games")).json();
  // One card a game: when, what, who, how it ended, how long and how many rulings; then its links.
  $("history").replaceChildren(...games.map((g) => el("li", { class: "game-card", "data-game": g.name },
    el("div", { class: "when" }, (g.started || "").slice(0, 16).replace("T", " "), " · ", el("b", {}, g.title || g.game)),
    el("div", { class: "who" }, g.armies.join(t(" vs "))),
    el("div", { class: "result" }, g.finished ? endedAs(g) : t("unfinished"),
      " · ", minutes(g.seconds), " · ", t("{n} rulings", { n: g.rulings ?? 0 })),
    el("div", { class: "links" },
      el("a", { href: `/games/${encodeURIComponent(g.name)}`, class: "replay" }, t("replay")),
      el("a", { href: `/games/${encodeURIComponent(g.name)}/report`, class: "report" }, t("report")),
      el("a", { href: `/api/games/${encodeURIComponent(g.name)}/journal`, download: g.name, class: "journal" }, t("journal"))))));
}

async function loadRulesets(keep) {
  lobby.games = (await (await fetch("/api/rulesets")).json()).games;
  $("game").replaceChildren(...lobby.games.map((g) => el("option", { value: g.name }, g.title)));
  $("game").value = keep || lobby.games[0].name;
  renderGameForm();
}

document.addEventListener("DOMContentLoaded", async () => {
  const url = new URL(window.location.href);
  if (url.searchParams.has("ended")) {  // a game was just ended on the dashboard: say where it went
    $("ended").hidden = false;
    url.searchParams.delete("ended");
    history.replaceState(null, "", url.pathname + url.search);
  }
  setUpLogin();
  fetch("/api/claim").then((r) => r.json()).then((state) => { $("unclaimed").hidden = state.claimed; });
  $("game").addEventListener("change", renderGameForm);
  $("add-army").addEventListener("click", () => { addArmyRow(); rememberArmies(); });
  $("new-game-form").addEventListener("submit", startGame);
  $("editor-from").addEventListener("change", loadIntoEditor);
  $("editor").addEventListener("toggle", () => { if ($("editor").open && !$("editor-text").value) loadIntoEditor(); });
  $("editor-file").addEventListener("change", readUpload);
  $("editor-save").addEventListener("click", saveArmy);
  $("editor-use").addEventListener("click", useUnsaved);
  $("wiring-refresh").addEventListener("click", refreshWiring);
  $("mul-import").addEventListener("click", importMul);
  $("editor-text").addEventListener("change", drawArmyForm);
  $("force-start").addEventListener("click", () => startGame(null, true));
  await loadRulesets();
  await Promise.all([refreshStatus(), refreshHistory()]);
  setInterval(() => { refreshStatus(); refreshHistory(); }, 3000);
});
