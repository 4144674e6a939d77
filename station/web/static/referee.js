// What every page of the station shares: the referee's login (the password, or a ?token= link,
// sent once in a JSON body; then only the server's HttpOnly session cookie and the CSRF token it
// hands this page), `call` for the referee's requests, DOM helpers, and where an error is said.
// The password is never kept in the browser nor sent in a header: a header cannot carry Cyrillic.
// Plain JS, no build step; loaded before the page's own script.
"use strict";

const OLD_TOKEN_KEY = "station.referee-token";  // where older versions kept the password: moved to a login
let CSRF = "";  // the login session's CSRF token, from /api/login or /api/whoami
const $ = (id) => document.getElementById(id);

// An error said where the page shows its errors (the controls' line unless told), or cleared.  A
// box off the screen is scrolled to when it says something (never when cleared, so nothing else
// moves the page).
function showError(error, where = "control-error") {
  const box = $(where);
  box.textContent = error ? error.message || String(error) : "";
  if (!error) return;
  const r = box.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
}

// What a refusal says is wrong, in the page's language, without the file and the field's path
// (the page says where in its own words): the server's problem_message (station/datafile.py).
function problemText(error) {
  const data = error && error.data;
  return data && data.problem_message ? sayMessage(data.problem_message) : (error && error.message) || String(error);
}

// A problem shown just under its field, the field marked, and scrolled into view: a referee on a
// phone sees it where the finger is, not at the bottom of a long page.  ``where`` says which
// field in words («Отряд 1 «Киборги», боец 1: сила»).
function showAtField(field, text, where = "") {
  clearFieldErrors(document);
  const note = el("p", { class: "field-error error", role: "alert" }, where ? `${where}: ${text}` : text);
  (field.closest("label") || field).after(note);
  field.classList.add("bad");
  field.setAttribute("aria-invalid", "true");
  note.scrollIntoView({ block: "center" });
  return note;
}

function clearFieldErrors(container) {
  for (const note of container.querySelectorAll(".field-error")) note.remove();
  for (const field of container.querySelectorAll("[aria-invalid]")) { field.removeAttribute("aria-invalid"); field.classList.remove("bad"); }
}

// A player's clock (station/playerclock.py) as m:ss, and as a face: the running one marked, one
// out of time red.  The dashboard, the tournament's cards and the overlay draw the same face.
function clockText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function clockFace(player, left, running) {
  const out = left <= 0;
  return el("span", { class: `clock${running ? " running" : ""}${out ? " out" : ""}`, "data-player": player },
    `${player} ${clockText(left)}${out ? ` ${t("out of time")}` : ""}`);
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

// Live updates patch a list rather than rebuild it: an item whose key is unchanged keeps its node,
// so an open panel, a half-typed note, the focus and the scroll stay where the referee left them.
// Only new items are made, only gone ones removed, and a kept node moves only if out of place.
function patchList(container, items, keyOf, make) {
  const old = new Map([...container.children].map((node) => [node.dataset.key, node]));
  const nodes = items.map((item) => {
    const key = keyOf(item);
    const node = old.get(key) || make(item);
    node.dataset.key = key;
    return node;
  });
  const keep = new Set(nodes);
  for (const node of [...container.children]) if (!keep.has(node)) node.remove();
  nodes.forEach((node, k) => {
    if (container.children[k] !== node) container.insertBefore(node, container.children[k] || null);
  });
}

// A port's error as pyserial and the OS word it, said plainly for the referee (the raw words stay
// in the badge's tooltip for whoever fixes it).
function portError(text) {
  if (/\[Errno 2\]|No such file/.test(text)) return t("the port is not there: is the hub plugged in?");
  if (/\[Errno 13\]|Permission denied/.test(text)) return t("no permission to open the port (the station's user needs the dialout group)");
  if (/in use by|exclusively lock|\[Errno 16\]/.test(text)) return t("another program has the port open");
  return text;
}

// A sentence with identifiers in it (a port, a firmware, a file): each placed as code, which no
// language translates.  ``text`` holds a NUL where each identifier goes.
function withCode(text, ...identifiers) {
  return text.split("\u0000").flatMap((part, k) => (k < identifiers.length ? [part, el("code", {}, identifiers[k])] : [part]));
}

// The headers of the referee's own requests: the cookie rides along; the CSRF token proves the
// request comes from the station's page.
function refereeHeaders(extra = {}) { return { ...extra, "X-CSRF-Token": CSRF }; }

async function call(path, body, method = "POST") {
  const response = await fetch(path, {
    method,
    headers: refereeHeaders({ "Content-Type": "application/json" }),
    body: method === "GET" ? undefined : JSON.stringify(body || {}),
  });
  if (!response.ok) throw await refusal(response);
  return response.json();
}

// The station's refusal as an Error in the page's language (data.message: the refusal's words,
// data.field: where in a file it is).
async function refusal(response) {
  const data = await response.json().catch(() => ({ error: response.statusText }));
  return Object.assign(new Error(inLanguage(data.error || response.statusText, data.message)), { data });
}

// The password, sent once: the answer sets the session cookie and gives the CSRF token.
// Returns "referee", "wrong" or the refusal's message.
async function logIn(password) {
  const answer = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: password }) });
  if (answer.ok) { CSRF = (await answer.json()).csrf; return "referee"; }
  return answer.status === 403 ? "wrong" : (await refusal(answer)).message;
}

// A ?token= link (the QR code's) logs in, and the password leaves the address bar and history;
// a password an older version kept in this browser is used once the same way, then forgotten.
async function adoptTokenFromUrl() {
  const url = new URL(window.location.href);
  const given = url.searchParams.get("token") || localStorage.getItem(OLD_TOKEN_KEY);
  localStorage.removeItem(OLD_TOKEN_KEY);
  if (url.searchParams.has("token")) {
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search);
  }
  return given ? logIn(given) : null;
}

// Whether this browser is logged in as the referee: the page shows the controls, or says the
// password was wrong, or stays a spectator's.
async function checkRole(said = null) {
  const answer = await fetch("/api/whoami");
  const referee = answer.ok;
  CSRF = referee ? (await answer.json()).csrf || "" : "";
  const wrong = !referee && said === "wrong";
  document.body.classList.toggle("referee", referee);
  $("role").textContent = referee ? t("referee") : wrong ? t("wrong referee token") : t("spectator");
  $("role").classList.toggle("error", wrong || (!referee && said !== null && said !== "wrong" && said !== "referee"));
  if (!referee && said && said !== "wrong" && said !== "referee") $("role").textContent = said;
  $("login").style.display = referee ? "none" : "";
  return referee;
}

// The referee's link as a QR code (the password in it, so only the referee's session gets it):
// another phone scans it and logs in.
async function showRefereeQr(img) {
  const answer = await fetch("/api/referee-qr.svg", { headers: refereeHeaders() });
  if (answer.ok) img.src = URL.createObjectURL(await answer.blob());
}

// The login form: ``then(referee)`` runs after every check of the role (the page's own start).
function setUpLogin(then = () => {}) {
  adoptTokenFromUrl().then((said) => checkRole(said)).then(then);
  $("logout").addEventListener("click", async () => {  // this session ends on the server too
    await fetch("/api/logout", { method: "POST", headers: refereeHeaders() });
    checkRole().then(then);
  });
  $("login").addEventListener("submit", async (event) => {
    event.preventDefault();
    const said = await logIn($("token").value);
    $("token").value = "";
    checkRole(said).then(then);
  });
}

// The page's language (the server renders the templates in it and puts its catalog in the page):
// `t("Playing: {title}", { title })` looks the English text up, then fills the placeholders.
const CATALOG = JSON.parse(document.getElementById("catalog")?.textContent || "{}");

function t(text, values = {}) {
  const translated = CATALOG[text] || text;
  return translated.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// A ruling (or a pre-game check) in the page's language: its message (the English template and
// its values, see station/rules/text.py) looked up in this game's catalog, then the page's, its
// values said the same way in turn.
const RULING_WORDS = JSON.parse(document.getElementById("ruling-catalog")?.textContent || "{}");

// The engines name models by id (the journal's, unique); the page says the army's name for them,
// as model_names and _named in station/rules/ do for the report.  learnModelNames(view) runs on
// every state the page is given.  An id that is also a player's name stays the player's, a name
// two models share is not used, and a sentence that already says the name keeps the id.
let MODEL_NAMES = {};

function learnModelNames(view) {
  const players = new Set(view.players || []);
  const units = view.units || [];
  const shared = {};  // a vehicle and its unit may share a name: they are the same model
  for (const unit of units) {
    for (const name of [unit.name, ...unit.elements.map((e) => e.name).filter((name) => name !== unit.name)]) {
      shared[name] = (shared[name] || 0) + 1;
    }
  }
  MODEL_NAMES = Object.fromEntries(units.flatMap((unit) => [unit, ...unit.elements])
    .filter((item) => item.name && item.name !== item.id && !players.has(item.id) && shared[item.name] === 1)
    .map((item) => [item.id, item.name]));
}

function modelName(value, args) {
  const called = Object.hasOwn(MODEL_NAMES, value) ? MODEL_NAMES[value] : null;
  return called !== null && !Object.values(args).includes(called) ? called : value;
}

function sayMessage(message) {
  let said = message.parts
    ? message.parts.map(sayMessage).join(message.sep || "")
    : (RULING_WORDS[message.key] || CATALOG[message.key] || message.key).replace(/\{(\w+)\}/g, (whole, name) => {
      if (!(name in message.args)) return whole;
      const value = message.args[name];
      if (value !== null && typeof value === "object") return sayMessage(value);
      return typeof value === "string" ? modelName(value, message.args) : String(value);
    });
  if (message.trim) said = said.replace(/\.+$/, "");
  return message.cap ? said.charAt(0).toUpperCase() + said.slice(1) : said;
}

function inLanguage(text, message) {
  const named = Object.keys(MODEL_NAMES).length > 0;
  return message && (named || document.documentElement.lang !== "en") ? sayMessage(message) : text;
}

// A preview from POST /api/preview (station/rules/dry_run.py) as lines for the page: why it would
// be refused, or what it would rule, the dice it takes and what the referee will be asked.
function previewNodes(seen) {
  if (seen.refused) return [el("b", { class: "error" }, inLanguage(seen.refused, seen.refused_message))];
  return [el("b", {}, inLanguage(seen.summary, seen.summary_message)),
    ...seen.lines.map((line, k) => el("div", {}, inLanguage(line, (seen.lines_messages || [])[k]))),
    ...seen.doubts.map((d, k) => el("div", { class: "error" }, inLanguage(d, (seen.doubts_messages || [])[k])))];
}

// A rulebook reference as that language's rulebook prints it: the Russian rulebooks say "Таблица 4"
// where the English digests say "Table 4"; section numbers are the same in both.
function sectionText(section) {
  return document.documentElement.lang === "ru" ? (section || "").replace(/\bTable (\d+)/g, "Таблица $1") : section || "";
}

function rulingText(ruling) {
  return inLanguage(ruling.text, ruling.message);
}

// Every page's language menu (the pages that have one), set up by this file for all of them.
function setUpLanguage() {
  const select = $("language");
  if (!select) return;
  select.value = document.documentElement.lang;
  select.addEventListener("change", () => {
    document.cookie = `lang=${select.value}; path=/; max-age=31536000; SameSite=Lax`;
    window.location.reload();
  });
}
document.addEventListener("DOMContentLoaded", setUpLanguage);
