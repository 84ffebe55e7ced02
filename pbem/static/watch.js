/* The public page of a running game is its watch link: it asks the server for
   the game's version now and then (an ETag: "304 Not Modified" while nothing
   changed, which costs the server one small query) and, when it changed, fetches
   the page again and swaps its content in, saying so to screen readers.
   Without this script the page is the same, with a link to refresh it. */
(function () {
  "use strict";

  var FAST = 10000;   // after a change, or when the tab comes back
  var SLOW = 120000;  // a turn can take days: ask less and less often
  var root = document.getElementById("watch");
  var note = document.getElementById("watch-note");
  if (!root || !note || !window.fetch || !window.DOMParser) return;
  var poll = root.getAttribute("data-poll");
  var version = root.getAttribute("data-version");
  if (!poll || !version) return;
  var wait = FAST;
  var timer = null;
  var busy = false;

  function live() {
    var line = document.getElementById("watch-refresh");
    if (!line) return;
    var text = line.querySelector(".watch-refresh-text");
    if (text && line.getAttribute("data-live")) text.textContent = line.getAttribute("data-live");
  }

  function schedule(ms) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(check, ms);
  }

  function running(status) {
    return status === "invited" || status === "active";
  }

  function check() {
    timer = null;
    if (document.hidden || busy) return;  // picked up again when the tab is shown
    busy = true;
    fetch(poll, { headers: { "If-None-Match": '"' + version + '"' }, cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (r.status === 304) return null;
        if (!r.ok) throw new Error("watch: " + r.status);
        return r.json();
      })
      .then(function (seen) {
        if (!seen || seen.version === version) {
          wait = Math.min(SLOW, Math.round(wait * 1.5));
          return null;
        }
        return refresh();
      })
      .catch(function () {
        wait = SLOW;
      })
      .then(function () {
        busy = false;
        if (running(root.getAttribute("data-status"))) schedule(wait);
      });
  }

  function refresh() {
    return fetch(window.location.pathname, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("watch: " + r.status);
        return r.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("watch");
        if (!fresh) return;
        var before = root.getAttribute("data-ply");
        var after = fresh.getAttribute("data-ply");
        root.parentNode.replaceChild(document.importNode(fresh, true), root);
        root = document.getElementById("watch");
        version = root.getAttribute("data-version") || version;
        if (doc.title) document.title = doc.title;
        live();
        var status = root.getAttribute("data-status");
        if (after !== before) note.textContent = note.getAttribute(running(status) ? "data-moved" : "data-over");
        else note.textContent = note.getAttribute("data-changed");
        wait = FAST;
        // app.js shows the new times in the reader's zone.
        document.dispatchEvent(new CustomEvent("pbem:updated"));
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && running(root.getAttribute("data-status"))) {
      wait = FAST;
      schedule(0);
    }
  });

  live();
  schedule(wait);
})();
