// Guided calibration (station/vision/guided.py): a live view at two frames a second with the
// board's corners drawn, the coverage of the frame, views taken and dropped with the lens RMS
// refitted at once, then the table fit with each anchor's residual.  Referee only.
"use strict";

const desk = { state: null, live: null };


async function refereeFetch(path) {
  const response = await fetch(path, { headers: refereeHeaders() });
  if (!response.ok) throw await refusal(response);
  return response;
}

function renderCoverage(state) {
  const most = Math.max(1, ...state.coverage.flat());
  $("coverage").replaceChildren(...state.coverage.map((row) => el("tr", {}, ...row.map((n) =>
    el("td", { class: n ? "covered" : "empty", style: `opacity:${0.25 + 0.75 * n / most}`, title: `${n} corners` }, n || "")))));
}

// Why an anchor laid was not found (station/vision/calibration.py MissingAnchor), in the page's language.
function missingWhy(why) {
  if (why.kind === "outside") return t("outside the picture");
  if (why.kind === "small") return t("{px} px here, too small to read: print it at ≥ {mm} mm, or mount the camera lower", { px: why.px, mm: why.print_mm });
  return t("not found where it would be {px} px across: covered, in shadow, or not laid?", { px: Math.round(why.px) });
}

function render(state) {
  desk.state = state;
  const board = state.board;
  $("board").textContent = t("{cols} × {rows} squares of {mm} mm", { cols: board.squares[0], rows: board.squares[1], mm: board.square_mm });
  renderCoverage(state);
  $("views").replaceChildren(...state.views.map((view, k) => el("li", { class: "view" },
    t("{n} corners", { n: view.corners }), view.rms_px === null ? "" : ` · ${view.rms_px} px `,
    el("button", { class: "referee-only drop", onclick: () => dropView(k) }, t("drop")))));
  const lens = state.lens;
  $("lens-result").textContent = !lens ? t("no view yet")
    : t("{views} views · RMS {rms} px", { views: lens.views, rms: lens.rms_px }) + " "
      + (lens.ok ? t("(good)") : t("(over 1 px: drop the worst views)")) + ` · fx ${lens.fx} px`
      + (lens.full_model ? "" : " · " + t("{n} more for the full lens model", { n: 5 - lens.views }));
  $("fit-table").disabled = !lens || lens.views < 5;
  const table = state.table;
  $("save").disabled = !table || Boolean(table.refused);
  $("anchors").replaceChildren(...(table ? table.anchors : []).map((a) => el("tr", { class: a.used ? "used" : "moved" },
    el("td", {}, t("anchor {id}", a)), el("td", {}, a.residual_mm === null ? t("not seen") : `${a.residual_mm} mm`),
    el("td", {}, a.used ? "" : a.why ? missingWhy(a.why) : t("left out")))));
  if (table && table.maps.length) {
    const [flat, high] = table.maps;
    $("table-result").textContent = t("expected position error (1σ): median {median} mm, worst {worst} mm at {height} mm",
      { median: flat.median_mm, worst: flat.worst_mm, height: flat.height_mm })
      + (high ? "; " + t("worst {worst} mm at {height} mm", { worst: high.worst_mm, height: high.height_mm }) : "");
  }
}

async function refresh() {
  try {
    const blob = await (await refereeFetch(`/api/calibrate/view.jpg?t=${Date.now()}`)).blob();
    if (desk.live) URL.revokeObjectURL(desk.live);
    desk.live = URL.createObjectURL(blob);
    $("live-view").src = desk.live;
  } catch (error) { showError(error); }
}

async function step(path, body, method = "POST") {
  try {
    showError(null);
    render(await call(path, body, method));
    return true;
  } catch (error) {
    showError(error);
    try { render(await (await refereeFetch("/api/calibrate")).json()); } catch (ignored) { /* shown above */ }
    return false;
  }
}

function dropView(k) { step(`/api/calibrate/views/${k}`, {}, "DELETE"); }

async function start(referee) {
  if (!referee) { showError(new Error(t("calibration is for the referee: enter the token"))); return; }
  try { render(await (await refereeFetch("/api/calibrate")).json()); } catch (error) { showError(error); return; }
  refresh();
  setInterval(refresh, 500);
}

document.addEventListener("DOMContentLoaded", () => {
  setUpLogin(start);
  $("take-view").addEventListener("click", () => step("/api/calibrate/views"));
  $("fit-table").addEventListener("click", () => {
    const without = $("without").value.split(/[\s,]+/).filter(Boolean).map(Number);
    step("/api/calibrate/table", { without });
  });
  $("save").addEventListener("click", async () => {
    if (await step("/api/calibrate/save")) {
      $("table-result").textContent += " · " + t("saved to {path}; the camera tracks with it now", { path: desk.state.out });
    }
  });
});
