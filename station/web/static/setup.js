// Claiming a new station (web/claim.py): the code (unless at the station itself) and a password;
// then this browser keeps the token and shows the referee's link as a QR code.
"use strict";

async function showQr() {
  const answer = await fetch("/api/referee-qr.svg", { headers: { "X-Referee-Token": token() } });
  if (answer.ok) $("referee-qr").src = URL.createObjectURL(await answer.blob());
}

document.addEventListener("DOMContentLoaded", () => {
  setUpLanguage();
  $("claim-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      $("claim-error").textContent = "";
      const result = await call("/api/claim", { code: $("claim-code") ? $("claim-code").value : "",
        password: $("claim-password").value });
      localStorage.setItem(TOKEN_KEY, result.token);
      $("claim-form-box").hidden = true;
      $("claimed").hidden = false;
      await showQr();
    } catch (error) { $("claim-error").textContent = error.message; }
  });
});
