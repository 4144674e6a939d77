// The tournament screen: every table, refreshed every two seconds.  The judge's login is
// judgelogin.js's; `$`, `el` and `t` are the station's own (referee.js).
"use strict";

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
    s.clocks ? clockLine(s.clocks) : "",
    s.ended ? el("div", { class: "ended" }, endedText(s.ended))
      : s.winner ? el("div", {}, t("winner: {winner}", { winner: s.winner })) : "",
    waiting ? el("div", { class: "waiting" }, t("{n} ruling(s) wait for a judge", { n: waiting })) : "",
    ...(s.rulings || []).map((r) => el("div", { class: "ruling" }, (r.said || r.text) + (r.section ? ` (${sectionText(r.section)})` : ""))),
    calls ? el("div", { class: "waiting" }, t("judge called") + (table.judge_calls[0].note ? `: ${table.judge_calls[0].note}` : ""),
      el("button", { class: "handled judge-only", onclick: () => handled(table.table) }, t("handled"))) : "");
}

// Each player's time left, as the table last published it (station/playerclock.py).
function clockLine(view) {
  return el("div", { class: "clocks" },
    ...Object.entries(view.players).map(([player, c]) => clockFace(player, c.left_s, view.running === player)),
    view.paused ? ` ${t("(paused)")}` : "");
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

setUpJudgeLogin(() => {});
document.addEventListener("DOMContentLoaded", () => {
  refresh();
  setInterval(refresh, 2000);
});
