/* The service worker (served at /sw.js, so that its scope is the whole site).
   A push (pbem.mail.push_posts) carries JSON: {title, body, url, tag, lang};
   the browser has decrypted it already.  It is shown as a notification, and a
   click on it opens the seat page it names (or brings that tab forward).  It
   caches nothing: the pages are live. */
"use strict";

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  var options = {
    body: data.body || "",
    icon: "/icons/192.png",
    badge: "/icons/192.png",
    data: { url: data.url || "/" }
  };
  if (data.tag) {
    // A newer push about the same game replaces the older notification.
    options.tag = data.tag;
    options.renotify = true;
  }
  if (data.lang) options.lang = data.lang;
  event.waitUntil(self.registration.showNotification(data.title || "Clans by Mail", options));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var wanted = (event.notification.data && event.notification.data.url) || "/";
  var target = new URL(wanted, self.location.origin);
  // Only our own pages: a push names a seat page of this site.
  if (target.origin !== self.location.origin) return;
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (tabs) {
    for (var i = 0; i < tabs.length; i++) {
      if (tabs[i].url.split("#")[0] === target.href && "focus" in tabs[i]) return tabs[i].focus();
    }
    return self.clients.openWindow(target.href);
  }));
});
