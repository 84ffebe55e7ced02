/* The seat page's board: tap a territory, tap one of its highlighted targets, order
   the villages if the move founds several, confirm.  The confirm bar is the same
   plain form the page works with when JavaScript is off: this only fills it in.
   When seat.js swaps in the page's fresh content, the board is set up again. */
(function () {
  "use strict";

  var NS = "http://www.w3.org/2000/svg";
  /* The board on the page now: its Escape and its "back from the history" handlers. */
  var current = null;

  function setup() {
    var dataEl = document.getElementById("play-data");
    var form = document.getElementById("confirm-form");
    var svg = document.querySelector("#board svg.clans-board");
    if (!dataEl || !form || !svg) return null;

    var data;
    try {
      data = JSON.parse(dataEl.textContent);
    } catch (e) {
      return null;
    }
    var moves = data.moves || {};
    var founding = data.founding || {};
    var terrains = data.terrains || {};
    /* The page's words, in its language; {name} marks what this script fills in. */
    var words = data.words || {};
    function say(key, values) {
      var text = String(words[key] || "");
      return text.replace(/\{(\w+)\}/g, function (all, name) {
        return values && name in values ? String(values[name]) : all;
      });
    }
    function terrainName(terrain) {
      return (words.terrains || {})[terrain] || terrain;
    }

    var hint = document.getElementById("move-hint");
    var moveInput = document.getElementById("confirm-move-input");
    var orderInput = document.getElementById("confirm-order-input");
    var moveLabel = document.getElementById("confirm-move");
    var note = document.getElementById("confirm-note");
    var orderBox = document.getElementById("order-box");
    var orderList = document.getElementById("order-list");
    var cancel = document.getElementById("confirm-cancel");
    var submit = document.getElementById("confirm-submit");
    var fallback = document.getElementById("move-list");

    var layer = document.createElementNS(NS, "g");
    layer.setAttribute("class", "js-hl");
    svg.insertBefore(layer, svg.querySelector("g.labels"));
    // Its territories become buttons: the board is now a group of controls, not one picture.
    svg.setAttribute("role", "group");

    var source = null;
    var target = null;
    var order = [];

    function territory(id) {
      return svg.querySelector('path.territory[data-territory="' + id + '"]');
    }

    function describe(id) {
      return id + (terrains[id] ? " (" + terrainName(terrains[id]) + ")" : "");
    }

    function outline(id, cls) {
      var p = territory(id);
      if (!p) return;
      var o = document.createElementNS(NS, "path");
      o.setAttribute("d", p.getAttribute("d"));
      o.setAttribute("class", cls);
      layer.appendChild(o);
    }

    function centre(id) {
      var el = svg.querySelector('g.label[data-for="' + id + '"]') || territory(id);
      var box = el.getBBox();
      return [box.x + box.width / 2, box.y + box.height / 2];
    }

    /* The board's look, written by base.html from pbem/drawing/style.py. */
    var look = getComputedStyle(document.documentElement);
    function lookOf(name) {
      return look.getPropertyValue("--board-" + name).trim();
    }
    function sizeOf(name) {
      return parseFloat(lookOf(name));
    }

    /* An arrow from the chosen source to the chosen target, like the last move's. */
    function arrow(a, b) {
      var p = centre(a), q = centre(b);
      var dx = q[0] - p[0], dy = q[1] - p[1];
      var len = Math.sqrt(dx * dx + dy * dy);
      if (len < sizeOf("pick-min-len")) return;
      var ux = dx / len, uy = dy / len;
      var start = sizeOf("pick-start-gap"), end = sizeOf("pick-end-gap"), headLen = sizeOf("pick-head-len");
      var halfHead = sizeOf("arrow-head-w") / 2, width = sizeOf("arrow-w");
      var halo = lookOf("pick-halo"), colour = lookOf("selected");
      var sx = p[0] + ux * start, sy = p[1] + uy * start;
      var tx = q[0] - ux * end, ty = q[1] - uy * end;
      var bx = tx - ux * headLen, by = ty - uy * headLen;
      var px = -uy * halfHead, py = ux * halfHead;
      var shaft = "M" + sx + " " + sy + "L" + bx + " " + by;
      var head = "M" + tx + " " + ty + "L" + (bx + px) + " " + (by + py) + "L" + (bx - px) + " " + (by - py) + "Z";
      var inset = sizeOf("pick-head-edge-inset");
      [[halo, width + 2 * sizeOf("pick-halo-w"), halo], [colour, width, colour]].forEach(function (style) {
        var line = document.createElementNS(NS, "path");
        line.setAttribute("d", shaft);
        line.setAttribute("class", "hl-pick-arrow");
        line.setAttribute("stroke", style[0]);
        line.setAttribute("stroke-width", style[1]);
        line.setAttribute("stroke-linecap", "round");
        line.setAttribute("fill", "none");
        layer.appendChild(line);
        var tip = document.createElementNS(NS, "path");
        tip.setAttribute("d", head);
        tip.setAttribute("class", "hl-pick-arrow");
        tip.setAttribute("fill", style[2]);
        tip.setAttribute("stroke", style[0]);
        tip.setAttribute("stroke-width", style[1] - inset);
        tip.setAttribute("stroke-linejoin", "round");
        layer.appendChild(tip);
      });
    }

    function targetsOf(id) {
      return moves[String(id)] || [];
    }

    function moveText() {
      return source + "-" + target;
    }

    function renderOrder() {
      orderList.textContent = "";
      order.forEach(function (id, i) {
        var li = document.createElement("li");
        li.setAttribute("data-village", id);
        var name = document.createElement("span");
        name.className = "order-name";
        name.textContent = say("village", { territory: describe(id) });
        li.appendChild(name);
        [["↑", -1, "earlier"], ["↓", 1, "later"]].forEach(function (spec) {
          var b = document.createElement("button");
          b.type = "button";
          b.textContent = spec[0];
          b.setAttribute("aria-label", say(spec[2], { territory: id }));
          b.disabled = (spec[1] < 0 && i === 0) || (spec[1] > 0 && i === order.length - 1);
          b.addEventListener("click", function () {
            var j = i + spec[1];
            var tmp = order[j];
            order[j] = order[i];
            order[i] = tmp;
            renderOrder();
            var again = orderList.children[j].querySelectorAll("button")[spec[1] < 0 ? 0 : 1];
            (again && !again.disabled ? again : orderList.children[j].querySelector("button:not(:disabled)")).focus();
          });
          li.appendChild(b);
        });
        orderList.appendChild(li);
      });
      orderInput.value = order.join(",");
    }

    function render() {
      layer.textContent = "";
      Array.prototype.forEach.call(svg.querySelectorAll("path.territory"), function (p) {
        p.classList.remove("target", "selected");
      });
      svg.classList.toggle("is-picking", source !== null);
      if (source !== null) {
        territory(source).classList.add("selected");
        targetsOf(source).forEach(function (t) {
          var p = territory(t);
          if (p) p.classList.add("target");
          outline(t, t === target ? "hl-pick-chosen" : "hl-pick-target");
        });
        outline(source, "hl-pick-selected");
        if (target !== null) arrow(source, target);
      }
      Array.prototype.forEach.call(svg.querySelectorAll("path.territory"), function (p) {
        if (p.classList.contains("selectable") || p.classList.contains("target")) {
          p.setAttribute("tabindex", "0");
          p.setAttribute("role", "button");
          var id = p.getAttribute("data-territory");
          p.setAttribute("aria-label", p.classList.contains("target")
            ? say("target_label", { source: source, target: id })
            : say("source_label", { territory: id }));
        } else {
          p.removeAttribute("tabindex");
          p.removeAttribute("role");
          p.removeAttribute("aria-label");
        }
      });

      if (source === null) {
        hint.textContent = say("hint");
      } else if (target === null) {
        hint.textContent = say("from", { source: source });
      } else {
        hint.textContent = say("chosen", { move: source + " → " + target });
      }

      if (target === null) {
        form.hidden = true;
        moveInput.value = "";
        orderInput.value = "";
        return;
      }
      var villages = founding[moveText()] || [];
      moveInput.value = moveText();
      moveLabel.textContent = source + " → " + target;
      if (villages.length === 1) {
        note.textContent = say("founds_one", { territory: describe(villages[0]) });
      } else if (villages.length > 1) {
        note.textContent = (words.founds_many || {})[String(villages.length)] || "";
      } else {
        note.textContent = "";
      }
      if (villages.length > 1) {
        if (order.length !== villages.length || order.some(function (v) { return villages.indexOf(v) < 0; })) {
          order = villages.slice().sort(function (a, b) { return a - b; });
        }
        orderBox.hidden = false;
        renderOrder();
      } else {
        order = [];
        orderBox.hidden = true;
        orderInput.value = "";
      }
      form.hidden = false;
    }

    function pick(id, byKeyboard) {
      id = Number(id);
      if (source !== null && targetsOf(source).indexOf(id) >= 0) {
        target = id;
      } else if (id === source) {
        source = null;
        target = null;
      } else if (moves[String(id)]) {
        source = id;
        target = null;
      } else {
        source = null;
        target = null;
        render();
        hint.textContent = say("stuck", { territory: id });
        return;
      }
      render();
      if (target !== null) {
        if (byKeyboard) submit.focus();
        else if (form.getBoundingClientRect().bottom > window.innerHeight) form.scrollIntoView({ block: "nearest" });
      }
    }

    svg.addEventListener("click", function (e) {
      var p = e.target.closest ? e.target.closest("path.territory") : null;
      if (p) pick(p.getAttribute("data-territory"), false);
    });
    svg.addEventListener("keydown", function (e) {
      var p = e.target.closest ? e.target.closest("path.territory") : null;
      if (p && (e.key === "Enter" || e.key === " ")) {
        e.preventDefault();
        pick(p.getAttribute("data-territory"), true);
      }
    });
    cancel.addEventListener("click", function () {
      source = null;
      target = null;
      render();
    });
    form.addEventListener("submit", function (e) {
      if (!moveInput.value) {
        e.preventDefault();
        return;
      }
      submit.disabled = true;
      submit.textContent = say("playing");
    });

    hint.hidden = false;
    if (fallback) {
      var filled = Array.prototype.some.call(fallback.querySelectorAll("select, input:not([type=hidden])"),
        function (el) { return el.value; });
      if (!filled) fallback.open = false;
    }
    render();
    return {
      escape: function () {
        if (source === null) return;
        source = null;
        target = null;
        render();
      },
      reset: function () {
        submit.disabled = false;
        submit.textContent = say("confirm");
      }
    };
  }

  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && current) current.escape();
  });
  window.addEventListener("pageshow", function () {
    if (current) current.reset();
  });
  // seat.js swapped in the page's fresh content: a new board (or none).
  document.addEventListener("pbem:seat-updated", function () {
    current = setup();
  });
  current = setup();
})();
