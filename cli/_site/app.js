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

  // Load a script of the site's assets once (a <script> element: file:// forbids fetch).
  var loads = {};
  function load(base, name) {
    if (!loads[name]) {
      loads[name] = new Promise(function (resolve, reject) {
        var s = doc.createElement("script");
        s.src = base + "assets/" + name;
        s.onload = resolve;
        s.onerror = function () { delete loads[name]; reject(new Error("cannot load " + name)); };
        doc.head.appendChild(s);
      });
    }
    return loads[name];
  }

  var BADGES = [[1, "readonly", "read-only"], [2, "destructive", "destructive"], [4, "confirm", "confirm"]];
  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // One row of the list, as index.html.j2 renders it; catalog text only via textContent.
  function row(base, t, values) {
    var li = el("li"), a = el("a", "name", t[0]);
    a.href = base + "tools/" + t[1];
    var meta = el("span", "meta");
    meta.appendChild(el("span", "method", values.method[t[2]]));
    meta.appendChild(doc.createTextNode(" " + t[3]));
    BADGES.forEach(function (b) {
      if (t[5] & b[0]) { meta.appendChild(doc.createTextNode(" ")); meta.appendChild(el("span", "badge " + b[1], b[2])); }
    });
    li.appendChild(a); li.appendChild(doc.createTextNode(" ")); li.appendChild(meta);
    li.appendChild(el("div", "meta", t[4]));
    return li;
  }

  function browser() {
    var list = doc.getElementById("tools");
    var base = list.getAttribute("data-base") || "";
    var home = Number(list.getAttribute("data-page")) || 1;  // the page this file holds
    var size = Number(list.getAttribute("data-page-size")) || 100;
    var pager = doc.getElementById("pager");
    var q = doc.getElementById("q");
    var count = doc.getElementById("count");
    var selects = Array.from(doc.querySelectorAll("select[data-filter]"));
    var page = home;
    var index = null, data = null, turn = 0;
    // The search index, loaded on the first search (its size grows with the catalog).
    function getIndex() {
      return load(base, "search-index.js").then(function () {
        if (!index) index = new window.ToolcatIndex(window.TOOLCAT_INDEX);
        return index;
      });
    }
    // The parts of the index's postings a query needs (assets/index/N.js), loaded once each.
    function getParts(ix, query) {
      return Promise.all(ix.needs(query).map(function (k) {
        return load(base, "index/" + k + ".js").then(function () { ix.add(k, window.TOOLCAT_SHARDS[k]); });
      }));
    }
    window.toolcatIndex = getIndex;  // for tests and the console: a promise of the index
    window.toolcatSearch = function (query, top) {  // a promise of index.search(query, top)
      return getIndex().then(function (ix) { return getParts(ix, query); }).then(function () { return index.search(query, top); });
    };
    function getData() {
      return load(base, "tools.js").then(function () { data = window.TOOLCAT_TOOLS; return data; });
    }
    // A test of a row for the filters chosen: [[field, position of the value]].
    function keeper() {
      var field = {method: 2, service: 6, toolset: 7, tag: 8};
      var want = selects.filter(function (sel) { return sel.value; }).map(function (sel) {
        var key = sel.getAttribute("data-filter");
        return [field[key], data.values[key].indexOf(sel.value)];
      });
      return function (t) {
        return want.every(function (w) { var v = t[w[0]]; return Array.isArray(v) ? v.indexOf(w[1]) >= 0 : v === w[1]; });
      };
    }
    function pageLink(n, label, rel) {
      var a = el("a", "", label);
      a.rel = rel;
      a.href = "#" + state(n);
      return a;
    }
    function state(n) {
      var hash = new URLSearchParams();
      var query = q.value.trim();
      if (query) hash.set("q", query);
      selects.forEach(function (sel) { if (sel.value) hash.set(sel.getAttribute("data-filter"), sel.value); });
      if (n !== 1 || home !== 1) hash.set("page", String(n));  // list/N.html: always
      return hash.toString();
    }
    function render() {
      var query = q.value.trim();
      var order;
      if (query) order = index.search(query, 0).map(function (h) { return h.pos; });
      else { order = new Array(data.tools.length); for (var i = 0; i < order.length; i++) order[i] = i; }
      var keep = keeper();
      var filtered = selects.some(function (s) { return s.value; }) ? order.filter(function (p) { return keep(data.tools[p]); }) : order;
      var pages = Math.max(1, Math.ceil(filtered.length / size));
      if (page > pages) page = pages;
      if (page < 1) page = 1;
      var frag = doc.createDocumentFragment();
      filtered.slice((page - 1) * size, page * size).forEach(function (p) { frag.appendChild(row(base, data.tools[p], data.values)); });
      list.replaceChildren(frag);
      count.textContent = filtered.length + " of " + data.tools.length + " tools";
      pager.hidden = pages <= 1;
      pager.replaceChildren();
      if (page > 1) pager.appendChild(pageLink(page - 1, "‹ previous", "prev"));
      pager.appendChild(el("span", "where", " page " + page + " of " + pages + " "));
      if (page < pages) pager.appendChild(pageLink(page + 1, "next ›", "next"));
      var h = state(page);
      if (("#" + h) !== location.hash && !(h === "" && location.hash === "")) history.replaceState(null, "", h ? "#" + h : location.pathname);
    }
    // Show the view the controls ask for: at once when the data is here, else when it is.
    function update(then) {
      var mine = ++turn;
      var query = q.value.trim(), needs = [];
      if (!data) needs.push(getData());
      if (query && (!index || index.needs(query).length)) {
        needs.push(getIndex().then(function (ix) { return getParts(ix, query); }));
      }
      function done() {
        if (mine !== turn) return;  // a later change took over
        list.removeAttribute("aria-busy");
        render();
        if (then) then();
      }
      if (!needs.length) return done();
      list.setAttribute("aria-busy", "true");
      if (!index && q.value.trim()) count.textContent = "loading the search index…";
      Promise.all(needs).then(done, function (err) { list.removeAttribute("aria-busy"); count.textContent = String(err.message); });
    }
    function fromHash() {
      var init = new URLSearchParams(location.hash.slice(1));
      q.value = init.get("q") || "";
      selects.forEach(function (sel) { sel.value = init.get(sel.getAttribute("data-filter")) || ""; });
      page = Number(init.get("page")) || (location.hash.length > 1 ? 1 : home);
      return location.hash.length > 1;
    }
    function changed() { page = 1; update(); }
    selects.forEach(function (sel) { sel.addEventListener("change", changed); });
    var timer = 0;
    function quiet() {}  // a prefetch that fails is retried (and reported) when needed
    q.addEventListener("focus", function () { getIndex().catch(quiet); }, {once: true});
    q.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(changed, 60); });
    doc.getElementById("search").addEventListener("submit", function (e) { e.preventDefault(); clearTimeout(timer); changed(); });
    window.addEventListener("hashchange", function () { fromHash(); update(); });
    if (fromHash()) return update(ready);
    // The page as written is the view asked for: ready now; the list's data follows.
    ready();
    setTimeout(function () { getData().catch(quiet); }, 0);
  }

  function start() {
    doc.documentElement.classList.add("js");
    tabs();
    if (doc.getElementById("tools")) browser(); else ready();
  }
  if (doc.readyState === "loading") doc.addEventListener("DOMContentLoaded", start); else start();
})();
