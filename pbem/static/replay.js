/* The replay page: step through a finished game without reloading.  The page
   works without this (its buttons and slider are GET forms, its moves links);
   this fetches each position's part of the page (?part=step) and swaps it in,
   keeping the positions it has seen and the ones next to them. */
(function () {
  "use strict";

  var controls = document.getElementById("replay-controls");
  if (!controls || !window.fetch || !document.createElement("template").content) return;
  var url = controls.getAttribute("data-step-url");
  var moves = parseInt(controls.getAttribute("data-moves"), 10);
  var slider = document.getElementById("replay-ply");
  var number = document.getElementById("replay-number");
  var status = document.getElementById("replay-status");
  var show = document.getElementById("replay-show");
  var buttons = {
    first: document.getElementById("replay-first"),
    back: document.getElementById("replay-back"),
    forward: document.getElementById("replay-forward"),
    last: document.getElementById("replay-last")
  };
  var cache = {};
  var current = parseInt(document.getElementById("replay-step").getAttribute("data-ply"), 10);
  var wanted = current;
  var timer = null;

  if (show) show.hidden = true;  // the slider steps by itself

  function label(ply) {
    if (!ply) return controls.getAttribute("data-setup-text");
    return controls.getAttribute("data-move-text").replace("{number}", String(ply));
  }

  function load(ply) {
    if (!cache[ply]) {
      cache[ply] = fetch(url + "?ply=" + ply + "&part=step", { credentials: "same-origin" })
        .then(function (r) {
          if (!r.ok) throw new Error("replay: " + r.status);
          return r.text();
        })
        .catch(function (e) {
          delete cache[ply];
          throw e;
        });
    }
    return cache[ply];
  }

  function setControls(ply) {
    buttons.first.value = "0";
    buttons.back.value = String(Math.max(ply - 1, 0));
    buttons.forward.value = String(Math.min(ply + 1, moves));
    buttons.last.value = String(moves);
    buttons.first.disabled = buttons.back.disabled = ply <= 0;
    buttons.forward.disabled = buttons.last.disabled = ply >= moves;
    slider.value = String(ply);
    slider.setAttribute("aria-valuetext", label(ply));
    number.textContent = ply + "/" + moves;
    var links = document.querySelectorAll(".replay-history a");
    Array.prototype.forEach.call(links, function (a) {
      if (a.parentNode.getAttribute("data-ply") === String(ply)) a.setAttribute("aria-current", "step");
      else a.removeAttribute("aria-current");
    });
  }

  function swap(ply, html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    var fresh = template.content.querySelector("#replay-step");
    var old = document.getElementById("replay-step");
    if (!fresh || !old) return;
    // Keep what the reader's focus was on when it is inside the swapped part.
    var focused = old.contains(document.activeElement);
    old.parentNode.replaceChild(fresh, old);
    current = ply;
    var title = fresh.querySelector("#step-title");
    var sentence = fresh.querySelector("#step-sentence");
    status.textContent = (title ? title.textContent : "") + (sentence ? ": " + sentence.textContent : "");
    if (focused && title) {
      title.setAttribute("tabindex", "-1");
      title.focus();
    }
    if (window.history && history.replaceState) {
      history.replaceState(null, "", url + "?ply=" + ply);
    }
  }

  function go(ply) {
    ply = Math.max(0, Math.min(moves, ply));
    wanted = ply;
    var active = document.activeElement;
    setControls(ply);
    // A button that has just become disabled (the first or last position) drops
    // the focus: hand it to the one that still steps.
    if (active && active.disabled) (ply >= moves ? buttons.back : buttons.forward).focus();
    load(ply).then(function (html) {
      if (wanted !== ply) return;  // the reader has moved on meanwhile
      swap(ply, html);
      // The neighbours, so that the next step is at once.
      if (ply < moves) load(ply + 1).catch(function () {});
      if (ply > 0) load(ply - 1).catch(function () {});
    }).catch(function () {
      // Whatever went wrong, the page without this script still works.
      window.location.href = url + "?ply=" + ply;
    });
  }

  Object.keys(buttons).forEach(function (name) {
    buttons[name].addEventListener("click", function (event) {
      event.preventDefault();
      go(parseInt(buttons[name].value, 10));
    });
  });

  slider.addEventListener("input", function () {
    var ply = parseInt(slider.value, 10);
    number.textContent = ply + "/" + moves;
    slider.setAttribute("aria-valuetext", label(ply));
    // Dragging: wait until the thumb rests a moment.
    if (timer) clearTimeout(timer);
    timer = setTimeout(function () { go(ply); }, 120);
  });
  slider.form.addEventListener("submit", function (event) {
    event.preventDefault();
    go(parseInt(slider.value, 10));
  });

  var history_ = document.querySelector(".replay-history");
  if (history_) {
    history_.addEventListener("click", function (event) {
      var a = event.target.closest ? event.target.closest("a") : null;
      if (!a || event.ctrlKey || event.metaKey || event.shiftKey || event.button) return;
      event.preventDefault();
      go(parseInt(a.parentNode.getAttribute("data-ply"), 10));
      controls.scrollIntoView({ block: "start" });
    });
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    var target = event.target;
    // The slider moves itself with the arrows; fields and lists keep theirs.
    if (target && target.closest && target.closest("input, select, textarea, [contenteditable]")) return;
    event.preventDefault();
    go(wanted + (event.key === "ArrowRight" ? 1 : -1));
  });

  setControls(current);
  if (current < moves) load(current + 1).catch(function () {});
})();
