// The judge's login on the tournament's pages (the tables, the judge's page): the token sent once
// in a JSON body, then the session cookie and its CSRF token, kept for this tab.  A link with
// ?token= logs the judge in at once, and the header says who is looking.  `$` and `t` are
// referee.js's.
"use strict";

let csrf = sessionStorage.getItem("tournament-csrf") || "";
let roleChanged = () => {};

// Whether this browser holds a judge's login (the cookie), said in the header.
async function showRole() {
  const judge = (await fetch("/api/whoami", { headers: { "X-CSRF-Token": csrf } })).ok;
  document.body.classList.toggle("judge", judge);
  $("role").textContent = judge ? t("judge logged in") : t("spectator");
  $("role").classList.toggle("judge", judge);
  $("judge-login").hidden = judge;
  roleChanged(judge);
}

async function logIn(given) {
  const answer = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: given }) });
  $("login-error").textContent = answer.ok ? "" : (await refusal(answer)).message;
  if (answer.ok) { csrf = (await answer.json()).csrf; sessionStorage.setItem("tournament-csrf", csrf); }
  await showRole();
}

// The login form, and the printed link's ?token=; ``then(judge)`` runs after each check of the role.
function setUpJudgeLogin(then) {
  roleChanged = then;
  $("login").addEventListener("submit", (event) => { event.preventDefault(); logIn($("token").value); });
  document.addEventListener("DOMContentLoaded", () => {
    const url = new URL(window.location.href);
    const given = url.searchParams.get("token");
    if (given) {  // the printed link: logged in, and the token kept out of the address bar and history
      url.searchParams.delete("token");
      history.replaceState(null, "", url.pathname + url.search);
      logIn(given);
    } else {
      showRole();
    }
  });
}
