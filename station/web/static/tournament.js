// The tournament screen: every table, refreshed every two seconds; the judge's controls send the
// token they logged in with (the login cookie and its CSRF token, as on a station).  `$` and `el`
// are the station's own (referee.js, loaded first).
let csrf = sessionStorage.getItem("tournament-csrf") || "";

function card(t) {
  const s = t.state || {}, h = t.health || {};
  const waiting = s.waiting || 0, calls = t.judge_calls.length;
  const name = h.dashboard ? el("a", { href: h.dashboard, target: "_blank" }, t.table) : t.table;
  const judge = waiting > 0 || calls > 0;
  return el("section", { class: `table-card${judge ? " judge" : ""}${h.state === "offline" ? " offline" : ""}`, "data-table": t.table },
    el("h2", {}, name, h.state === "offline" ? " (offline)" : ""),
    el("div", {}, `${s.title || s.game || "no game yet"}${s.round ? ` · round ${s.round}` : ""}`),
    s.active_player ? el("div", {}, `to act: ${s.active_player}`) : "",
    s.winner ? el("div", {}, `winner: ${s.winner}`) : "",
    waiting ? el("div", { class: "waiting" }, `${waiting} ruling(s) wait for a judge`) : "",
    ...(s.rulings || []).map((r) => el("div", { class: "ruling" }, `${r.text} (${r.section})`)),
    calls ? el("div", { class: "waiting" }, `judge called${t.judge_calls[0].note ? `: ${t.judge_calls[0].note}` : ""}`,
      el("button", { class: "handled", onclick: () => handled(t.table) }, "handled")) : "");
}

async function refresh() {
  try {
    const data = await (await fetch("/api/tables")).json();
    $("round").textContent = data.round;
    $("broker").textContent = data.broker ? "broker connected" : "broker not connected";
    $("counts").textContent = `${data.counters.records || 0} records, ${data.counters.malformed || 0} malformed`;
    $("tables").replaceChildren(...data.tables.map(card));
  } catch (error) { $("broker").textContent = "tournament screen unreachable"; }
}

async function handled(table) {
  await fetch(`/api/tables/${encodeURIComponent(table)}/handled`, { method: "POST", headers: { "X-CSRF-Token": csrf } });
  refresh();
}

$("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const answer = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: $("token").value }) });
  if (answer.ok) { csrf = (await answer.json()).csrf; sessionStorage.setItem("tournament-csrf", csrf); }
});

refresh();
setInterval(refresh, 2000);
