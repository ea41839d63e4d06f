// Keep the newest table. A move's HTTP response and the websocket's pushes can arrive in either
// order; each table carries the game's version, and an older one never replaces a newer one.
(function () {
  "use strict";

  function versionIn(html) {
    const match = /id="table"[^>]*data-version="(\d+)"/.exec(html);
    return match ? Number(match[1]) : null;
  }

  function shownVersion() {
    const table = document.getElementById("table");
    return table ? Number(table.dataset.version) : null;
  }

  function isStale(html) {
    const incoming = versionIn(html);
    const shown = shownVersion();
    return incoming !== null && shown !== null && incoming < shown;
  }

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (isStale(event.detail.message)) event.preventDefault();
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    if (typeof event.detail.serverResponse === "string" && isStale(event.detail.serverResponse)) {
      event.detail.shouldSwap = false;
    }
  });

  // Browser tests wait for the socket before acting.
  document.addEventListener("htmx:wsOpen", function () {
    document.body.dataset.ws = "open";
  });
})();
