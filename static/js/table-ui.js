// The table's manners, each time a new table arrives (a move's answer or the socket's push):
// focus goes to the next action, the tab's title (and, if asked for, a quiet sound) says when it
// is your turn, a screen reader hears the opponent's turn in words, the move log shows the
// latest turn, what the reader opened (the deal's commitment) stays open, and a rematch or a
// started game takes the page along; and Escape puts a picked beating card back. Every text
// shown comes from the server-rendered page (it is translated there).
(function () {
  "use strict";

  const baseTitle = document.title;
  const SOUND_KEY = "yourtrumps.turn-sound";
  let shownVersion = null;
  let myTurn = false;
  let rematchShown = false;
  let leaving = false; // the page is on its way to another (a rematch)
  const opened = new Set(); // the classes of the table's <details> the reader has open

  // The player who agrees to a rematch is sent to it twice, by their answer (HX-Redirect) and
  // by the table the socket brings: the second going would cut the first short.
  document.addEventListener("htmx:beforeOnLoad", function (event) {
    const xhr = event.detail.xhr;
    if (!xhr || !xhr.getResponseHeader("HX-Redirect")) return;
    if (leaving) event.preventDefault();
    leaving = true;
  });

  function table() {
    return document.getElementById("table");
  }

  // A waiting page whose opponent arrives becomes the whole game page, chat and report links
  // included: they belong to the page, not to the table the socket swaps in.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    const incoming = event.detail.fragment && event.detail.fragment.firstElementChild;
    const shown = event.detail.target;
    if (!incoming || incoming.id !== "table" || !shown || shown.id !== "table") return;
    if (shown.dataset.status === "seeking" && incoming.dataset.status === "active") {
      event.detail.shouldSwap = false;
      window.location.reload();
    }
  });

  // Where the next action is: a second card (once a beating card is picked: table.js), a card
  // to play, the take.
  const NEXT_ACTIONS = [
    ".second-cards:not([hidden]) .card--play:not([hidden])",
    ".hand .card--play",
    ".button--take",
    ".result .button",
    ".controls",
  ];

  function nextAction(shown) {
    for (const selector of NEXT_ACTIONS) {
      const found = shown.querySelector(selector);
      if (found) return found;
    }
    return null;
  }

  function focusNextAction(shown) {
    const focused = document.activeElement;
    // Only focus that the swap threw away moves: a reader typing in the chat keeps their place.
    if (focused && focused !== document.body && focused.isConnected) return;
    const target = nextAction(shown);
    if (!target) return;
    if (!target.matches("a, button, input, select, textarea")) target.tabIndex = -1;
    target.focus({ preventScroll: !target.classList.contains("card--play") });
  }

  function announce(shown) {
    const spoken = shown.querySelector("[data-spoken]");
    const page = shown.closest("[data-viewer]");
    const region = document.getElementById("table-announcer");
    if (!spoken || !region || !page) return;
    if (spoken.dataset.spoken === page.dataset.viewer) return; // one's own turn: already known
    region.textContent = spoken.textContent;
  }

  function soundOn() {
    const box = document.getElementById("turn-sound");
    return box !== null && box.checked;
  }

  function chime() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    const audio = new Context();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 660;
    volume.gain.setValueAtTime(0.05, audio.currentTime);
    volume.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    tone.connect(volume).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  }

  function showTurn(shown) {
    const turnText = shown.dataset.myTurn;
    document.title = turnText ? "● " + turnText + " · " + baseTitle : baseTitle;
    if (turnText && !myTurn && shownVersion !== null && soundOn()) chime();
    myTurn = Boolean(turnText);
  }

  function followLog(shown) {
    const log = shown.querySelector(".move-log__list");
    if (log) log.scrollTop = log.scrollHeight;
  }

  // Each new table comes closed: what the reader opened is opened again in it.
  document.addEventListener(
    "toggle",
    function (event) {
      const details = event.target;
      if (!(details instanceof HTMLDetailsElement) || !details.closest("#table")) return;
      if (details.open) opened.add(details.className);
      else if (details.isConnected) opened.delete(details.className);
    },
    true // toggle does not bubble
  );

  function reopen(shown) {
    for (const details of shown.querySelectorAll("details")) {
      if (opened.has(details.className)) details.open = true;
    }
  }

  function arrived() {
    const shown = table();
    if (!shown) return;
    reopen(shown);
    if (shown.dataset.version === shownVersion) return;
    const first = shownVersion === null;
    const follow = shown.querySelector("[data-follow]");
    if (leaving) return;
    showTurn(shown);
    followLog(shown);
    // A rematch that starts while the page is open takes it along (one opened later does not).
    if (follow && !rematchShown && !first) {
      leaving = true;
      window.location.assign(follow.href);
      return;
    }
    rematchShown = Boolean(follow);
    if (!first) {
      announce(shown);
      focusNextAction(shown);
    }
    shownVersion = shown.dataset.version;
  }

  function afterTable(event) {
    const target = event.detail && (event.detail.target || event.detail.elt);
    if (target && target.id !== "table" && !target.closest("#table")) return;
    window.setTimeout(arrived, 0); // once htmx has settled the new table
  }

  // Escape puts a picked beating card back: it presses that beat's "Cancel" (table.js).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    const cancel = document.querySelector("#table .second-cards:not([hidden]) [data-unpick]");
    if (!cancel) return;
    event.preventDefault();
    cancel.click();
  });

  document.addEventListener("htmx:afterSwap", afterTable);
  // A table the socket swapped in (its old element, which htmx tells, has left the page).
  document.addEventListener("htmx:wsAfterMessage", function () {
    window.setTimeout(arrived, 0);
  });

  // The banned are told why their page stopped following the game (the server closes their
  // socket with this code, and refuses it again).
  document.addEventListener("htmx:wsClose", function (event) {
    const close = event.detail && event.detail.event;
    const place = document.getElementById("socket-refused");
    const notice = document.getElementById("banned-notice");
    if (close && close.code === 4403 && place && notice && !place.firstChild) {
      place.append(notice.content.cloneNode(true));
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    const box = document.getElementById("turn-sound");
    if (box) {
      box.checked = window.localStorage.getItem(SOUND_KEY) === "on";
      box.addEventListener("change", function () {
        window.localStorage.setItem(SOUND_KEY, box.checked ? "on" : "off");
      });
    }
    arrived();
  });
})();
