// The replay viewer's keys: ← and → step, Home and End jump; each presses the matching button,
// so the keyboard and the mouse take the same htmx path (and the same shareable URL).
(function () {
  "use strict";
  var keys = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    var step = keys[event.key];
    if (!step || event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    var button = document.querySelector('#replay [data-step="' + step + '"]');
    if (!button) return;
    event.preventDefault();
    if (button.disabled) return;
    // A key pressed just after a swap can beat htmx to the new button: process it first
    // (idempotent), so the click always makes its request.
    if (window.htmx) window.htmx.process(button);
    button.click();
  });
})();

// Keep the current turn of the move list in view as the steps go by.
document.addEventListener("htmx:afterSettle", function () {
  var current = document.querySelector(".move-log__list--replay .is-current");
  if (current) current.scrollIntoView({ block: "nearest" });
});
