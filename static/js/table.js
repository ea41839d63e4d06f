// Keep the newest table. A move's HTTP response and the websocket's pushes can arrive in either
// order; each table carries the game's version, and an older one never replaces a newer one.
// After a turn the socket brings only what it changed (the seats' heads, a hand or two, the pile,
// one move-log line, the controls and actions), from the version before: a page showing another
// version asks for the whole table.
(function () {
  "use strict";

  const TABLE_VERSION = /id="table"[^>]*data-version="(\d+)"/;
  const TURN = /^<div id="table-turn"[^>]*data-version="(\d+)"[^>]*data-base="(\d+)"/;

  function versionIn(html) {
    const match = TABLE_VERSION.exec(html);
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

  function wholeTable() {
    htmx.ajax("GET", window.location.pathname, { target: "#table", swap: "outerHTML" });
  }

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    const message = event.detail.message;
    const turn = TURN.exec(message);
    if (turn) {
      const shown = shownVersion();
      if (Number(turn[1]) <= shown) event.preventDefault(); // had it already
      else if (Number(turn[2]) !== shown) {
        event.preventDefault();
        wholeTable(); // a version went missing on the way
      }
      return;
    }
    if (isStale(message)) event.preventDefault();
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

  // A turn's update opens with the table's new state (#table-turn): the table takes it, and the
  // log's new line becomes the only current one.
  const STATE = ["ply", "version", "status", "claim", "myTurn"];
  document.addEventListener("htmx:wsAfterMessage", function () {
    const table = document.getElementById("table");
    const turn = document.getElementById("table-turn");
    if (!table || !turn || turn.dataset.base === undefined) return;
    for (const name of STATE) {
      if (turn.dataset[name] === undefined) delete table.dataset[name];
      else table.dataset[name] = turn.dataset[name];
    }
    delete turn.dataset.base;
    const current = table.querySelectorAll('#move-log [aria-current="step"]');
    for (let i = 0; i < current.length - 1; i++) current[i].removeAttribute("aria-current");
  });

  // A beat is two clicks: the beating card, then a second card. The table carries the second
  // cards once, hidden; picking a card shows them under its hint, with no request to the
  // server: each button's turn becomes that card's beat, and the card itself is not offered.
  function pick(beater) {
    const table = document.getElementById("table");
    if (!table) return;
    table.querySelectorAll("[data-beater]").forEach(function (card) {
      const picked = card === beater;
      card.setAttribute("aria-pressed", String(picked));
      card.classList.toggle("card--picked", picked);
    });
    const choice = document.getElementById("seconds");
    if (!choice) return;
    choice.hidden = !beater;
    if (!beater) return;
    const card = beater.dataset.beater;
    choice.querySelector(".controls__hint").textContent = beater.dataset.hint;
    choice.querySelectorAll("[data-second]").forEach(function (button) {
      button.value = card + "-" + button.dataset.second;
      button.hidden = button.dataset.second === card;
    });
  }

  document.addEventListener("click", function (event) {
    const beater = event.target.closest("#table [data-beater]");
    if (beater) {
      const choosing = beater.getAttribute("aria-pressed") !== "true";
      pick(choosing ? beater : null);
      const first = document.querySelector("#seconds [data-second]:not([hidden])");
      if (choosing && first) first.focus();
      return;
    }
    if (event.target.closest("#table [data-unpick]")) {
      const picked = document.querySelector('#table [data-beater][aria-pressed="true"]');
      pick(null);
      if (picked) picked.focus();
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
