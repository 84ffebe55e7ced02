/* The seat page's "Notifications" switch (templates/seat/_push.html): registers
   the service worker (/sw.js), subscribes this browser with the service's
   VAPID key (GET /api/v1/push/key) and stores the subscription for this seat
   (POST /api/v1/seat/push, with the seat token of the page's own address);
   turning it off unsubscribes and removes it (DELETE).  Without service
   workers or the Push API the section says so and offers nothing. */
(function () {
  "use strict";
  var box = document.getElementById("push");
  if (!box) return;
  var state = document.getElementById("push-state");
  var button = document.getElementById("push-toggle");
  var token = (window.location.pathname.match(/^\/play\/([^\/?#]+)/) || [])[1];

  function say(key) {
    state.textContent = box.getAttribute("data-" + key) || "";
  }

  if (!token || !("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    say("unsupported");
    return;
  }

  function keyBytes(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(padded);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function api(method, url, body) {
    var headers = { Authorization: "Bearer " + token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(url, { method: method, headers: headers, body: body, cache: "no-store", credentials: "omit" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      });
  }

  function show(on) {
    button.hidden = false;
    button.disabled = false;
    button.textContent = box.getAttribute(on ? "data-turn-off" : "data-turn-on");
    button.setAttribute("aria-pressed", on ? "true" : "false");
    say(on ? "on" : "off");
  }

  var registration = navigator.serviceWorker.register(box.getAttribute("data-worker"), { scope: "/" })
    .then(function () { return navigator.serviceWorker.ready; });

  function current() {
    return registration.then(function (reg) { return reg.pushManager.getSubscription(); });
  }

  function turnOn() {
    return Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") {
        say("denied");
        button.disabled = false;
        return;
      }
      return Promise.all([registration, api("GET", box.getAttribute("data-key"))]).then(function (got) {
        return got[0].pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(got[1].public_key) });
      }).then(function (subscription) {
        return api("POST", box.getAttribute("data-subscription"), JSON.stringify(subscription));
      }).then(function () { show(true); });
    });
  }

  function turnOff() {
    return current().then(function (subscription) {
      return subscription ? subscription.unsubscribe() : true;
    }).then(function () {
      return api("DELETE", box.getAttribute("data-subscription"));
    }).then(function () { show(false); });
  }

  button.addEventListener("click", function () {
    var on = button.getAttribute("aria-pressed") === "true";
    button.disabled = true;
    (on ? turnOff() : turnOn()).catch(function () {
      say("failed");
      button.disabled = false;
    });
  });

  current().then(function (subscription) {
    show(!!subscription && Notification.permission === "granted");
  }).catch(function () { say("unsupported"); });
})();
