// The Snowball English ("Porter2") stemmer, as snowballstemmer 3.x applies it to one
// lower-case token. Written for toolcat from the algorithm at snowballstem.org (BSD
// licence); tests compare it with the Python package word for word.
"use strict";
(function (root) {
  var V = "aeiouy";
  var WXY = "Yaeiouwxy";
  var LI = "cdeghkmnrt";
  var EXC = {skis: "ski", skies: "sky", idly: "idl", gently: "gentl", ugly: "ugli",
    early: "earli", only: "onli", singly: "singl", andes: 1, atlas: 1, bias: 1,
    cosmos: 1, howe: 1, news: 1, sky: 1};
  var PRE = ["arsen", "commun", "emerg", "gener", "inter", "later", "organ", "past", "univers"];
  function isV(c) { return c !== undefined && c !== "" && V.indexOf(c) >= 0; }
  function longest(w, list) { // the longest suffix of w in list, or ""
    var best = "";
    for (var i = 0; i < list.length; i++) {
      var s = list[i];
      if (s.length > best.length && w.length >= s.length && w.slice(w.length - s.length) === s) best = s;
    }
    return best;
  }
  function hasVowel(w, end) { for (var i = 0; i < end; i++) if (isV(w[i])) return true; return false; }
  function shortv(w) { // w ends in a short syllable
    var n = w.length;
    if (n >= 3 && WXY.indexOf(w[n - 1]) < 0 && isV(w[n - 2]) && !isV(w[n - 3])) return true;
    if (n === 2 && !isV(w[1]) && isV(w[0])) return true;
    return w.slice(-4) === "past";
  }
  function regions(w) {
    var p1 = w.length, p2 = w.length, i = 0, n = w.length, k;
    var pre = "";
    for (k = 0; k < PRE.length; k++) if (w.slice(0, PRE[k].length) === PRE[k] && PRE[k].length > pre.length) pre = PRE[k];
    function after(from) { // the position after the first non-vowel following a vowel, or -1
      var j = from;
      while (j < n && !isV(w[j])) j++;
      if (j >= n) return -1;
      j++;
      while (j < n && isV(w[j])) j++;
      if (j >= n) return -1;
      return j + 1;
    }
    if (pre) i = pre.length; else { i = after(0); if (i < 0) return [p1, p2]; }
    p1 = i;
    i = after(i);
    if (i >= 0) p2 = i;
    return [p1, p2];
  }
  var S2 = {tional: "tion", enci: "ence", anci: "ance", abli: "able", entli: "ent", izer: "ize",
    ization: "ize", ational: "ate", ation: "ate", ator: "ate", alli: "al", aliti: "al", alism: "al",
    fulli: "ful", fulness: "ful", ousli: "ous", ousness: "ous", iviti: "ive", iveness: "ive",
    bli: "ble", biliti: "ble", ogist: "og", ogi: "og", lessli: "less", li: ""};
  var S2K = Object.keys(S2);
  var S3 = {icate: "ic", ative: "", alize: "al", iciti: "ic", ical: "ic", tional: "tion",
    ational: "ate", ful: "", ness: ""};
  var S3K = Object.keys(S3);
  var S4K = ["ic", "ance", "ence", "able", "ible", "ate", "ive", "ize", "iti", "al", "ism", "ion",
    "er", "ous", "ant", "ent", "ment", "ement"];

  function stem(word) {
    var w = word;
    if (Object.prototype.hasOwnProperty.call(EXC, w)) return EXC[w] === 1 ? w : EXC[w];
    if (w.length < 3) return w;
    if (w[0] === "'") w = w.slice(1);
    var yFound = false, chars = w.split(""), i;
    if (chars[0] === "y") { chars[0] = "Y"; yFound = true; }
    for (i = 0; i + 1 < chars.length; i++) {
      if (isV(chars[i]) && chars[i + 1] === "y") { chars[i + 1] = "Y"; yFound = true; }
    }
    w = chars.join("");
    var r = regions(w), p1 = r[0], p2 = r[1], s;
    // Step 1a
    s = longest(w, ["'", "'s'", "'s"]);
    if (s) w = w.slice(0, w.length - s.length);
    s = longest(w, ["ied", "s", "ies", "sses", "ss", "us"]);
    if (s === "sses") w = w.slice(0, -4) + "ss";
    else if (s === "ied" || s === "ies") w = w.slice(0, -3) + (w.length - 3 >= 2 ? "i" : "ie");
    else if (s === "s") { if (hasVowel(w, w.length - 2)) w = w.slice(0, -1); }
    // Step 1b
    w = step1b(w, p1);
    // Step 1c
    var n = w.length;
    if (n >= 3 && (w[n - 1] === "y" || w[n - 1] === "Y") && !isV(w[n - 2])) w = w.slice(0, -1) + "i";
    // Step 2
    s = longest(w, S2K);
    if (s && w.length - s.length >= p1) {
      var base = w.slice(0, w.length - s.length);
      if (s === "ogi") { if (base.slice(-1) === "l") w = base + "og"; }
      else if (s === "li") { if (base.length > 0 && LI.indexOf(base[base.length - 1]) >= 0) w = base; }
      else w = base + S2[s];
    }
    // Step 3
    s = longest(w, S3K);
    if (s && w.length - s.length >= p1) {
      if (s === "ative") { if (w.length - s.length >= p2) w = w.slice(0, -5); }
      else w = w.slice(0, w.length - s.length) + S3[s];
    }
    // Step 4
    s = longest(w, S4K);
    if (s && w.length - s.length >= p2) {
      var b4 = w.slice(0, w.length - s.length);
      if (s !== "ion") w = b4;
      else if (b4.length > 0 && (b4[b4.length - 1] === "s" || b4[b4.length - 1] === "t")) w = b4;
    }
    // Step 5
    n = w.length;
    if (w[n - 1] === "e") {
      if (n - 1 >= p2 || (n - 1 >= p1 && !shortv(w.slice(0, -1)))) w = w.slice(0, -1);
    } else if (w[n - 1] === "l") {
      if (n - 1 >= p2 && w[n - 2] === "l") w = w.slice(0, -1);
    }
    return yFound ? w.replace(/Y/g, "y") : w;
  }

  function step1b(w, p1) {
    var s = longest(w, ["ed", "eed", "ing", "edly", "eedly", "ingly"]);
    if (!s) return w;
    var start = w.length - s.length, base = w.slice(0, start);
    if (s === "eed" || s === "eedly") {
      if (start >= p1 && !(/^(succ|proc|exc)$/.test(base))) return base + "ee";
      return w;
    }
    if (s === "ing") {
      var t = longest(base, ["even", "cann", "inn", "earr", "herr", "out", "y"]);
      if (t === "y") {
        if (base.length === 2 && !isV(base[0])) return base.slice(0, 1) + "ie";
      } else if (t) {
        if (t.length === base.length) return w;
      }
    }
    if (!hasVowel(base, base.length)) return w;
    w = base;
    var d = longest(w, ["bb", "dd", "ff", "gg", "bl", "mm", "nn", "pp", "rr", "at", "tt", "iz"]);
    if (d === "bl" || d === "at" || d === "iz") return w + "e";
    if (d) {
      if (w.length === 3 && "aeo".indexOf(w[0]) >= 0) return w;
      return w.slice(0, -1);
    }
    if (w.length === p1 && shortv(w)) return w + "e";
    return w;
  }
  root.toolcatStem = stem;
})(typeof window !== "undefined" ? window : globalThis);
