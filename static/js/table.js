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

  // On (re)connecting, the socket sends the table as the server has it. When the page already
  // shows that version, keep the page's own: a choice half made (a trump picked in the join form,
  // a beating card picked) is not wiped by a copy of what is already there.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    const incoming = event.detail.fragment && event.detail.fragment.firstElementChild;
    if (!incoming || incoming.id !== "table" || event.detail.target.id !== "table") return;
    // A refused turn comes back at the shown version, saying why: that one is swapped in.
    if (incoming.querySelector(".notice--error")) return;
    if (Number(incoming.dataset.version) <= shownVersion()) event.detail.shouldSwap = false;
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    if (typeof event.detail.serverResponse === "string" && isStale(event.detail.serverResponse)) {
      event.detail.shouldSwap = false;
    }
  });

  // A beat is two clicks: the beating card, then a second card. The table carries each beating
  // card's second cards, hidden; picking the card shows them, with no request to the server.
  function pick(beater) {
    const table = document.getElementById("table");
    if (!table) return;
    table.querySelectorAll("[data-beater]").forEach(function (card) {
      const picked = card === beater;
      card.setAttribute("aria-pressed", String(picked));
      card.classList.toggle("card--picked", picked);
      const choice = document.getElementById(card.getAttribute("aria-controls"));
      if (choice) choice.hidden = !picked;
    });
  }

  document.addEventListener("click", function (event) {
    const beater = event.target.closest("#table [data-beater]");
    if (beater) {
      const choosing = beater.getAttribute("aria-pressed") !== "true";
      pick(choosing ? beater : null);
      const choice = document.getElementById(beater.getAttribute("aria-controls"));
      const first = choice && choice.querySelector(".seconds button");
      if (choosing && first) first.focus();
      return;
    }
    const unpick = event.target.closest("#table [data-unpick]");
    if (unpick) {
      const choice = unpick.closest(".second-cards");
      pick(null);
      const card = choice && document.querySelector('[aria-controls="' + choice.id + '"]');
      if (card) card.focus();
    }
  });

  // The running clock counts down between the server's updates; when it reaches zero, the page
  // asks the server to judge the time-out (the server keeps the clocks and decides).
  let claimed = null;
  function tick() {
    const table = document.getElementById("table");
    const clock = document.querySelector("#table .clock--running");
    if (!table || !clock) return;
    const key = table.dataset.version;
    if (clock.dataset.key !== key) {
      clock.dataset.key = key;
      clock.dataset.started = String(Date.now());
    }
    const left = Number(clock.dataset.ms) - (Date.now() - Number(clock.dataset.started));
    clock.textContent = format(left);
    if (left <= 0 && claimed !== key && table.dataset.claim) {
      claimed = key;
      htmx.ajax("POST", table.dataset.claim, { target: "#table", swap: "outerHTML" });
    }
  }

  function format(ms) {
    const clamped = Math.max(0, ms);
    if (clamped < 10000) return "0:" + (clamped / 1000).toFixed(1).padStart(4, "0");
    const seconds = Math.floor(clamped / 1000);
    return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  setInterval(tick, 100);

  // While the socket is open it brings every new table, this page's own moves included, in
  // version order. A turn goes over it too (no HTTP request to make or to serve); any other
  // POST says the socket is live, and the server answers one that landed with no copy.
  let socket = null;
  document.addEventListener("htmx:wsOpen", function (event) {
    socket = event.detail.socketWrapper;
    document.body.dataset.ws = "open"; // browser tests wait for the socket before acting
  });
  document.addEventListener("htmx:wsClose", function () {
    socket = null;
  });
  document.addEventListener("htmx:configRequest", function (event) {
    if (socket && event.detail.verb === "post") event.detail.headers["X-Table-Live"] = "1";
  });
  document.addEventListener("htmx:confirm", function (event) {
    const form = event.detail.elt;
    if (!socket || !(form instanceof HTMLFormElement) || !form.hasAttribute("data-turn")) return;
    event.preventDefault();
    const submitter = event.detail.triggeringEvent && event.detail.triggeringEvent.submitter;
    const fields = new FormData(form, submitter || null);
    const turn = { move: fields.get("move"), ply: Number(fields.get("ply")) };
    socket.send(JSON.stringify(turn), form);
  });
})();
