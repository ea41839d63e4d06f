// The replay viewer's keys: ← and → step, Home and End jump, as the buttons do, along the same
// htmx path (and to the same shareable URL). Steps pressed faster than the answers come add up:
// the key works out the ply it wants from the last one asked for, not from the page shown, and a
// newer step replaces a request still on its way (hx-sync on #replay).
(function () {
  "use strict";
  var keys = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
  var wanted = null; // the ply last asked for by a key, until the page shows it
  var askedAgain = null; // the wanted ply asked for a second time (once is enough)
  var controlFocused = false; // a step control had the focus when the replay was swapped

  function plyFor(step, replay) {
    var from = wanted !== null ? wanted : Number(replay.dataset.ply);
    var last = Number(replay.dataset.last);
    if (step === "first") return 0;
    if (step === "last") return last;
    return Math.min(last, Math.max(0, from + (step === "next" ? 1 : -1)));
  }

  // Asks for the ply wanted through the step's button: the same element, attributes and history
  // as a click. The button carries hx-push-url itself: when its answer comes after a newer page
  // has replaced its own, htmx looks for the attribute up a detached button's parents, finds
  // none, and the address would stay behind the ply shown.
  function ask(replay, step, ply) {
    var button = replay.querySelector('[data-step="' + step + '"]');
    if (!button) return;
    button.disabled = false;
    button.setAttribute("hx-get", replay.dataset.url + "?ply=" + ply);
    button.setAttribute("hx-push-url", "true");
    if (window.htmx) window.htmx.process(button);
    button.click();
  }

  document.addEventListener("keydown", function (event) {
    var step = keys[event.key];
    if (!step || event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    var replay = document.getElementById("replay");
    if (!replay || !replay.querySelector('[data-step="' + step + '"]')) return;
    event.preventDefault();
    var ply = plyFor(step, replay);
    var current = wanted !== null ? wanted : Number(replay.dataset.ply);
    if (ply === current) return;
    wanted = ply;
    ask(replay, step, ply);
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var active = document.activeElement;
    controlFocused = event.detail.target.id === "replay" && !!active && !!active.closest &&
      !!active.closest(".replay__controls");
  });

  document.addEventListener("htmx:afterSettle", function () {
    var replay = document.getElementById("replay");
    if (!replay) return;
    // htmx gives the focus back to the control of the same id; at either end of the game that
    // button is disabled, and the focus would fall to the page: keep it on a step that can go.
    if (controlFocused && !replay.contains(document.activeElement)) {
      var step = replay.querySelector(
        '[data-step="previous"]:not(:disabled), [data-step="next"]:not(:disabled)'
      );
      if (step) step.focus();
    }
    controlFocused = false;
    // The address names the ply shown, whatever order the answers came in: after a quick run of
    // keys it could stay one step behind (an answer swapped in without its push).
    var address = replay.dataset.url + "?ply=" + replay.dataset.ply;
    if (location.pathname + location.search !== address) {
      history.replaceState(history.state, "", address);
    }
    if (wanted !== null) {
      var shown = Number(replay.dataset.ply);
      // A key pressed while the page was being swapped clicked a button on its way out, and
      // htmx drops that request: ask again until the page shows the ply last wanted.
      if (shown === wanted || askedAgain === wanted) {
        wanted = askedAgain = null;
      } else {
        askedAgain = wanted;
        ask(replay, wanted > shown ? "next" : "previous", wanted);
      }
    }
    // Keep the current turn of the move list in view as the steps go by.
    var current = document.querySelector(".move-log__list--replay .is-current");
    if (current) current.scrollIntoView({ block: "nearest" });
  });
})();
