// Claiming a new station (web/claim.py): the code (unless at the station itself) and a password;
// then this browser logs in with it (the session cookie; the password is not kept) and shows the
// referee's link as a QR code.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  $("claim-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      $("claim-error").textContent = "";
      const result = await call("/api/claim", { code: $("claim-code") ? $("claim-code").value : "",
        password: $("claim-password").value });
      await logIn(result.token);
      $("claim-form-box").hidden = true;
      $("claimed").hidden = false;
      await showRefereeQr($("referee-qr"));
    } catch (error) { $("claim-error").textContent = error.message; }
  });
});
