/* Clans by Mail: small progressive enhancements for every page. */
(function () {
  "use strict";

  /* The page's language (<html lang>), so dates read as the rest of the page; on an
     English page, the browser's own English (en-GB writes 13:28, en-US 1:28 PM). */
  var lang = document.documentElement.lang;
  if (!lang || lang === "en") lang = undefined;

  /* Times are rendered in the seat's zone (UTC elsewhere) by the server; show them
     in the reader's own zone. */
  function localiseTimes() {
    var full, dateOnly, relative = null;
    try {
      full = new Intl.DateTimeFormat(lang, {
        weekday: "long", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"
      });
      dateOnly = new Intl.DateTimeFormat(lang, { weekday: "long", day: "numeric", month: "short" });
      if (Intl.RelativeTimeFormat) relative = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
    } catch (e) {
      return;
    }
    var times = document.querySelectorAll("time[data-local]");
    Array.prototype.forEach.call(times, function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (isNaN(when.getTime())) return;
      if (!el.title) el.title = el.textContent.trim();
      var text = (el.getAttribute("data-style") === "date" ? dateOnly : full).format(when);
      if (relative && el.hasAttribute("data-relative")) {
        var minutes = (when.getTime() - Date.now()) / 60000;
        var phrase;
        if (Math.abs(minutes) < 90) phrase = relative.format(Math.round(minutes), "minute");
        else if (Math.abs(minutes) < 36 * 60) phrase = relative.format(Math.round(minutes / 60), "hour");
        else phrase = relative.format(Math.round(minutes / 1440), "day");
        text += " (" + phrase + ")";
      }
      el.textContent = text;
    });
  }

  /* A seat with no time zone yet: offer the browser's (saved only when they press Save). */
  function offerTimeZone() {
    var input = document.querySelector("input[data-offer-browser-zone]");
    if (!input || input.value) return;
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    if (!zone) return;
    input.value = zone;
    var help = document.getElementById(input.getAttribute("aria-describedby"));
    if (help && input.getAttribute("data-note")) help.textContent = input.getAttribute("data-note");
  }

  function ready() {
    localiseTimes();
    offerTimeZone();
  }

  // A page that swaps in fresh content (watch.js) asks for its times again.
  document.addEventListener("pbem:updated", localiseTimes);

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
