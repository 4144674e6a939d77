// The replay viewer: scrub a played game by record or by time, step from ruling to ruling, jump to
// the disputed or overridden ones; the map, the state and the rulings follow.
// Plain JS, no build step; referee.js gives `$` and `el`.
"use strict";

const replay = { name: document.body.dataset.game, steps: [], rulings: [], times: [], index: 0, pending: null };

function stepOfSeq(seq) {  // the last stop at or before seq
  let found = 0;
  replay.steps.forEach((step, i) => { if (step.seq <= seq) found = i; });
  return found;
}

async function show(index) {
  replay.index = Math.max(0, Math.min(replay.steps.length - 1, index));
  const step = replay.steps[replay.index];
  $("scrub-record").value = replay.index;
  if (replay.times.length) $("scrub-time").value = Math.round(1000 * (replay.times[replay.index] - replay.times[0]) / ((replay.times.at(-1) - replay.times[0]) || 1));
  $("where").textContent = t("record {seq} of {last}", { seq: step.seq, last: replay.steps.at(-1).seq })
    + ` · ${(step.wall || "").slice(11, 19)}`;
  const seq = step.seq;
  replay.pending = seq;
  const response = await fetch(`/api/games/${encodeURIComponent(replay.name)}/at/${seq}`);
  if (replay.pending !== seq) return;  // scrubbed on meanwhile
  const at = await response.json();
  learnModelNames(at.state);
  $("replay-map").hidden = !at.table;  // a game with no camera has no map to show
  $("replay-no-map").hidden = Boolean(at.table);
  if (at.table) $("replay-map").src = `/api/games/${encodeURIComponent(replay.name)}/at/${seq}/map.svg`;
  $("replay-summary").textContent = inLanguage(at.summary, at.summary_message);
  $("replay-clocks").textContent = at.clocks ? t("Clocks: {clocks}", { clocks: Object.entries(at.clocks.players)
    .map(([p, c]) => `${p} ${t("{minutes} min left", { minutes: (c.left_s / 60).toFixed(1) })}`).join(", ") })
    + (at.clocks.paused ? ` ${t("(paused)")}` : "") : "";
  $("ruling-count").textContent = at.rulings.length;
  $("replay-rulings").replaceChildren(...at.rulings.slice().reverse().map((r) => el("li",
    { class: `ruling ${r.kind} ${r.status}`, "data-ruling": r.id },
    el("div", {}, rulingText(r)), el("div", { class: "meta" },
      [sectionText(r.section), t(r.status) + (r.overridden ? `: ${t(r.overridden)}` : "")].filter(Boolean).join(" · ")))));
}

function jump(predicate, forward = true) {
  const current = replay.steps[replay.index].seq;
  const marks = replay.rulings.filter(predicate).map((r) => r.seq);
  const target = forward ? marks.find((seq) => seq > current) : marks.reverse().find((seq) => seq < current);
  if (target !== undefined) show(stepOfSeq(target));
}

document.addEventListener("DOMContentLoaded", async () => {
  const timeline = await (await fetch(`/api/games/${encodeURIComponent(replay.name)}/timeline`)).json();
  replay.steps = timeline.steps;
  replay.rulings = timeline.rulings;
  replay.times = timeline.steps.map((s) => Date.parse(s.wall || 0));
  $("scrub-record").max = replay.steps.length - 1;
  $("scrub-record").addEventListener("input", (event) => show(Number(event.target.value)));
  $("scrub-time").addEventListener("input", (event) => {
    const t = replay.times[0] + (replay.times.at(-1) - replay.times[0]) * Number(event.target.value) / 1000;
    let index = 0;
    replay.times.forEach((time, i) => { if (time <= t) index = i; });
    show(index);
  });
  $("first").addEventListener("click", () => show(0));
  $("last").addEventListener("click", () => show(replay.steps.length - 1));
  $("next-ruling").addEventListener("click", () => jump(() => true));
  $("prev-ruling").addEventListener("click", () => jump(() => true, false));
  $("next-disputed").addEventListener("click", () => jump((r) => r.status === "pending" || r.status === "overridden"));
  show(replay.steps.length - 1);
});
