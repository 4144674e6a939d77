// The tournament screen: every table, refreshed every two seconds; the judge's controls send the
// login cookie's CSRF token, as on a station.  A link with ?token= logs the judge in at once, and
// the header says who is looking.  `$`, `el` and `t` are the station's own (referee.js).
"use strict";

let csrf = sessionStorage.getItem("tournament-csrf") || "";

function card(table) {
  const s = table.state || {}, h = table.health || {};
  const waiting = s.waiting || 0, calls = table.judge_calls.length;
  const name = h.dashboard ? el("a", { href: h.dashboard, target: "_blank" }, table.table) : table.table;
  const judge = waiting > 0 || calls > 0;
  return el("section", { class: `table-card${judge ? " judge" : ""}${h.state === "offline" ? " offline" : ""}`, "data-table": table.table },
    el("h2", {}, name, h.state === "offline" ? ` ${t("(offline)")}` : h.state === "idle" ? ` ${t("(between games)")}` : ""),
    el("div", {}, (s.title || s.game || t("no game yet")) + (s.round ? ` · ${t("round {n}", { n: s.round })}` : "")),
    (s.players || []).length ? el("div", { class: "players" }, s.players.join(" — ")) : "",
    s.active_player ? el("div", {}, t("to act: {player}", { player: s.active_player })) : "",
    s.ended ? el("div", { class: "ended" }, endedText(s.ended))
      : s.winner ? el("div", {}, t("winner: {winner}", { winner: s.winner })) : "",
    waiting ? el("div", { class: "waiting" }, t("{n} ruling(s) wait for a judge", { n: waiting })) : "",
    ...(s.rulings || []).map((r) => el("div", { class: "ruling" }, (r.said || r.text) + (r.section ? ` (${sectionText(r.section)})` : ""))),
    calls ? el("div", { class: "waiting" }, t("judge called") + (table.judge_calls[0].note ? `: ${table.judge_calls[0].note}` : ""),
      el("button", { class: "handled judge-only", onclick: () => handled(table.table) }, t("handled"))) : "");
}

// How a table's game ended, as the referee ended it (station/game.py ``end``).
function endedText(ended) {
  if (!ended.winner) return t("game over: a draw");
  const how = { time: t("on time"), concession: t("by concession") }[ended.result];
  return t("game over: {winner} won", { winner: ended.winner }) + (how ? ` (${how})` : "");
}

async function refresh() {
  try {
    const data = await (await fetch("/api/tables")).json();
    $("round").textContent = data.round;
    $("broker").textContent = !data.broker ? t("broker not connected")
      : data.taking ? t("broker connected") : t("records not being kept: {why}", { why: data.error || "?" });
    $("broker").classList.toggle("error", data.broker && !data.taking);
    $("counts").textContent = t("{records} records, {malformed} malformed", { records: data.counters.records || 0,
      malformed: data.counters.malformed || 0 });
    $("no-tables").hidden = data.tables.length > 0;
    $("tables").replaceChildren(...data.tables.map(card));
  } catch (error) { $("broker").textContent = t("tournament screen unreachable"); }
}

async function handled(table) {
  await fetch(`/api/tables/${encodeURIComponent(table)}/handled`, { method: "POST", headers: { "X-CSRF-Token": csrf } });
  refresh();
}

// Whether this browser holds a judge's login (the cookie), said in the header.
async function showRole() {
  const judge = (await fetch("/api/whoami", { headers: { "X-CSRF-Token": csrf } })).ok;
  document.body.classList.toggle("judge", judge);
  $("role").textContent = judge ? t("judge logged in") : t("spectator");
  $("role").classList.toggle("judge", judge);
  $("judge-login").hidden = judge;
}

async function logIn(given) {
  const answer = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: given }) });
  $("login-error").textContent = answer.ok ? "" : (await refusal(answer)).message;
  if (answer.ok) { csrf = (await answer.json()).csrf; sessionStorage.setItem("tournament-csrf", csrf); }
  await showRole();
}

$("login").addEventListener("submit", (event) => { event.preventDefault(); logIn($("token").value); });

document.addEventListener("DOMContentLoaded", () => {
  setUpLanguage();
  const url = new URL(window.location.href);
  const given = url.searchParams.get("token");
  if (given) {  // the printed link: logged in, and the token kept out of the address bar and history
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search);
    logIn(given);
  } else {
    showRole();
  }
  refresh();
  setInterval(refresh, 2000);
});
