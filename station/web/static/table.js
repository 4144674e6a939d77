// The table map: bases to scale, terrain, the selected model's reach, measuring between two
// bases, the camera seen from above as a backdrop, and the referee's terrain editor.
// Plain JS, no build step; shares `model`, `$`, `el` and `call` with dashboard.js.
"use strict";

// A game's unit of distance as the page's language writes it after a number (station/measure/units.py).
function unitWord(unit) {
  return { inch: t("inch"), step: t("step"), cm: t("cm") }[unit] || unit;
}

const SVG = "http://www.w3.org/2000/svg";
const TERRAIN_TYPES = (VOCABULARY.terrain || []).map(([type]) => type);
const TERRAIN_COLOURS = Object.fromEntries(VOCABULARY.terrain || []);  // each type's fill, as the replay and report draw it
const BASE_NAME = new RegExp(VOCABULARY.base_name || "^$");
const map = { terrain: { pieces: [], seq: null }, reach: null, editing: false, draft: null, selected: null,
  pieces: null, backdrop: false, backdropStamp: 0, errors: null, errorHeight: 0 };

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function tableSize() {
  const table = model.table;
  return table && table.table_mm && table.table_mm.length ? table.table_mm : [1219.2, 1219.2];
}

// Table y points away from the near edge, so it is flipped on screen.
const points = (outline, h) => outline.map(([x, y]) => `${x},${h - y}`).join(" ");

// A base name is its shape and size in mm; an oval or rectangle lies lengthwise along the facing
// (station/measure/bases.py, parse_base_name, whose pattern the server sends).
function baseSize(name) {
  const match = BASE_NAME.exec(name || "");
  if (!match) return ["round", 25, 25];
  if (match[1]) return ["round", Number(match[2]), Number(match[2])];
  const [a, b] = [Number(match[4]), Number(match[5])];
  return [match[3], Math.max(a, b), Math.min(a, b)];
}

function baseShape(unit, h, colour) {
  const [kind, length, width] = baseSize(unit.base);
  const x = unit.x_mm, y = h - unit.y_mm;
  const rules = modelStatus(unit.element);  // what the rules say: out of play, and whether provisionally
  const ruled = outOfPlay(rules.status) ? " out" : "";
  const attrs = { class: `base ${unit.status}${ruled}${rules.provisional ? " provisional" : ""}${rules.acting ? " acting" : ""}${model.picked === unit.element ? " picked" : ""}`, fill: colour,
    "data-element": unit.element, transform: `rotate(${-unit.facing_deg} ${x} ${y})` };
  const shape = kind === "round" ? svg("circle", { ...attrs, cx: x, cy: y, r: length / 2 })
    : kind === "oval" ? svg("ellipse", { ...attrs, cx: x, cy: y, rx: length / 2, ry: width / 2 })
    : svg("rect", { ...attrs, x: x - length / 2, y: y - width / 2, width: length, height: width });
  shape.addEventListener("click", (event) => { if (!map.editing) { event.stopPropagation(); pickBase(unit.element); } });
  return shape;
}

// Labels that can be read and never overprint: 12 px on screen whatever the map's size, each put
// at the first place round its base where it overlaps no other label and stays on the table.
// One that fits nowhere is left out; its base still names itself on hover and when picked.
const LABEL_PX = 12;
const CHAR_EM = 0.62;  // a generous average glyph width, so the estimate is never narrower than the text
const LINE_EM = 1.3;  // and the line's height, descenders and all

function labelText(unit) {
  const down = unit.status === "fallen" || outOfPlay(modelStatus(unit.element).status);
  return down ? `${unit.element} ✕` : unit.element;
}

function baseLabels(units, w, h, mmPerPx) {
  const size = LABEL_PX * mmPerPx, placed = [], labels = [];
  const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  const picked = units.filter((u) => u.element === model.picked), rest = units.filter((u) => u.element !== model.picked);
  for (const unit of [...picked, ...rest]) {  // the picked base's label first: it is the one wanted
    const text = labelText(unit);
    const width = text.length * size * CHAR_EM, height = size * LINE_EM, gap = baseSize(unit.base)[1] / 2 + size * 0.3;
    const x = unit.x_mm, y = h - unit.y_mm;
    const spots = [[gap, -height / 2], [-gap - width, -height / 2], [-width / 2, -gap - height], [-width / 2, gap],
      [gap, -gap - height], [-gap - width, -gap - height], [gap, gap], [-gap - width, gap]];
    for (const [dx, dy] of spots) {
      const box = { x: x + dx, y: y + dy, w: width, h: height };
      if (box.x < 0 || box.y < 0 || box.x + box.w > w || box.y + box.h > h || placed.some((b) => overlaps(b, box))) continue;
      placed.push(box);
      labels.push(svg("text", { class: "base-label", x: box.x, y: box.y + size, style: `font-size:${size}px`,
        "data-label": unit.element }, text));
      break;
    }
  }
  return labels;
}

// A template a ruling laid on the table: a blast's circle or a flamethrower's strip.
function templateShape(template, h) {
  if (template.circle) return svg("circle", { class: "template", cx: template.circle[0], cy: h - template.circle[1], r: template.circle[2] });
  const [x, y, bearing, length, width] = template.strip;
  return svg("rect", { class: "template", x, y: h - y - width / 2, width: length, height: width,
    transform: `rotate(${-bearing} ${x} ${h - y})` });
}

function renderTable() {
  const element = $("table-map");
  const table = model.table;
  // no camera and nothing drawn by hand: the map, its legend and its tools step aside, and say why
  const mapless = !table && !model.health.camera && !map.terrain.pieces.length && !map.editing;
  document.body.classList.toggle("no-camera", mapless);
  $("no-camera").hidden = !mapless;
  element.classList.toggle("live", Boolean(table) || map.terrain.pieces.length > 0);
  $("still-toggle").classList.toggle("live", Boolean(table));
  const camera = model.health.camera;
  $("camera-health").textContent = camera
    ? t("camera {state} · {fps} fps · lens {lens} px · worst anchor {anchor} mm", { state: t(camera.state), fps: camera.fps,
      lens: camera.calibration.lens_rms_px, anchor: camera.calibration.worst_anchor_mm })
      + (camera.calibration.worst_sigma_mm != null ? " · " + t("position error ≤ {sigma} mm (1σ)", { sigma: camera.calibration.worst_sigma_mm }) : "")
    : "";
  const [w, h] = tableSize();
  const box = mapViewBox([-20, -20, w + 40, h + 40]);
  element.setAttribute("viewBox", box.join(" "));
  element.style.aspectRatio = `${w + 40} / ${h + 40}`;  // as tall as the table needs at this width, no more
  const shapes = [svg("rect", { class: "edge", x: 0, y: 0, width: w, height: h })];
  if (map.backdrop) {
    shapes.push(svg("image", { id: "backdrop", href: `/api/table.jpg?t=${map.backdropStamp}`, x: 0, y: 0, width: w,
      height: h, preserveAspectRatio: "none" }));
  }
  if (map.errors) shapes.push(...errorOverlay(h));
  for (const piece of map.pieces || map.terrain.pieces) {
    const polygon = svg("polygon", { class: `terrain ${piece.type}${map.selected === piece.id ? " selected" : ""}`, fill: TERRAIN_COLOURS[piece.type] || "#888",
      points: points(piece.polygon, h), "data-piece": piece.id });
    polygon.addEventListener("click", (event) => {
      if (map.editing && !map.draft) { event.stopPropagation(); selectPiece(piece.id); }
    });
    shapes.push(polygon);
    const [cx, cy] = piece.polygon.reduce(([sx, sy], [x, y]) => [sx + x / piece.polygon.length, sy + y / piece.polygon.length], [0, 0]);
    shapes.push(svg("text", { class: "terrain-label", x: cx, y: h - cy }, `${piece.id} ${piece.height_mm} mm`));
  }
  const reach = map.reach;
  if (reach) {  // rings and arcs end at the table's edge: nothing is in range off the table
    const clip = svg("clipPath", { id: "table-clip" });
    clip.append(svg("rect", { x: 0, y: 0, width: w, height: h }));
    const onTable = svg("g", { id: "reach-shapes", "clip-path": "url(#table-clip)" });
    for (const ring of reach.rings) onTable.append(svg("polygon", { class: "ring", points: points(ring.outline, h) }));
    reach.arcs.forEach((arc, k) => onTable.append(arcWedge(reach, arc, k, w, h)));
    const defs = svg("defs", {});
    defs.append(clip);
    shapes.push(defs, onTable);
  }
  const players = model.state ? model.state.players : [];
  const seen = Object.fromEntries((table ? table.units : []).map((u) => [u.element, u]));
  for (const [a, b] of (model.state && model.state.links) || []) {  // squads' command distance, as the rules judge it
    if (seen[a] && seen[b]) {
      shapes.push(svg("line", { class: "link", x1: seen[a].x_mm, y1: h - seen[a].y_mm, x2: seen[b].x_mm, y2: h - seen[b].y_mm }));
    }
  }
  for (const cut of (model.state && model.state.cut_off) || []) {
    if (seen[cut]) shapes.push(svg("circle", { class: "cut-off", cx: seen[cut].x_mm, cy: h - seen[cut].y_mm, r: 30 }));
  }
  if (model.template) shapes.push(templateShape(model.template, h));
  // A finger needs 44 px: bases smaller than that on screen get an invisible target around them,
  // drawn under every base, so a tap on a base is always that base's.
  const reachable = 22 / ((element.getBoundingClientRect().width || w) / box[2]);  // mm a 22 px radius covers now
  for (const unit of table ? table.units : []) {
    if (reachable <= baseSize(unit.base)[1] / 2) continue;
    const target = svg("circle", { class: "tap-target", cx: unit.x_mm, cy: h - unit.y_mm, r: reachable, "data-tap": unit.element });
    target.addEventListener("click", (event) => { if (!map.editing) { event.stopPropagation(); pickBase(unit.element); } });
    shapes.push(target);
  }
  for (const unit of table ? table.units : []) {
    const colour = PLAYER_COLOURS[Math.max(0, players.indexOf(unit.player)) % PLAYER_COLOURS.length];
    const x = unit.x_mm, y = h - unit.y_mm, a = (unit.facing_deg * Math.PI) / 180;
    const base = baseShape(unit, h, colour);
    base.append(svg("title", {}, unit.element));  // every base keeps its name, label or not
    shapes.push(base);
    shapes.push(svg("line", { x1: x, y1: y, x2: x + 24 * Math.cos(a), y2: y - 24 * Math.sin(a), stroke: "#fff", "stroke-width": 3 }));
  }
  shapes.push(...baseLabels(table ? table.units : [], w, h, reachable / 22));
  const m = model.measurement;
  if (m) {  // the two exact points measured, and what was measured, in the game's units
    const [ax, ay] = [m.point_a[0], h - m.point_a[1]], [bx, by] = [m.point_b[0], h - m.point_b[1]];
    shapes.push(svg("line", { id: "measure-line", x1: ax, y1: ay, x2: bx, y2: by, class: "measure" }));
    shapes.push(svg("text", { id: "measure-label", x: (ax + bx) / 2 + 8, y: (ay + by) / 2 - 8, class: "measure" },
      `${m.exact.toFixed(2)} ${unitWord(m.unit)} → ${m.value}`));
  }
  if (map.draft) {
    shapes.push(svg("polyline", { id: "terrain-draft", class: "draft", points: points(map.draft, h) }));
    for (const [x, y] of map.draft) shapes.push(svg("circle", { class: "draft-point", cx: x, cy: h - y, r: 5 }));
  }
  element.replaceChildren(...shapes);
  renderLegend(players);
}

// What the map's marks mean: each player's colour, then the marks that need saying.
function renderLegend(players) {
  const swatch = (cls, style) => el("span", { class: `swatch ${cls}`, style });
  $("map-legend").replaceChildren(
    ...players.map((p, k) => el("li", {}, swatch("player", `background:${PLAYER_COLOURS[k % PLAYER_COLOURS.length]}`), p)),
    el("li", {}, swatch("facing", ""), t("facing")),
    el("li", {}, swatch("acting", ""), t("acting now")),
    el("li", {}, swatch("fallen", ""), t("fallen")),
    el("li", {}, swatch("out", ""), t("out of play")),
    el("li", {}, swatch("provisional", ""), t("awaiting the referee")),
    el("li", {}, swatch("ring", ""), t("reach (the selected model)")),
    el("li", {}, swatch("arc", ""), t("firing arc")));
}

// The calibration's expected position error (1 sigma, mm) over the table at one height: a cell per
// grid point with the value written in, on a fixed scale so colours mean the same on every table:
// green at 0.25 mm or less, yellow about 1 mm, red at 2 mm or more.
function errorOverlay(h) {
  const grid = map.errors.find((g) => g.height_mm === map.errorHeight) || map.errors[0];
  if (!grid) return [];
  const cells = [];
  grid.sigma_mm.forEach((row, j) => row.forEach((sigma, i) => {
    const x = grid.x_mm[i] - grid.step_mm / 2, y = h - grid.y_mm[j] - grid.step_mm / 2;
    const hue = Math.round(120 * Math.min(Math.max((2 - sigma) / 1.75, 0), 1));
    cells.push(svg("rect", { class: "error-cell", x, y, width: grid.step_mm, height: grid.step_mm,
      fill: `hsl(${hue}, 80%, 45%)`, "data-sigma": sigma }));
    cells.push(svg("text", { class: "error-label", x: x + grid.step_mm / 2, y: y + grid.step_mm / 2 + 6 }, sigma.toFixed(2)));
  }));
  return cells;
}

async function loadErrors(on) {
  map.errors = null;
  $("error-note").textContent = "";
  if (on) {
    try {
      const maps = (await (await fetch("/api/uncertainty")).json()).maps || [];
      if (!maps.length) $("error-note").textContent = t("this calibration has no error map: calibrate the table again");
      map.errors = maps.length ? maps : null;
      $("error-height").replaceChildren(...maps.map((g) => el("option", { value: g.height_mm }, `at ${g.height_mm} mm`)));
    } catch (error) {
      $("error-note").textContent = t("no camera");
    }
  }
  renderTable();
}

// An arc of the selected model, drawn out to the table's far corners.
function arcWedge(reach, arc, k, w, h) {
  const x = reach.x_mm, y = h - reach.y_mm, r = Math.hypot(w, h);
  const at = (deg) => { const a = ((reach.facing_deg + deg) * Math.PI) / 180; return [x + r * Math.cos(a), y - r * Math.sin(a)]; };
  const [x1, y1] = at(arc.centre_deg - arc.half_width_deg), [x2, y2] = at(arc.centre_deg + arc.half_width_deg);
  const large = arc.half_width_deg * 2 > 180 ? 1 : 0;
  const id = arc.centre_deg === 0 ? "arc-front" : `arc-${k}`;
  return svg("path", { id, class: `arc arc-${k}`, d: `M ${x} ${y} L ${x1} ${y1} A ${r} ${r} 0 ${large} 0 ${x2} ${y2} Z` },
    undefined);
}

// Click a base: its reach.  Click another: the station measures edge to edge between the two.
async function pickBase(element) {
  const unit = model.state.units.find((u) => u.elements.some((e) => e.id === element));
  if (typeof pickForAction === "function" && unit) pickForAction(unit.id, element);  // the action panel's too
  if (!model.picked || model.picked === element) {
    model.picked = model.picked === element ? null : element;
    model.measurement = null;
    map.reach = null;
    renderReach();
    renderTable();
    if (model.picked) await loadReach(model.picked);
    return;
  }
  const first = model.picked;
  model.picked = null;
  map.reach = null;
  renderReach();
  const response = await fetch(`/api/measure?a=${encodeURIComponent(first)}&b=${encodeURIComponent(element)}`);
  const data = await response.json();
  model.measurement = response.ok ? data : null;
  $("measure-text").textContent = response.ok ? data.text : data.error;
  renderTable();
}

async function loadReach(element) {
  const response = await fetch(`/api/reach?element=${encodeURIComponent(element)}`);
  const data = await response.json();
  if (model.picked !== element) return;  // picked something else meanwhile
  map.reach = response.ok ? data : null;
  $("measure-text").textContent = response.ok ? t("Click another base to measure to it.") : data.error;
  renderReach();
  renderTable();
}

// In virtual shooting (§7) the referee declares a shot from the selected model at an enemy row.
function shooterWeapons(element) {
  const units = model.state ? model.state.units : [];
  const found = units.flatMap((u) => u.elements).find((e) => e.id === element);
  return (found && found.weapons) || [];
}

function fireButton(reach, target) {
  const virtual = model.state && model.state.options.shooting === "virtual";
  if (!virtual) return el("td", {});
  return el("td", {}, el("button", { class: "fire referee-only", onclick: async () => {
    const args = { shooter: reach.element, target, weapon: $("reach-weapon").value || undefined,
      aimed: $("reach-aimed").checked, grenade: $("reach-grenade").checked };
    try {
      const result = await call("/api/input", { type: "virtual_shot", args });
      $("measure-text").textContent = result.rulings.map(rulingText).join(" ");
    } catch (error) { $("measure-text").textContent = error.message; }
  } }, t("Fire")));
}

// §8: a model touching an enemy may fight it in close combat (the referee declares it).
function fightButton(reach, target) {
  if (target.edge_mm > 5) return el("td", {});
  return el("td", {}, el("button", { class: "fight referee-only", onclick: async () => {
    try {
      const result = await call("/api/input", { type: "close_combat", args: { attacker: reach.element, defender: target.element } });
      $("measure-text").textContent = result.rulings.map(rulingText).join(" ");
    } catch (error) { $("measure-text").textContent = error.message; }
  } }, t("Fight")));
}

// The rules' own preview of an attack on this enemy (Alpha Strike's wizard, The Price of a Mile's
// shooting helper): what it would need and why, and a button that declares it.
function previewCell(reach, target) {
  const a = target.attack;
  if (a.refused) return el("td", { class: "refused", title: inLanguage(a.refused, a.refused_message) }, t("no attack"));
  const extra = typeof attackArgs === "function" ? attackArgs() : {};
  return el("td", { class: "attack" },
    el("details", {}, el("summary", {}, inLanguage(a.summary, a.summary_message)),
      ...a.lines.map((line, k) => el("div", {}, inLanguage(line, (a.lines_messages || [])[k]))),
      ...a.doubts.map((d, k) => el("div", { class: "error" }, inLanguage(d, (a.doubts_messages || [])[k])))),
    el("button", { class: "attack referee-only", onclick: async () => {
      try {
        const result = await call("/api/input", { type: a.input.type, args: { ...a.input.args, ...extra } });
        $("measure-text").textContent = result.rulings.map(rulingText).join(" ");
      } catch (error) { $("measure-text").textContent = error.message; }
    } }, a.input.label));
}

function renderReach() {
  const reach = map.reach;
  const panel = $("reach");
  panel.hidden = !reach;
  if (!reach) return;
  $("reach-title").textContent = reach.element;
  $("reach-weapon").replaceChildren(...shooterWeapons(reach.element).map((w) =>
    el("option", { value: w.id }, `${w.name} ${w.range}/${w.power}`)));
  $("virtual-tools").hidden = !(model.state && model.state.options.shooting === "virtual");
  if ($("attack-tools")) $("attack-tools").hidden = !reach.targets.some((target) => target.attack);
  $("reach-rings").replaceChildren(...reach.rings.map((r) => el("li", {}, inLanguage(r.label, r.label_message))),
    ...reach.arcs.map((a) => el("li", { class: "arc-label" }, inLanguage(a.label, a.label_message))));
  $("reach-targets").replaceChildren(...reach.targets.map((target) => el("tr", { "data-target": target.element },
    el("td", {}, target.element),
    el("td", {}, `${typeof target.value === "number" ? +target.value.toFixed(2) : target.value} ${unitWord(reach.unit)}`),
    el("td", {}, target.in_front ? t("in front") : t("behind")),
    el("td", { class: target.cover.armour === null ? "hidden" : "" },
      inLanguage(target.cover.label, target.cover.label_message) + (target.woods_mm ? " · " + t("woods {mm} mm", { mm: target.woods_mm }) : "")),
    el("td", {}, target.hit_chance === undefined ? "" : t("hit {p} %", { p: Math.round(target.hit_chance * 100) })),
    el("td", {}, target.near_ring.length ? t("too close to call") : ""),
    target.attack ? previewCell(reach, target) : fireButton(reach, target.element),
    target.attack ? el("td", {}) : fightButton(reach, target))));
}

// --- terrain ----------------------------------------------------------------------------------
function followTerrain(seq) {
  if (seq !== map.terrain.seq) loadTerrain();
}

async function loadTerrain() {
  const response = await fetch("/api/terrain");
  if (!response.ok) return;
  map.terrain = await response.json();
  if (!map.editing) map.pieces = null;
  renderTable();
}

function tablePoint(event) {
  const element = $("table-map");
  const point = element.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const at = point.matrixTransform(element.getScreenCTM().inverse());
  return [Math.round(at.x * 10) / 10, Math.round((tableSize()[1] - at.y) * 10) / 10];
}

function selectPiece(id) {
  map.selected = id;
  const piece = map.pieces.find((p) => p.id === id);
  if (piece) {
    $("terrain-id").value = piece.id;
    $("terrain-type").value = piece.type;
    $("terrain-height").value = piece.height_mm;
    $("terrain-climbable").checked = Boolean(piece.climbable);
  }
  renderTable();
}

function setEditing(on) {
  map.editing = on;
  map.draft = null;
  map.selected = null;
  map.pieces = on ? JSON.parse(JSON.stringify(map.terrain.pieces)) : null;
  document.body.classList.toggle("editing-terrain", on);
  $("terrain-error").textContent = "";
  renderTable();
}

function finishDraft() {
  if (!map.draft || map.draft.length < 3) {
    $("terrain-error").textContent = t("Click at least three corners on the map first.");
    return;
  }
  let n = map.pieces.length + 1;
  while (map.pieces.some((p) => p.id === `piece-${n}`)) n += 1;
  const id = $("terrain-id").value.trim() && !map.pieces.some((p) => p.id === $("terrain-id").value.trim())
    ? $("terrain-id").value.trim() : `piece-${n}`;
  map.pieces.push({ id, type: $("terrain-type").value, height_mm: Number($("terrain-height").value), polygon: map.draft,
    ...($("terrain-climbable").checked ? { climbable: true } : {}) });
  map.draft = null;
  selectPiece(id);
}

function applyForm() {
  const piece = map.pieces && map.pieces.find((p) => p.id === map.selected);
  if (!piece) return;
  piece.type = $("terrain-type").value;
  piece.height_mm = Number($("terrain-height").value);
  if ($("terrain-climbable").checked) piece.climbable = true; else delete piece.climbable;
  renderTable();
}

async function saveTerrain() {
  try {
    await call("/api/terrain", { format: "station-terrain/1", pieces: map.pieces }, "PUT");
    $("terrain-error").textContent = "";
    setEditing(false);
    await loadTerrain();
  } catch (error) {
    $("terrain-error").textContent = error.message;
  }
}

function setUpMap() {
  $("terrain-type").replaceChildren(...TERRAIN_TYPES.map((type) => el("option", { value: type }, t(type))));
  $("terrain-edit").addEventListener("click", () => setEditing(!map.editing));
  $("terrain-new").addEventListener("click", () => { map.draft = []; map.selected = null; renderTable(); });
  $("terrain-finish").addEventListener("click", finishDraft);
  $("terrain-delete").addEventListener("click", () => {
    map.pieces = map.pieces.filter((p) => p.id !== map.selected);
    map.selected = null;
    renderTable();
  });
  $("terrain-type").addEventListener("change", applyForm);
  $("terrain-height").addEventListener("change", applyForm);
  $("terrain-climbable").addEventListener("change", applyForm);
  $("terrain-save").addEventListener("click", saveTerrain);
  $("terrain-cancel").addEventListener("click", () => setEditing(false));
  $("table-map").addEventListener("click", (event) => {
    if (map.editing && map.draft) { map.draft.push(tablePoint(event)); renderTable(); }
  });
  $("show-errors").addEventListener("change", (event) => loadErrors(event.target.checked));
  $("error-height").addEventListener("change", (event) => { map.errorHeight = Number(event.target.value); renderTable(); });
  let backdropTimer = null;
  $("show-backdrop").addEventListener("change", (event) => {
    map.backdrop = event.target.checked;
    clearInterval(backdropTimer);
    const refresh = () => { map.backdropStamp = Date.now(); renderTable(); };
    refresh();
    if (map.backdrop) backdropTimer = setInterval(refresh, 5000);
  });
  setUpMapView(renderTable);
  loadTerrain();
}
