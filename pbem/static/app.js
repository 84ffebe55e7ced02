/* Clans by Mail: small progressive enhancements for every page. */
(function () {
  "use strict";

  /* Times are rendered in UTC by the server; show them in the reader's own zone. */
  function localiseTimes() {
    var full, dateOnly, relative = null;
    try {
      full = new Intl.DateTimeFormat(undefined, {
        weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"
      });
      dateOnly = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short" });
      if (Intl.RelativeTimeFormat) relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
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

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", localiseTimes);
  } else {
    localiseTimes();
  }
})();
