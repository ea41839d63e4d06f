// A socket the server closes with 4012, the site's "service restart", reconnects as htmx's
// websocket extension reconnects one closed with 1012 (or lost: 1006): after a pause, longer with
// each failed try. The server closes its sockets so when its channel layer has lost Redis
// (yourtrumps_site/serving/layer_watch.py), and a page's new socket gets the table as it is then.
// Daphne lets an application close a socket only with 1000 or 3000-4999, hence a code of the
// site's own, shown to htmx as the one it knows through its documented socket factory.
(function () {
  "use strict";

  const RESTART = 4012;
  const SERVICE_RESTART = 1012;

  // The pause before the next try: random, under half a second, doubling with each failed try up
  // to 10 s (htmx's own starts under a second and doubles up to 64 s). A page is back within
  // seconds of a short restart and within 10 s of a long one, and a crowd's tries stay spread.
  htmx.config.wsReconnectDelay = function (retryCount) {
    return Math.random() * Math.min(500 * 2 ** retryCount, 10000);
  };

  htmx.createWebSocket = function (url) {
    const socket = new WebSocket(url, []);
    socket.binaryType = htmx.config.wsBinaryType;
    // Registered before htmx's own handler, so that it only ever sees the code it knows.
    socket.addEventListener("close", function (event) {
      if (event.code !== RESTART) return;
      event.stopImmediatePropagation();
      socket.dispatchEvent(
        new CloseEvent("close", {
          code: SERVICE_RESTART,
          reason: event.reason,
          wasClean: event.wasClean,
        }),
      );
    });
    return socket;
  };
})();
