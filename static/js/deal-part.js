// A player's part of the deal (game/engine/fairness.py): 32 random bytes from the browser, in
// hex, written into a form's part field as the form is sent (before htmx reads it: this listens
// in the capture phase). Without this script the field stays empty and the server draws the part.
(function () {
  "use strict";

  function randomPart() {
    const bytes = new Uint8Array(32);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, function (byte) {
      return byte.toString(16).padStart(2, "0");
    }).join("");
  }

  document.addEventListener(
    "submit",
    function (event) {
      const form = event.target;
      if (!(form instanceof HTMLFormElement)) return;
      form.querySelectorAll("input[data-deal-part]").forEach(function (input) {
        input.value = randomPart();
      });
    },
    true,
  );
})();
