// The stream overlay (station/tournament/overlay.py): one table, pushed by Server-Sent Events,
// drawn over the stream's picture.  The running clock counts down here between pushes.
// `$`, `el`, `t` and `clockText` are referee.js's.
"use strict";

const shown = { table: null, at: 0 };

function draw() {
  const s = (shown.table && shown.table.state) || {};
  const clocks = s.clocks, gone = (performance.now() - shown.at) / 1000;
  $("players").replaceChildren(...(s.players || []).map((player) => {
    const c = clocks && clocks.players[player];
    const running = clocks && clocks.running === player, left = c ? c.left_s - (running ? gone : 0) : null;
    return el("span", { class: `player${running ? " running" : ""}${c && left <= 0 ? " out" : ""}`, "data-player": player },
      el("b", {}, player), c ? el("span", { class: "clock" }, clockText(left)) : "",
      s.active_player === player ? el("span", { class: "to-act" }, t("to act")) : "");
  }));
  const ended = s.ended ? (s.ended.winner ? t("game over: {winner} won", { winner: s.ended.winner }) : t("game over: a draw")) : "";
  $("game").textContent = s.game ? [s.title, s.round ? t("round {n}", { n: s.round }) : "", ended].filter(Boolean).join(" · ") : t("no game yet");
  if (!document.body.classList.contains("compact")) {
    $("recent").replaceChildren(...(s.recent || []).map((r) => el("li", {}, r.said || r.text)));
  }
}

if ($("players")) {
  const table = document.body.dataset.table;
  const source = new EventSource(`/api/tables/${encodeURIComponent(table)}/events`);
  source.onmessage = (event) => { shown.table = JSON.parse(event.data); shown.at = performance.now(); draw(); };
  setInterval(() => { const c = shown.table && shown.table.state && shown.table.state.clocks; if (c && c.running) draw(); }, 1000);
}
