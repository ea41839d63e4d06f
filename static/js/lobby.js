// The lobby: when someone joins this player's seek, the socket says so (#seek-joined) and the
// page goes to the table at once, as lichess does; the notice's link stays for a page that
// cannot follow it.
(function () {
  "use strict";

  document.addEventListener("htmx:wsOpen", function () {
    document.body.dataset.ws = "open"; // browser tests wait for the socket before acting
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    const joined = document.getElementById("seek-joined");
    if (joined && joined.dataset.table) window.location.assign(joined.dataset.table);
  });
})();
