// The lobby's quick pairing (game/pool.py): a time control's button opens the pool's socket and
// sends the choice; the socket answers with where the search stands (the range of ratings
// widening each second), the new table's address once paired, or why it refused. Cancel, or
// leaving the page, closes the socket, and the server takes the player out of the pool.
(function () {
  "use strict";

  const pool = document.getElementById("pool");
  if (!pool) return;
  const clocks = pool.querySelectorAll("[data-clock]");
  const casual = document.getElementById("pool-casual");
  const waiting = pool.querySelector(".pool__waiting");
  const status = pool.querySelector(".pool__status");
  const cancel = pool.querySelector(".pool__cancel");
  const notice = pool.querySelector(".pool__notice");
  let socket = null;
  let chosen = null;

  function show(searching) {
    waiting.hidden = !searching;
    casual.disabled = searching;
    clocks.forEach(function (button) {
      button.disabled = searching;
      button.setAttribute("aria-pressed", String(searching && button === chosen));
    });
    if (searching) cancel.focus();
    else if (chosen && document.activeElement === document.body) chosen.focus();
  }

  function leave() {
    const open = socket;
    socket = null;
    if (open) open.close();
    show(false);
  }

  function enter(button) {
    leave();
    chosen = button;
    notice.textContent = "";
    notice.className = "pool__notice";
    const url = new URL(pool.dataset.socket, window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const opened = (socket = new WebSocket(url));
    status.textContent = pool.dataset.looking;
    show(true);
    opened.addEventListener("open", function () {
      opened.send(JSON.stringify({ clock: button.dataset.clock, rated: !casual.checked }));
    });
    opened.addEventListener("message", function (event) {
      const answer = JSON.parse(event.data);
      if (answer.url) {
        window.location.assign(answer.url);
      } else if (answer.status) {
        status.textContent = answer.status;
      } else if (answer.error) {
        notice.textContent = answer.error;
        notice.className = "pool__notice notice notice--error";
      }
    });
    opened.addEventListener("close", function () {
      if (socket !== opened) return; // cancelled, or replaced by another choice
      socket = null;
      show(false);
    });
  }

  clocks.forEach(function (button) {
    button.disabled = false;
    button.addEventListener("click", function () {
      enter(button);
    });
  });
  cancel.addEventListener("click", leave);
})();
