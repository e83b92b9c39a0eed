// The ranking of toolcat search (docs/search.md), repeated over the index that
// SearchIndex.to_dict() exports (window.TOOLCAT_INDEX). No dependencies.
"use strict";
(function (root) {
  var CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af";
  var TOKEN = new RegExp("[" + CJK + "]|(?:(?![" + CJK + "])[\\p{L}\\p{Nl}\\p{No}])+|\\p{Nd}+", "gu");
  var CAMEL = /(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])(?![A-Z]s(?:[^a-z]|$))/g;
  var NUMBER = /^\p{Nd}+$/u;
  var MARKS = /[\u0300-\u036f]/g;

  function tokenize(text) {
    var folded = text.normalize("NFKD").replace(MARKS, "").replace(CAMEL, " ");
    var out = folded.match(TOKEN) || [];
    return out.map(function (t) { return t.toLowerCase(); });
  }
  function firstChars(text, n) { // the first n code points (Python slicing)
    var i = 0, count = 0;
    while (i < text.length && count < n) {
      var c = text.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
      count++;
    }
    return text.slice(0, i);
  }
  function round6(x) { return Number(x.toFixed(6)); }

  // data: SearchIndex.to_dict(), or the same without "postings" and with "shards": n,
  // the postings then come in n parts (add), by a hash of each term's first min_prefix
  // UTF-16 units: a term, its prefixes that a query looks up and nothing else decide the part.
  function Index(data) {
    this.d = data;
    this.stop = new Set(data.stop_words);
    this.postings = new Map(data.postings ? Object.entries(data.postings) : []);
    this.synonyms = new Map(Object.entries(data.synonyms));
    this.loaded = new Set();
  }
  Index.prototype.shardOf = function (term) {
    var h = 0, n = Math.min(this.d.min_prefix, term.length);
    for (var i = 0; i < n; i++) h = (Math.imul(h, 31) + term.charCodeAt(i)) >>> 0;
    return h % this.d.shards;
  };
  Index.prototype.add = function (part, postings) {
    if (this.loaded.has(part)) return;
    for (var t in postings) if (Object.prototype.hasOwnProperty.call(postings, t)) this.postings.set(t, postings[t]);
    this.loaded.add(part);
  };
  // The parts of the postings a query needs that are not here yet ([] when unsharded).
  Index.prototype.needs = function (query) {
    if (!this.d.shards) return [];
    var self = this, parts = new Set();
    var read = this.read(query);
    read.stems.forEach(function (s) {
      parts.add(self.shardOf(s));
      (self.synonyms.get(s) || []).forEach(function (t) { parts.add(self.shardOf(t)); });
    });
    read.compounds.forEach(function (s) { parts.add(self.shardOf(s)); });
    return Array.from(parts).filter(function (k) { return !self.loaded.has(k); });
  };
  // The query's distinct stems with their weights (a number weighs number_weight), and
  // the stems of adjacent word pairs written as one (the compounds a catalog may hold).
  Index.prototype.read = function (query) {
    var d = this.d, weights = new Map(), words = [], compounds = [];
    var toks = tokenize(firstChars(query, d.max_query_chars));
    for (var i = 0; i < toks.length; i++) {
      if (this.stop.has(toks[i])) { words.push(""); continue; }
      var number = NUMBER.test(toks[i]);
      words.push(number ? "" : toks[i]);
      weights.set(root.toolcatStem(toks[i]), number ? d.number_weight : 1.0);
      if (weights.size >= d.max_query_terms) break;
    }
    for (var w = 0; w + 1 < words.length; w++) {
      if (words[w] && words[w + 1]) compounds.push(root.toolcatStem(words[w] + words[w + 1]));
    }
    return {stems: Array.from(weights.keys()), weights: weights, compounds: compounds};
  };
  Index.prototype.stems = function (query) { return this.read(query).stems; };
  Index.prototype.queryTerms = function (query) {
    var d = this.d, read = this.read(query), terms = new Map(read.weights);
    var stems = read.stems;
    for (var c = 0; c < read.compounds.length; c++) {
      var joined = read.compounds[c];
      if (this.postings.has(joined) && !terms.has(joined)) terms.set(joined, d.compound_weight);
    }
    for (var j = 0; j < stems.length; j++) {
      var s = stems[j], syn = this.synonyms.get(s) || [];
      if (NUMBER.test(s)) continue; // a number has neither synonyms nor abbreviations
      for (var k = 0; k < syn.length; k++) if (!terms.has(syn[k])) terms.set(syn[k], d.synonym_weight);
      for (var cut = s.length - 1; cut >= d.min_prefix; cut--) {
        var p = s.slice(0, cut);
        if (this.postings.has(p)) { if (!terms.has(p)) terms.set(p, d.prefix_weight); break; }
      }
    }
    return terms;
  };
  // [{name, score, pos}] best first; top <= 0 or undefined: every matching tool.
  Index.prototype.search = function (query, top) {
    var scores = new Map(), self = this;
    this.queryTerms(query).forEach(function (weight, term) {
      var pl = self.postings.get(term);
      if (!pl) return;
      for (var i = 0; i < pl.length; i += 2) {
        scores.set(pl[i], (scores.get(pl[i]) || 0) + weight * pl[i + 1]);
      }
    });
    var ranked = Array.from(scores, function (e) { return {pos: e[0], score: round6(e[1])}; });
    ranked.sort(function (a, b) { return b.score - a.score || a.pos - b.pos; });
    if (top > 0) ranked = ranked.slice(0, top);
    return ranked.map(function (r) { return {name: self.d.tools[r.pos], score: r.score, pos: r.pos}; });
  };
  root.ToolcatIndex = Index;
  root.toolcatTokenize = tokenize;
})(typeof window !== "undefined" ? window : globalThis);
