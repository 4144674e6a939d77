// Zoom and pan for the table map: the mouse wheel and a drag, or a pinch and a drag on a phone,
// with a reset button.  Only the SVG's viewBox changes, so every tool that reads positions
// through the map's own transform (picking, measuring, drawing terrain) keeps working zoomed.
// Plain JS, no build step; table.js calls mapViewBox() when it draws and setUpMapView() once.
"use strict";

const view = { box: null, full: null, pointers: new Map(), start: null, moved: false };
const MAX_ZOOM = 8;

function mapViewBox(full) {
  const same = view.full && view.full.every((v, k) => v === full[k]);
  if (!same) { view.full = full; view.box = [...full]; }  // a new table: the whole of it
  return view.box;
}

function zoomed() { return view.box && view.full && view.box[2] < view.full[2] - 0.5; }

function setBox(box) {
  const [fx, fy, fw, fh] = view.full;
  const w = Math.min(fw, Math.max(fw / MAX_ZOOM, box[2]));
  const h = w * fh / fw;
  const x = Math.min(fx + fw - w, Math.max(fx, box[0]));
  const y = Math.min(fy + fh - h, Math.max(fy, box[1]));
  view.box = [x, y, w, h];
  $("table-map").setAttribute("viewBox", view.box.join(" "));
  $("table-map").classList.toggle("zoomed", zoomed());
  $("map-reset").hidden = !zoomed();
}

function mapPoint(clientX, clientY) {  // a screen point in the map's own units
  const element = $("table-map"), point = element.createSVGPoint();
  point.x = clientX;
  point.y = clientY;
  return point.matrixTransform(element.getScreenCTM().inverse());
}

function zoomAt(clientX, clientY, factor) {
  const at = mapPoint(clientX, clientY), [x, y, w, h] = view.box;
  const nw = w / factor, nh = h / factor;
  setBox([at.x - (at.x - x) * nw / w, at.y - (at.y - y) * nh / h, nw, nh]);
}

function setUpMapView(redraw) {
  const element = $("table-map");
  element.addEventListener("wheel", (event) => {
    if (!view.box) return;
    event.preventDefault();
    zoomAt(event.clientX, event.clientY, event.deltaY < 0 ? 1.25 : 0.8);
    redraw();
  }, { passive: false });
  element.addEventListener("pointerdown", (event) => {
    view.pointers.set(event.pointerId, [event.clientX, event.clientY]);
    view.start = { box: [...(view.box || [])], points: new Map(view.pointers) };
    view.moved = false;
  });
  element.addEventListener("pointermove", (event) => {
    if (!view.pointers.has(event.pointerId) || !view.box) return;
    view.pointers.set(event.pointerId, [event.clientX, event.clientY]);
    const [first, second] = [...view.pointers.values()];
    const [s1, s2] = [...view.start.points.values()];
    if (second && s2) {  // a pinch: scale by the fingers' spread, about their middle
      const spread = Math.hypot(first[0] - second[0], first[1] - second[1]) / (Math.hypot(s1[0] - s2[0], s1[1] - s2[1]) || 1);
      const mid = mapPoint((s1[0] + s2[0]) / 2, (s1[1] + s2[1]) / 2);
      const [x, y, w, h] = view.start.box;
      setBox([mid.x - (mid.x - x) / spread, mid.y - (mid.y - y) / spread, w / spread, h / spread]);
      view.moved = true;
    } else if (Math.hypot(first[0] - s1[0], first[1] - s1[1]) > 6 && zoomed() && !map.editing) {  // a drag pans
      const perPx = view.box[2] / element.getBoundingClientRect().width;
      const [x, y, w, h] = view.start.box;
      setBox([x - (first[0] - s1[0]) * perPx, y - (first[1] - s1[1]) * perPx, w, h]);
      view.moved = true;
    }
  });
  const end = (event) => {
    view.pointers.delete(event.pointerId);
    if (view.moved) redraw();
  };
  element.addEventListener("pointerup", end);
  element.addEventListener("pointercancel", end);
  element.addEventListener("click", (event) => {  // the end of a drag is not a tap on a base
    if (view.moved) { event.stopPropagation(); view.moved = false; }
  }, true);
  $("map-reset").addEventListener("click", () => { setBox([...view.full]); redraw(); });
}
