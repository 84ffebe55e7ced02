/* A player's own seat page follows its game, as the public watch page does
   (watch.js): it asks for the seat page's version every few seconds (an ETag:
   "304 Not Modified" while nothing changed, one small query on the server) and,
   when it changed, fetches the page again and swaps its content in — unless the
   player is choosing a move or writing something: then it says so and offers a
   button, and swaps only when they ask or have finished.  The tab's title and
   icon say when it is their turn, with a mark ("(!)" and a badge), not a colour.

   While the player is there (the tab is shown and they used it lately) it also
   tells the server so now and then, with a POST: their turn mail waits while
   they are, and goes if they leave (pbem.table.watching).  Opening the link alone
   never counts: mail scanners open links too.

   It also counts the others' table messages this browser has not shown yet
   ("2 new messages at the table", next to the board's heading).

   Without this script the page is the same, and a reload shows what changed. */
(function () {
  "use strict";

  var FAST = 3000;      // after a change: a computer answers within seconds
  var SLOW = 10000;     // nothing changed for a while: still within a few seconds
  var HIDDEN = 30000;   // a tab in the background only updates its title and icon
  var IDLE = 300000;    // no key, tap or scroll for five minutes: not "there"
  var root = document.getElementById("seat");
  var note = document.getElementById("seat-note");
  if (!root) return;

  var data = readData();
  var poll = root.getAttribute("data-poll");
  var here = root.getAttribute("data-here");
  var version = root.getAttribute("data-version");
  var latest = version;  // the newest version the server named
  var wait = FAST;
  var timer = null;
  var asking = false;

  function readData() {
    var el = document.getElementById("seat-data");
    try {
      return JSON.parse(el ? el.textContent : "{}") || {};
    } catch (e) {
      return {};
    }
  }

  function running(status) {
    return status === "invited" || status === "waiting" || status === "active";
  }

  function status() {
    return root.getAttribute("data-status");
  }

  /* -- the title and the icon --------------------------------------------- */

  function mark(turn) {
    if (!note) return;
    var title = note.getAttribute(turn ? "data-title-turn" : "data-title");
    if (title) document.title = title;
    var icon = document.getElementById("favicon");
    var href = note.getAttribute(turn ? "data-icon-turn" : "data-icon");
    if (icon && href && icon.getAttribute("href") !== href) icon.setAttribute("href", href);
  }

  function announce(text) {
    var el = document.getElementById("seat-note-text");
    if (el && text) el.textContent = text;
  }

  /* -- is the player in the middle of something? --------------------------- */

  function browserZone() {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (e) {
      return "";
    }
  }

  function changed(el) {
    var type = (el.type || "").toLowerCase();
    if (type === "hidden" || type === "submit" || type === "button") return false;
    if (type === "checkbox" || type === "radio") return el.checked !== el.defaultChecked;
    if (el.tagName === "SELECT") {
      var first = -1;
      for (var i = 0; i < el.options.length; i++) {
        if (el.options[i].defaultSelected) { first = i; break; }
      }
      return el.selectedIndex !== (first < 0 ? 0 : first);
    }
    if (el.value === el.defaultValue) return false;
    // app.js fills in the browser's time zone: that is not the player's doing.
    return !(el.hasAttribute("data-offer-browser-zone") && el.value === browserZone());
  }

  function choosing() {
    if (root.querySelector("#board svg.is-picking")) return true;  // a territory is picked
    // The list's move (filled in from a reply's link too) and the talk being written.
    var kept = ["move-select", "move-text", "move-order", "talk-text"];
    for (var i = 0; i < kept.length; i++) {
      var el = document.getElementById(kept[i]);
      if (el && el.value && el.value.trim()) return true;
    }
    var fields = root.querySelectorAll("input, textarea, select");
    for (var j = 0; j < fields.length; j++) {
      if (changed(fields[j])) return true;
    }
    var active = document.activeElement;
    return !!(active && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName) && active.type !== "hidden");
  }

  function offer(turn) {
    var line = document.getElementById("seat-update");
    if (!line) return;
    var text = line.querySelector(".seat-update-text");
    if (text) text.textContent = text.getAttribute(turn ? "data-turn" : "data-other");
    if (line.hidden) {
      line.hidden = false;
      announce(text ? text.textContent : "");
    }
  }

  /* -- following the game ---------------------------------------------------- */

  function schedule(ms) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(check, ms);
  }

  function next() {
    if (running(status())) schedule(document.hidden ? HIDDEN : wait);
  }

  function check() {
    timer = null;
    if (asking || !poll || !version) return;
    asking = true;
    var stop = false;
    fetch(poll, { headers: { "If-None-Match": '"' + version + '"' }, cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (r.status === 304) return null;
        if (r.status === 401 || r.status === 404) stop = true;  // the link was replaced
        if (!r.ok) throw new Error("seat: " + r.status);
        return r.json();
      })
      .then(function (seen) {
        if (!seen || seen.version === version) {
          wait = Math.min(SLOW, Math.round(wait * 1.5));
          return null;
        }
        if (seen.version !== latest) wait = FAST;  // something new: look again soon
        latest = seen.version;
        mark(seen.your_turn && seen.status === "active");
        if (choosing()) {
          offer(seen.your_turn && seen.status === "active");
          return null;
        }
        return refresh();
      })
      .catch(function () {
        wait = HIDDEN;
      })
      .then(function () {
        asking = false;
        if (!stop) next();
      });
  }

  function refresh() {
    return fetch(window.location.pathname, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("seat: " + r.status);
        return r.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("seat");
        if (!fresh) return;
        var before = root.getAttribute("data-ply");
        var wasTurn = root.getAttribute("data-your-turn") === "yes";
        var unreadBefore = unread();
        var focused = document.activeElement && root.contains(document.activeElement) ? document.activeElement.id : "";
        root.parentNode.replaceChild(document.importNode(fresh, true), root);
        root = document.getElementById("seat");
        version = latest = root.getAttribute("data-version") || version;
        data = readData();
        var line = document.getElementById("seat-update");
        if (line) line.hidden = true;
        var turn = root.getAttribute("data-your-turn") === "yes";
        mark(turn);
        if (doc.title) document.title = doc.title;
        if (note) {
          if (turn && !wasTurn) announce(note.getAttribute("data-your-turn"));
          else if (!running(status())) announce(note.getAttribute("data-over"));
          else if (root.getAttribute("data-ply") !== before) announce(note.getAttribute("data-moved"));
          else if (unread() > unreadBefore) announce((data.unread || {})[String(unread())]);
        }
        wait = FAST;
        // app.js writes the new times in the reader's zone; play.js sets up the new board.
        document.dispatchEvent(new CustomEvent("pbem:updated"));
        document.dispatchEvent(new CustomEvent("pbem:seat-updated"));
        settle();
        if (focused) {
          var again = document.getElementById(focused);
          if (again) again.focus({ preventScroll: true });
        }
      });
  }

  var button = document.getElementById("seat-update-now");
  if (button) {
    button.addEventListener("click", function () {
      refresh().catch(function () {
        window.location.reload();
      });
    });
  }

  /* -- "I am here" ------------------------------------------------------------ */

  var lastActive = Date.now();
  var beatTimer = null;

  function there() {
    return !document.hidden && Date.now() - lastActive < IDLE;
  }

  function beat() {
    if (beatTimer) clearTimeout(beatTimer);
    beatTimer = null;
    // Before the start too: accepting a game against the computer starts it, and
    // the first turn (maybe the player's) comes before the next page has loaded.
    if (!here || !running(status())) return;
    var token = document.querySelector('input[name="csrf_token"]');
    if (there() && token) {
      var body = new URLSearchParams();
      body.set("csrf_token", token.value);
      fetch(here, { method: "POST", body: body, credentials: "same-origin", cache: "no-store" })
        .catch(function () {});
    }
    beatTimer = setTimeout(beat, Number(data.here_every) || 30000);
  }

  function used() {
    var idle = Date.now() - lastActive >= IDLE;
    lastActive = Date.now();
    if (idle) beat();  // back after a while: say so at once
  }

  ["pointerdown", "keydown", "scroll", "touchstart", "mousemove", "focus"].forEach(function (name) {
    window.addEventListener(name, used, { passive: true, capture: true });
  });

  /* -- unread table talk ------------------------------------------------------ */

  function readKey() {
    return "pbem:talk-read:" + data.game + ":" + data.seat;
  }

  function lastRead() {
    try {
      return Number(window.localStorage.getItem(readKey())) || 0;
    } catch (e) {
      return 0;
    }
  }

  function unread() {
    var seen = lastRead();
    return (data.talk || []).filter(function (id) { return id > seen; }).length;
  }

  function showUnread() {
    var link = document.getElementById("talk-jump");
    if (!link) return;
    var text = link.querySelector(".talk-jump-text");
    if (!text) return;
    if (!link.hasAttribute("data-plain")) link.setAttribute("data-plain", text.textContent);
    var n = unread();
    link.classList.toggle("has-new", n > 0);
    text.textContent = n > 0 ? (data.unread || {})[String(n)] || link.getAttribute("data-plain")
      : link.getAttribute("data-plain");
  }

  function markRead() {
    var ids = data.talk || [];
    if (!ids.length) return;
    var top = Math.max.apply(null, ids);
    try {
      if (top > lastRead()) window.localStorage.setItem(readKey(), String(top));
    } catch (e) {
      return;
    }
    showUnread();
  }

  var watcher = null;

  function watchTalk() {
    var talk = document.getElementById("talk");
    var link = document.getElementById("talk-jump");
    if (link) link.addEventListener("click", markRead);
    if (!talk) return;
    talk.addEventListener("focusin", markRead);
    if (!window.IntersectionObserver) return;
    if (watcher) watcher.disconnect();
    // Read once the messages have been on screen.
    var list = talk.querySelector(".talk-list") || talk;
    watcher = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) markRead();
    }, { threshold: 0.5 });
    watcher.observe(list);
  }

  /* What the page says once it follows the game by itself. */
  function live() {
    Array.prototype.forEach.call(root.querySelectorAll("[data-live]"), function (el) {
      el.textContent = el.getAttribute("data-live");
    });
  }

  function settle() {
    live();
    showUnread();
    watchTalk();
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) return;
    used();
    beat();
    if (running(status())) {
      wait = FAST;
      schedule(0);
    }
  });

  settle();
  beat();
  if (poll && version) next();
})();
