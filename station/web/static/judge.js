// The judge's page of a tournament, made for a phone: players registered and checked in, rounds
// paired, results entered and corrected, the tiebreaks put in order, and the log of changes.
// Everything comes from /api/event, read again every 3 s (a table's result arrives by itself);
// the judge's controls go to the tournament's API (station/tournament/judge_api.py) with the
// judge's name in the body.  A refusal is said under the field it names.  `$`, `el`, `t`,
// `showAtField` and `refusal` are referee.js's; the login is judgelogin.js's.
"use strict";

const NAME_KEY = "tournament-judge-name";
const TIEBREAK_WORDS = { points: "points", sos: "strength of schedule (Buchholz)", wins: "wins", score: "the game's own score" };
const REASON_WORDS = { victory: "victory", time: "on time", concession: "by concession", draw: "draw" };
let EVENT = null;
let openResult = null;  // the result form open, "round/table": the pairings are not redrawn under it

function gameTitle(game) {
  return (EVENT.games.find((g) => g.game === game) || {}).title || game || "?";
}

// The judge's name, required before any control: the log says who did what.
function judgeName() {
  const field = $("judge-name"), name = field.value.trim();
  if (!name) {
    showAtField(field, t("Write your name first: the log of changes says who did what"));
    throw new Error("no judge name");
  }
  localStorage.setItem(NAME_KEY, name);
  return name;
}

async function send(path, body) {
  const answer = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify({ ...body, judge: judgeName() }) });
  if (!answer.ok) throw await refusal(answer);
  return answer.json();
}

// A refusal under the form's field it names, else in ``box``.  An army file's refusal goes under
// the file, with the file's name and the field's place in it, to find it there.
function sayRefusal(error, form, box) {
  if (error.message === "no judge name") return;
  const data = error.data || {}, army = form && data.file ? form.querySelector('[name="army"]') : null;
  const field = army || (form && form.querySelector(`[name="${data.field}"]`));
  if (field) showAtField(field, problemText(error), army ? armyPlace(army.files[0], data) : "");
  else showError(error, box);
}

// Where in an uploaded army file its loader found the problem: the file's name and the field.
function armyPlace(file, data) { return `${file.name} · ${data.field}`; }

function resultText(r) {
  if (!r) return t("no result yet");
  if (r.source === "bye") return t("a bye: a win");
  let said = r.winner ? t("{winner} won", { winner: r.winner }) : t("a draw");
  if (r.winner && (r.reason === "time" || r.reason === "concession")) said += ` (${t(REASON_WORDS[r.reason])})`;
  if (r.score_a !== null && r.score_a !== undefined) said += ` · ${r.score_a}:${r.score_b ?? 0}`;
  const from = { table: t("sent by the table"), judge: t("set by the judge") }[r.source] || r.source;
  return `${said} · ${from}${r.confirmed === 0 ? ` · ${t("not confirmed yet")}` : ""}`;
}

// -- players ----------------------------------------------------------------------------------------
function playerItem(p) {
  const box = el("input", { type: "checkbox", "aria-label": t("{name} checked in", { name: p.name }) });
  box.checked = p.checked_in;
  box.addEventListener("change", () => changePlayer(p.name, { checked_in: box.checked }));
  const about = [p.club, gameTitle(p.game), p.army ? t("army: {name}", { name: p.army }) : t("no army yet")].filter(Boolean);
  return el("li", { class: `player${p.dropped ? " dropped" : ""}`, "data-player": p.name },
    el("div", {}, el("strong", {}, p.name), ` · ${about.join(" · ")}`, p.dropped ? ` · ${t("dropped")}` : ""),
    el("div", { class: "judge-row" },
      el("label", { class: "check" }, box, t("checked in")),
      el("button", { type: "button", onclick: () => changePlayer(p.name, { dropped: !p.dropped }) },
        p.dropped ? t("Take back") : t("Drop")),
      el("label", { class: "upload" }, p.army ? t("Another army file") : t("Their army file"),
        el("input", { type: "file", accept: ".json,application/json", onchange: (event) => uploadArmy(p.name, event.target) }))));
}

// An army brought after registration, or a new one: checked by the game's loader on the server.
async function uploadArmy(name, input) {
  const file = input.files[0];
  if (!file) return;
  let army;
  try { army = JSON.parse(await file.text()); }
  catch (error) { showError(new Error(t("{file} is not a JSON file", { file: file.name })), "players-error"); return; }
  try { await send(`/api/players/${encodeURIComponent(name)}`, { army }); showError(null, "players-error"); }
  catch (error) {
    if (error.message === "no judge name") return;
    const data = error.data || {};
    showError(data.file ? new Error(`${armyPlace(file, data)}: ${problemText(error)}`) : error, "players-error");
  }
  refresh();
}

async function changePlayer(name, change) {
  try { await send(`/api/players/${encodeURIComponent(name)}`, change); showError(null, "players-error"); }
  catch (error) { sayRefusal(error, null, "players-error"); }
  refresh();
}

async function register(event) {
  event.preventDefault();
  const form = event.target, fields = form.elements;
  clearFieldErrors(form);
  const body = { name: fields.name.value, club: fields.club.value, game: fields.game.value, checked_in: fields.checked_in.checked };
  const file = fields.army.files[0];
  if (file) {
    try { body.army = JSON.parse(await file.text()); }
    catch (error) { showAtField(fields.army, t("{file} is not a JSON file", { file: file.name })); return; }
  }
  if (!body.name.trim()) { showAtField(fields.name, t("Write the player's name")); return; }
  try {
    await send("/api/players", body);
    fields.name.value = fields.club.value = fields.army.value = "";
    fields.name.focus();
  } catch (error) { sayRefusal(error, form, "players-error"); }
  refresh();
}

// -- rounds and results -----------------------------------------------------------------------------
function pairingCard(p) {
  const r = EVENT.results.find((x) => x.round === p.round && x.table_id === p.table_id);
  const key = `${p.round}/${p.table_id}`;
  const card = el("div", { class: "pairing", "data-round": p.round, "data-table": p.table_id },
    el("div", {}, el("strong", {}, p.b ? t("table {table}", { table: p.table_id }) : t("bye")), ` · ${gameTitle(p.game)}`),
    el("div", {}, p.b ? `${p.a} — ${p.b}` : p.a, p.first ? ` · ${t("{player} plays first", { player: p.first })}` : ""),
    el("div", { class: r ? "result" : "result none" }, resultText(r)));
  if (r && !r.confirmed) {  // a table's result counts, and waits for the judge before the next round
    card.append(el("button", { type: "button", class: "judge-block confirm", onclick: () => confirmResult(p) }, t("Confirm the table's result")));
  }
  if (p.b) {
    if (openResult === key) card.append(resultForm(p, r));
    else card.append(el("button", { type: "button", class: "judge-block", onclick: () => { openResult = key; drawPairings(); } },
      r ? t("Correct the result…") : t("Enter the result…")));
  }
  return card;
}

function resultForm(p, r) {
  const radio = (value, text) => el("label", { class: "check" },
    el("input", { type: "radio", name: "winner", value, ...((r ? r.winner ?? "" : p.a) === value ? { checked: "" } : {}) }), text);
  const reason = el("select", { name: "reason" },
    ...Object.entries(REASON_WORDS).map(([value, text]) => el("option", { value, ...(r && r.reason === value ? { selected: "" } : {}) }, t(text))));
  const score = (name, who, value) => el("label", {}, t("{player}'s score (optional)", { player: who }),
    el("input", { name, type: "number", min: "0", step: "any", inputmode: "decimal", value: value ?? "" }));
  const form = el("form", { class: "result-form", novalidate: "" },
    el("fieldset", {}, el("legend", {}, t("Winner")), radio(p.a, p.a), radio(p.b, p.b), radio("", t("nobody: a draw"))),
    el("label", {}, t("How the game ended"), reason),
    score("score_a", p.a, r && r.score_a), score("score_b", p.b, r && r.score_b),
    el("label", {}, r ? t("Why it is corrected (needed)") : t("Note (optional)"), el("textarea", { name: "why", maxlength: "500", rows: "2" })),
    el("div", { class: "judge-row" }, el("button", {}, t("Save the result")),
      el("button", { type: "button", onclick: () => { openResult = null; drawPairings(); } }, t("Cancel"))));
  form.addEventListener("change", (event) => {  // a draw has no winner, and a winner is no draw
    if (event.target.name === "winner") reason.value = event.target.value ? (reason.value === "draw" ? "victory" : reason.value) : "draw";
    if (event.target.name === "reason" && reason.value === "draw") form.querySelector('[name="winner"][value=""]').checked = true;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFieldErrors(form);
    const fields = form.elements, number = (field) => (field.value === "" ? null : Number(field.value));
    const body = { round: p.round, table: p.table_id, winner: fields.winner.value || null, reason: reason.value,
      score_a: number(fields.score_a), score_b: number(fields.score_b), why: fields.why.value };
    try { await send("/api/results", body); openResult = null; refresh(); }
    catch (error) { sayRefusal(error, form, "pair-error"); }
  });
  return form;
}

async function confirmResult(p) {
  try { await send("/api/results/confirm", { round: p.round, table: p.table_id }); showError(null, "pair-error"); }
  catch (error) { sayRefusal(error, null, "pair-error"); }
  refresh();
}

async function saveClock(event) {
  event.preventDefault();
  const form = event.target, field = form.elements.minutes;
  clearFieldErrors(form);
  try { await send("/api/clock", { minutes: field.value === "" ? null : Number(field.value) }); }
  catch (error) { sayRefusal(error, form, "pair-error"); }
  refresh();
}

async function pairNextRound() {
  try { await send("/api/rounds", {}); showError(null, "pair-error"); }
  catch (error) { sayRefusal(error, null, "pair-error"); }
  refresh();
}

// Every round's pairings, the newest open; a round the judge opened stays open.
function drawPairings() {
  const rounds = [...new Set(EVENT.pairings.map((p) => p.round))].sort((a, b) => b - a);
  const opened = new Set([...document.querySelectorAll("#pairings details[open]")].map((d) => Number(d.dataset.round)));
  $("pairings").replaceChildren(...rounds.map((n, k) => el("details", { class: "round", "data-round": n,
    ...(k === 0 || opened.has(n) ? { open: "" } : {}) },
  el("summary", {}, t("Round {n}", { n })), ...EVENT.pairings.filter((p) => p.round === n).map(pairingCard))));
  const form = $("pairings").querySelector(".result-form");
  if (form) form.scrollIntoView({ block: "nearest" });
}

// -- standings --------------------------------------------------------------------------------------
function tiebreakItem(name, k, order) {
  const move = (by) => {
    const moved = [...order];
    moved.splice(k + by, 0, ...moved.splice(k, 1));
    send("/api/tiebreaks", { order: moved }).then(() => showError(null, "tiebreaks-error"), (e) => sayRefusal(e, null, "tiebreaks-error")).then(refresh);
  };
  return el("li", { "data-tiebreak": name }, t(TIEBREAK_WORDS[name]),
    el("span", { class: "judge-row" },
      k > 0 ? el("button", { type: "button", "aria-label": t("{name}: earlier", { name: t(TIEBREAK_WORDS[name]) }), onclick: () => move(-1) }, "↑") : "",
      k < order.length - 1 ? el("button", { type: "button", "aria-label": t("{name}: later", { name: t(TIEBREAK_WORDS[name]) }), onclick: () => move(1) }, "↓") : ""));
}

function poolTable(pool) {
  const heads = ["#", t("player"), t("points"), t("Buchholz"), t("wins"), t("draws"), t("losses"), t("score")];
  return el("div", { class: "pool", "data-game": pool.game }, el("h3", {}, pool.title),
    el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": pool.title }, el("table", {}, el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", {}, h)))),
      el("tbody", {}, ...pool.standings.map((s, k) => el("tr", { "data-player": s.player },
        ...[k + 1, s.player, s.points, s.buchholz, s.wins, s.draws, s.losses, s.score].map((v) => el("td", {}, v))))))));
}

// -- the log ----------------------------------------------------------------------------------------
function changeText(c) {
  const b = c.body, who = c.judge;
  if (c.what === "register") return t("{judge} registered {name} ({game})", { judge: who, name: b.name, game: gameTitle(b.game) });
  if (c.what === "confirm") return t("{judge} confirmed the result of round {round}, table {table}", { judge: who, round: c.round, table: c.table_id });
  if (c.what === "clock") return b.minutes ? t("{judge}: each player's clock {minutes} min", { judge: who, minutes: b.minutes }) : t("{judge}: no clocks", { judge: who });
  if (c.what === "pair") return t("{judge} paired round {round}", { judge: who, round: c.round });
  if (c.what === "tiebreaks") return t("{judge} put the tiebreaks in order: {order}", { judge: who, order: b.order.map((n) => t(TIEBREAK_WORDS[n])).join(", ") });
  if (c.what === "result") {
    const said = t("{judge}: round {round}, table {table}: {result}", { judge: who, round: c.round, table: c.table_id, result: resultText({ ...b, source: "judge" }) });
    return said + (b.before ? `; ${t("was: {result}", { result: resultText(b.before) })}` : "") + (c.why ? `; ${t("why: {why}", { why: c.why })}` : "");
  }
  const done = [];
  if ("checked_in" in b) done.push(b.checked_in ? t("checked in") : t("not checked in"));
  if ("dropped" in b) done.push(b.dropped ? t("dropped") : t("taken back"));
  if ("army" in b) done.push(t("army uploaded"));
  return t("{judge}: {name}: {what}", { judge: who, name: b.name, what: done.join(", ") });
}

// -- the page ---------------------------------------------------------------------------------------
function render() {
  const data = EVENT;
  $("round").textContent = data.round;
  $("seed").textContent = data.seed;
  const minutes = document.querySelector('#clock-form [name="minutes"]');
  if (document.activeElement !== minutes) minutes.value = data.clock_minutes ?? "";
  $("no-players").hidden = data.players.length > 0;
  if (!data.players.length) $("register-box").open = true;  // the desk's first job
  $("player-count").textContent = data.players.length
    ? t("{in} of {all} checked in", { in: data.players.filter((p) => p.checked_in && !p.dropped).length, all: data.players.length }) : "";
  $("players").replaceChildren(...data.players.map(playerItem));
  const select = document.querySelector('#register [name="game"]');
  if (!select.options.length) select.replaceChildren(...data.games.map((g) => el("option", { value: g.game }, g.title)));
  if (!openResult) drawPairings();
  $("tiebreaks").replaceChildren(...data.tiebreaks.map((name, k) => tiebreakItem(name, k, data.tiebreaks)));
  $("pools").replaceChildren(...data.pools.map(poolTable));
  $("changes").replaceChildren(...data.changes.map((c) => el("li", {},
    el("span", { class: "role" }, new Date(c.at * 1000).toLocaleTimeString(document.documentElement.lang, { hour: "2-digit", minute: "2-digit" })), " ", changeText(c))));
}

async function refresh() {
  try {
    EVENT = await (await fetch("/api/event")).json();
    render();
  } catch (error) { showError(new Error(t("tournament screen unreachable")), "pair-error"); }
}

$("judge-name").value = localStorage.getItem(NAME_KEY) || "";
$("register").addEventListener("submit", register);
$("pair").addEventListener("click", pairNextRound);
$("clock-form").addEventListener("submit", saveClock);
setUpJudgeLogin(() => refresh());
setInterval(() => { if (!document.hidden) refresh(); }, 3000);
