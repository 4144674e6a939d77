// The settings page: the hub (ports found and probed, the rehearsal hub, none), the camera (those
// found, with a preview), the calibration file and the smart dice, applied at once and remembered.
"use strict";

function stateWord(state) {
  return state ? t(state) : "–";
}

async function refresh() {
  const now = await (await fetch("/api/settings")).json();
  const s = now.settings;
  $("running").hidden = !now.running;
  $("from-flags").hidden = !now.from_flags || !(s.serial.length || s.camera);
  const hubs = now.hub.hubs || [];
  const hubLine = (port) => {
    const hub = hubs.find((h) => h.url === port) || (s.serial.length === 1 ? now.hub : {});
    return el("li", { "data-hub": port }, ...withCode(t("Port {port}: {state}", { port: "\u0000", state: stateWord(hub.state) }), port),
      ...(hub.state === "connected" ? [" · ", el("code", {}, hub.hub_fw || "?"), hub.hub_id ? ` · ${t("hub {id}", { id: hub.hub_id })}` : ""] : []),
      ...(hub.last_error ? [" · ", portError(hub.last_error)] : []));
  };
  $("hub-now").replaceChildren(s.rehearsal ? t("The rehearsal hub: fire its events from the dashboard.")
    : s.serial.length ? el("ul", { class: "hubs" }, ...s.serial.map(hubLine)) : t("No hub."));
  inUse = s.serial;
  $("camera-now").textContent = s.camera !== null ? t("Camera {camera}: {state}", { camera: s.camera,
    state: stateWord(now.camera && now.camera.state) }) : t("No camera.");
  $("calibration").value = s.calibration;
  $("data").textContent = now.data;
  $("home-data").hidden = now.data === now.home;
  const preview = $("camera-preview");
  preview.hidden = s.camera === null;
  if (!preview.hidden) preview.src = `/api/settings/camera.jpg?t=${Date.now()}`;
  return now;
}

// The field each setting is typed in, where a refusal of it is said.
const SETTING_FIELDS = { data: "data-folder", calibration: "calibration", camera: "camera" };

async function change(settings, done) {
  try {
    $("settings-error").textContent = "";
    $("settings-done").textContent = "";
    clearFieldErrors(document);
    const result = await call("/api/settings", settings, "PUT");
    $("settings-done").textContent = typeof done === "function" ? done(result) : done;
    setTimeout(refresh, 800);  // the hub says HELLO within a moment
    await refresh();
  } catch (error) {
    const field = error.data && $(SETTING_FIELDS[error.data.field] || "");
    if (field && !field.hidden) { showAtField(field, problemText(error)); return; }
    showError(error, "settings-error");
  }
}

let inUse = [];  // the ports of the hubs in use

// Each port found: use it alone, add it to the hubs in use, or stop using it.
function portButtons(device) {
  if (inUse.includes(device)) {
    return [el("button", { type: "button", class: "remove-hub", onclick: () => change({ serial: inUse.filter((p) => p !== device) },
      t("Stopped using {port}.", { port: device })) }, t("Stop using"))];
  }
  return [el("button", { type: "button", class: "connect", onclick: () => change({ serial: [device] },
    t("Connected to {port}.", { port: device })) }, t("Connect")),
  ...(inUse.length ? [el("button", { type: "button", class: "add-hub", onclick: () => change({ serial: [...inUse, device] },
    t("Added {port}: {count} hubs.", { port: device, count: inUse.length + 1 })) }, t("Add as another hub"))] : [])];
}

async function findPorts() {
  $("ports").replaceChildren(el("li", {}, t("Looking…")));
  try {
    const { ports } = await call("/api/settings/ports", undefined, "GET");
    $("ports").replaceChildren(...(ports.length ? ports.map((port) => el("li", { "data-port": port.device },
      el("code", {}, port.device), " ", port.description || "", " · ",
      port.hub ? t("a hub: {nodes} nodes", { nodes: port.hub.nodes }) + (port.hub.id ? ` · ${t("hub {id}", { id: port.hub.id })}` : "")
        : port.in_use ? t("in use by the station")
        : port.error ? portError(port.error) : t("no hub answers"),
      ...portButtons(port.device)))
      : [el("li", {}, t("No serial port found: plug the hub in by USB."))]));
  } catch (error) { $("ports").replaceChildren(el("li", { class: "error" }, error.message)); }
}

async function listCameras() {
  const { cameras } = await (await fetch("/api/settings/cameras")).json();
  $("cameras").replaceChildren(...(cameras.length ? cameras.map((c) => el("li", { "data-camera": c.camera },
    el("code", {}, c.device), " ",
    el("button", { type: "button", class: "use-camera", onclick: () => change({ camera: c.camera },
      t("Camera {camera} chosen.", { camera: c.camera })) }, t("Use this camera"))))
    : [el("li", {}, t("No camera found: plug a USB camera in."))]));
}

// The smart dice in range (hardware.md "Smart dice"): each with its battery and link, what it is
// paired with (a select the referee changes; the die blinks), its last throw, and, for the
// rehearsal hub's virtual dice, a button that throws it.
function dieUse(die, players) {
  const select = el("select", { "aria-label": t("{die} is used for", { die: die.name }), class: "die-use",
    onchange: () => pairDie(die, select.value) },
  el("option", { value: "" }, t("not used")), el("option", { value: "any" }, t("any roll")),
  ...players.map((p) => el("option", { value: p }, t("{player}'s throws", { player: p }))));
  if (die.use && ![...select.options].some((o) => o.value === die.use)) select.append(el("option", { value: die.use }, die.use));
  select.value = die.use;
  return select;
}

function lastThrow(roll) {
  if (!roll) return "";
  const why = roll.why_message ? inLanguage(roll.why, roll.why_message) : t(roll.why);
  return " · " + (roll.used ? t("threw {face}: used", roll) : t("threw {face}: not used ({why})", { face: roll.face, why }));
}

async function refreshDice() {
  const dice = await (await fetch("/api/smart-dice")).json();
  $("dice-now").textContent = dice.problem ? t(dice.problem)
    : !dice.on ? t("Smart dice are off.")
      : dice.dice.length ? t("{count} dice in range.", { count: dice.dice.length })
        : dice.bluetooth ? t("Listening for dice: wake each by picking it up.") : t("The rehearsal hub's dice are coming…");
  // a die's line is remade only when what it shows changed, so a select being opened stays put
  const shown = (d) => [d.id, d.use, d.battery, d.link, d.colour, d.lost_mid_roll, d.last_roll && d.last_roll.throw, dice.players].join("|");
  patchList($("dice"), dice.dice, shown, (d) => el("li", { "data-die": d.id },
    el("b", {}, d.name), ` · ${d.make === "pixels" ? "Pixels" : "GoDice"} D${d.sides}`, d.colour ? ` · ${t(`colour ${d.colour}`)}` : "",
    d.battery !== null ? ` · ${d.battery} %` : "", ` · ${t(d.link)}`, d.lost_mid_roll ? ` · ${t("lost mid-roll")}` : "",
    el("span", { class: "last-throw" }, lastThrow(d.last_roll)),
    el("span", { class: "referee-only" }, " ", dieUse(d, dice.players),
      d.virtual ? el("button", { type: "button", class: "throw-die", onclick: () => throwDie(d) }, t("Throw")) : "")));
}

async function pairDie(die, use) {
  try {
    await call("/api/smart-dice/pair", { die: die.id, use });
    $("settings-done").textContent = use ? t("{die} paired: it blinks.", { die: die.name }) : t("{die} is not used.", { die: die.name });
  } catch (error) { showError(error, "settings-error"); }
  await refreshDice();
}

async function throwDie(die) {
  try {
    await call("/api/smart-dice/throw", { die: die.id });
    setTimeout(refreshDice, 1200);  // a throw tumbles for about a second
  } catch (error) { showError(error, "settings-error"); }
}

// The backup, fetched with the referee's CSRF token (a plain link cannot send it) and saved under
// the name the station gave it.
async function downloadBackup() {
  try {
    const response = await fetch("/api/backup", { headers: refereeHeaders() });
    if (!response.ok) throw await refusal(response);
    const named = /filename="?([^";]+)"?/.exec(response.headers.get("Content-Disposition") || "");
    const link = el("a", { href: URL.createObjectURL(await response.blob()), download: named ? named[1] : "station-backup.tar.gz" });
    document.body.append(link);
    link.click();
    link.remove();
  } catch (error) { showError(error, "settings-error"); }
}

// A file the station checks itself (a backup, an update) uploaded as it is; its JSON answer.
async function uploadFile(input, path, busy, missing) {
  const file = $(input).files[0];
  clearFieldErrors(document);
  if (!file) { showAtField($(input), missing); return null; }
  $("settings-done").textContent = busy;
  try {
    const response = await fetch(path, { method: "POST", body: file,
      headers: refereeHeaders({ "Content-Type": "application/gzip" }) });
    if (!response.ok) throw await refusal(response);
    return await response.json();
  } catch (error) {
    $("settings-done").textContent = "";
    showError(error, "settings-error");
    return null;
  }
}

// A backup: what was written, what the station already had, and what it kept as it was (never
// replaced).
async function restoreBackup() {
  const said = await uploadFile("restore-file", "/api/restore", t("Restoring…"), t("choose the backup file first"));
  if (!said) return;
  $("settings-done").textContent = t("Restored: {written} files written, {same} already here, {kept} kept as they were.",
    { written: said.written, same: said.same, kept: said.kept.length });
  await refresh();
}

// Which version runs, the one before (to go back to), and a rolled-back update, said plainly.
async function refreshUpdate() {
  const said = await call("/api/update", undefined, "GET");
  $("update-box").hidden = !said.available;
  if (!said.available) return;
  const lines = [t("Running: the station {version}.", { version: said.running })];
  if (said.rolled_back) lines.push(t("The update to {version} did not start, so the station went back.", { version: said.rolled_back }));
  $("update-state").textContent = lines.join(" ");
  $("update-back").hidden = !said.current;
  $("update-back").textContent = said.previous ? t("Go back to {version}", { version: said.previous }) : t("Go back to the image's own version");
}

// After a restart: the page waits for the station to answer again, then shows what runs.
async function restarted(message) {
  $("settings-done").textContent = message;
  for (let tries = 0; tries < 120; tries++) {
    await new Promise((done) => setTimeout(done, 2000));
    try { await refreshUpdate(); $("settings-done").textContent = t("The station is back."); return; } catch (error) { /* still starting */ }
  }
  showError(new Error(t("The station has not answered for four minutes: look at its screen.")), "settings-error");
}

async function installUpdate() {
  const said = await uploadFile("update-file", "/api/update", t("Checking and installing…"), t("choose the update file first"));
  if (said) await restarted(t("Installed {version}; the station restarts…", { version: said.version }));
}

async function updateBack() {
  try {
    const said = await call("/api/update/back", {});
    await restarted(t("Going back; the station restarts…", { version: said.version || "" }));
  } catch (error) { showError(error, "settings-error"); }
}

document.addEventListener("DOMContentLoaded", async () => {
  setUpLogin((referee) => referee && showRefereeQr($("referee-qr")));
  $("find-ports").addEventListener("click", findPorts);
  $("use-rehearsal").addEventListener("click", () => change({ rehearsal: true, serial: [] },
    t("The rehearsal hub is on: its buttons are on the dashboard during a game.")));
  $("no-hub").addEventListener("click", () => change({ rehearsal: false, serial: [] }, t("No hub.")));
  $("no-camera").addEventListener("click", () => change({ camera: null }, t("No camera.")));
  $("save-calibration").addEventListener("click", () => change({ calibration: $("calibration").value },
    t("Calibration file set.")));
  const moved = (result) => t("Data folder changed; {n} files copied there.", { n: result.copied });
  $("move-data").addEventListener("click", () => change({ data: $("data-folder").value.trim() }, moved));
  $("home-data").addEventListener("click", () => change({ data: null }, moved));
  $("restore").addEventListener("click", restoreBackup);
  $("update-install").addEventListener("click", installUpdate);
  $("update-back").addEventListener("click", updateBack);
  $("backup-download").addEventListener("click", downloadBackup);
  $("dice-on").addEventListener("click", () => change({ dice: true }, t("Smart dice on: pick each die up to wake it.")));
  $("dice-off").addEventListener("click", () => change({ dice: false }, t("Smart dice off.")));
  await Promise.all([refresh(), listCameras(), refreshDice(), refreshUpdate()]);
  setInterval(refresh, 5000);
  setInterval(refreshDice, 2000);
});
