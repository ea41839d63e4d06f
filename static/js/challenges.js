// The user's own socket (#user-socket, base.html) keeps #challenges current on every page. It is
// the page's second socket beside a table's or the lobby's: its events stop at its element, so
// that their scripts hear only their own socket (table.js sends turns over the socket it heard
// open). When the challenger's answer has a table, the page goes to it, as the lobby does for a
// seek joined; a challenge whose time is up leaves the page (the server no longer shows it).
(function () {
  "use strict";

  const socket = document.getElementById("user-socket");
  if (!socket) return;

  [
    "htmx:wsConnecting",
    "htmx:wsOpen",
    "htmx:wsClose",
    "htmx:wsError",
    "htmx:wsBeforeMessage",
    "htmx:wsAfterMessage",
    "htmx:wsConfigSend",
    "htmx:wsBeforeSend",
    "htmx:wsAfterSend",
  ].forEach(function (name) {
    socket.addEventListener(name, function (event) {
      event.stopPropagation();
    });
  });

  socket.addEventListener("htmx:wsOpen", function () {
    document.body.dataset.userWs = "open"; // browser tests wait for this socket before acting
  });
  socket.addEventListener("htmx:wsAfterMessage", function () {
    const accepted = document.querySelector("#challenges [data-table]");
    if (accepted) window.location.assign(accepted.dataset.table);
  });

  // An answer (only ever heard over the socket) stays until the page changes or its reader
  // closes it.
  document.addEventListener("click", function (event) {
    const button = event.target.closest("#challenges [data-dismiss]");
    if (button) button.closest(".challenge").remove();
  });

  window.setInterval(function () {
    const now = Date.now();
    document.querySelectorAll("#challenges [data-expires]").forEach(function (challenge) {
      if (Number(challenge.dataset.expires) <= now) challenge.remove();
    });
  }, 5000);
})();
