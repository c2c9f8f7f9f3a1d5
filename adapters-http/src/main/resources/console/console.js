// Better Compute console: the pages work without this script. With it, times read in the viewer's zone and
// live pages follow the market feed (server-sent events): the Market page redraws its charts, a cluster's
// Workloads and Nodes pages refresh their content.
(function () {
  "use strict";

  function localise(root) {
    var fmt = new Intl.DateTimeFormat(undefined, {
      year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"
    });
    root.querySelectorAll("time[datetime]").forEach(function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (!isNaN(d)) {
        t.title = t.getAttribute("datetime");
        t.textContent = fmt.format(d);
      }
    });
  }

  // at most one refresh a second, however many ticks arrive at once
  function throttled(fn) {
    var pending = false;
    return function () {
      if (pending) { return; }
      pending = true;
      setTimeout(function () { pending = false; fn(); }, 1000);
    };
  }

  function refreshMain() {
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) { return; }
        var next = new DOMParser().parseFromString(html, "text/html").querySelector("main");
        var main = document.querySelector("main");
        if (!next || !main) { return; }
        // keep what the reader opened
        var open = {};
        main.querySelectorAll("details[open] summary").forEach(function (s) { open[s.textContent.split(" — ")[0]] = true; });
        main.innerHTML = next.innerHTML;
        main.querySelectorAll("details summary").forEach(function (s) {
          if (open[s.textContent.split(" — ")[0]]) { s.parentElement.open = true; }
        });
        localise(main);
      })
      .catch(function () {});
  }

  function followCharts(source) {
    var redraws = {};
    source.addEventListener("tick", function (e) {
      var tick;
      try { tick = JSON.parse(e.data); } catch (err) { return; }
      var facts = document.querySelector('[data-pool-facts="' + tick.pool + '"]');
      if (facts) {
        var set = function (name, text) {
          var dd = facts.querySelector('[data-fact="' + name + '"]');
          if (dd) { dd.textContent = text; }
        };
        set("price", tick.price == null ? "—" : "$" + tick.price);
        set("reserve", tick.reserve == null ? "—" : "$" + tick.reserve);
        set("supply", tick.supply);
        set("demand", tick.demand);
        set("granted", tick.granted);
        set("at", "");
        var at = facts.querySelector('[data-fact="at"]');
        if (at) {
          var t = document.createElement("time");
          t.setAttribute("datetime", tick.time);
          t.textContent = tick.time;
          at.appendChild(t);
          localise(at);
        }
      }
      if (!redraws[tick.pool]) {
        redraws[tick.pool] = throttled(function () {
          var figure = document.querySelector('[data-chart="' + tick.pool + '"]');
          if (!figure) { return; }
          fetch("/console/market/chart?pool=" + encodeURIComponent(tick.pool), { credentials: "same-origin" })
            .then(function (r) { return r.ok ? r.text() : null; })
            .then(function (svg) { if (svg) { figure.innerHTML = svg; figure.dataset.redraws = String((+figure.dataset.redraws || 0) + 1); } })
            .catch(function () {});
        });
      }
      redraws[tick.pool]();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localise(document);
    var live = document.body.getAttribute("data-live");
    if (!live || !window.EventSource) { return; }
    var source = new EventSource("/console/market/feed");
    if (live === "chart") {
      followCharts(source);
    } else if (live === "reload") {
      source.addEventListener("tick", throttled(refreshMain));
    }
  });
}());
