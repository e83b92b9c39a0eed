// The catalog browser's page logic: search, filters, provider tabs. Catalog text is
// only ever set with textContent or read from data attributes, never parsed as HTML.
"use strict";
(function () {
  var doc = document;
  function ready() { doc.documentElement.setAttribute("data-ready", String(Math.round(performance.now()))); }

  function tabs() {
    var lists = doc.querySelectorAll("[role=tablist]");
    lists.forEach(function (list) {
      var buttons = list.querySelectorAll("[role=tab]");
      function show(btn) {
        buttons.forEach(function (b) {
          var on = b === btn;
          b.setAttribute("aria-selected", on ? "true" : "false");
          doc.getElementById(b.getAttribute("aria-controls")).hidden = !on;
        });
      }
      buttons.forEach(function (b) { b.addEventListener("click", function () { show(b); }); });
      if (buttons.length) show(buttons[0]);
    });
  }

  function browser() {
    var list = doc.getElementById("tools");
    var items = Array.from(list.children);
    var q = doc.getElementById("q");
    var count = doc.getElementById("count");
    var selects = Array.from(doc.querySelectorAll("select[data-filter]"));
    var index = null;
    var reordered = false;  // whether the list is in ranked order now
    function getIndex() {
      if (!index && window.TOOLCAT_INDEX) index = new window.ToolcatIndex(window.TOOLCAT_INDEX);
      return index;
    }
    function keep(li) {
      return selects.every(function (sel) {
        if (!sel.value) return true;
        var values = (li.getAttribute("data-" + sel.getAttribute("data-filter")) || "").split("\u001f");
        return values.indexOf(sel.value) >= 0;
      });
    }
    function update() {
      var query = q.value.trim();
      var order = items;
      var scores = null;
      if (query && getIndex()) {
        var hits = getIndex().search(query, 0);
        scores = new Map(hits.map(function (h) { return [h.pos, h.score]; }));
        order = hits.map(function (h) { return items[h.pos]; });
      }
      var shown = 0;
      var moved = scores !== null || reordered;
      var frag = doc.createDocumentFragment();
      order.forEach(function (li) {
        var ok = keep(li);
        if (li.hidden === ok) li.hidden = !ok;
        if (ok) shown++;
        if (moved) frag.appendChild(li);
      });
      if (scores) items.forEach(function (li, pos) { if (!scores.has(pos)) { li.hidden = true; frag.appendChild(li); } });
      if (moved) list.appendChild(frag);  // catalog order with no query: nothing to move
      reordered = scores !== null;
      count.textContent = shown + " of " + items.length + " tools";
      var hash = new URLSearchParams();
      if (query) hash.set("q", query);
      selects.forEach(function (sel) { if (sel.value) hash.set(sel.getAttribute("data-filter"), sel.value); });
      var h = hash.toString();
      if (("#" + h) !== location.hash && !(h === "" && location.hash === "")) history.replaceState(null, "", h ? "#" + h : location.pathname);
    }
    var init = new URLSearchParams(location.hash.slice(1));
    if (init.get("q")) q.value = init.get("q");
    selects.forEach(function (sel) {
      var v = init.get(sel.getAttribute("data-filter"));
      if (v !== null) sel.value = v;
      sel.addEventListener("change", update);
    });
    var timer = 0;
    q.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(update, 60); });
    doc.getElementById("search").addEventListener("submit", function (e) { e.preventDefault(); update(); });
    update();
  }

  function start() {
    doc.documentElement.classList.add("js");
    if (doc.getElementById("tools")) browser();
    tabs();
    ready();
  }
  if (doc.readyState === "loading") doc.addEventListener("DOMContentLoaded", start); else start();
})();
