// The game chat: keep the newest line in view whenever the log is replaced (on loading the page,
// when a line arrives over the websocket, after muting), unless the reader has scrolled up to
// read back; and after sending, leave the cursor in the (emptied) box to write the next line.
(function () {
  "use strict";

  let pinned = true;

  function follow() {
    const log = document.getElementById("chat-log");
    if (log && pinned) log.scrollTop = log.scrollHeight;
  }

  document.addEventListener(
    "scroll",
    function (event) {
      const log = document.getElementById("chat-log");
      if (event.target === log) {
        pinned = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
      }
    },
    true,
  );

  document.addEventListener("htmx:wsAfterMessage", function (event) {
    follow();
    // Only the sender is sent the chat form back: the answer to their line.
    if (event.detail.message.includes('id="chat-form"')) {
      const input = document.getElementById("chat-input");
      if (input) input.focus();
    }
  });
  document.addEventListener("htmx:afterSwap", follow);
  document.addEventListener("DOMContentLoaded", follow);
})();
