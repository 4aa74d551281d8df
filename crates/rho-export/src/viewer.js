(function () {
  "use strict";
  var list = document.getElementById("entries");
  var entries = new Map();
  var lastChild = new Map();
  list.querySelectorAll("section.entry").forEach(function (s) {
    entries.set(s.dataset.id, s);
    lastChild.set(s.dataset.parent, s.dataset.id);
  });
  var rows = new Map();
  document.querySelectorAll("#tree .node").forEach(function (r) {
    rows.set(r.dataset.id, r);
  });

  // Shows the path from the root through `id` down to the newest entry under it.
  function show(id) {
    var leaf = id;
    while (lastChild.has(leaf)) leaf = lastChild.get(leaf);
    var path = new Set();
    for (var c = leaf; c && entries.has(c); c = entries.get(c).dataset.parent) path.add(c);
    entries.forEach(function (s, k) { s.hidden = !path.has(k); });
    rows.forEach(function (r, k) {
      r.classList.toggle("on-path", path.has(k));
      r.classList.toggle("selected", k === id);
    });
  }

  function jump(id) {
    show(id);
    var s = entries.get(id);
    if (!s) return;
    s.scrollIntoView({ block: "center" });
    s.classList.add("flash");
    setTimeout(function () { s.classList.remove("flash"); }, 900);
  }

  rows.forEach(function (r, id) {
    r.addEventListener("click", function (e) {
      e.preventDefault();
      jump(id);
      history.replaceState(null, "", "#e-" + id);
    });
  });

  var search = document.getElementById("search");
  var count = document.getElementById("search-count");
  var hits = [];
  var at = -1;
  search.addEventListener("input", function () {
    var q = search.value.trim().toLowerCase();
    hits = [];
    at = -1;
    rows.forEach(function (r, id) {
      var s = entries.get(id);
      var hit = q !== "" && (r.textContent.toLowerCase().indexOf(q) >= 0 ||
        (s && s.textContent.toLowerCase().indexOf(q) >= 0));
      r.classList.toggle("hit", hit);
      r.classList.toggle("miss", q !== "" && !hit);
      if (s) s.classList.toggle("match", hit);
      if (hit) hits.push(id);
    });
    count.textContent = q === "" ? "" : hits.length + (hits.length === 1 ? " match" : " matches");
  });
  search.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && hits.length > 0) {
      at = (at + (e.shiftKey ? hits.length - 1 : 1)) % hits.length;
      jump(hits[at]);
    } else if (e.key === "Escape") {
      search.value = "";
      search.dispatchEvent(new Event("input"));
    }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && document.activeElement !== search) {
      e.preventDefault();
      search.focus();
    }
  });

  function toggler(button, selector, more, less) {
    var open = false;
    button.addEventListener("click", function () {
      open = !open;
      document.querySelectorAll(selector).forEach(function (d) { d.open = open; });
      button.textContent = open ? less : more;
    });
  }
  toggler(document.getElementById("toggle-tools"), "details.tool-call, details.tool-output",
    "Expand tools", "Collapse tools");
  toggler(document.getElementById("toggle-thinking"), "details.thinking",
    "Expand thinking", "Collapse thinking");

  // Code blocks: strings, comments, numbers and common keywords coloured. Works on the text
  // only and builds nodes, so nothing in the code can become markup.
  var KEYWORDS = new Set(("as async await break case catch class const continue def default do " +
    "elif else enum export extends false fn for from func function if impl import in interface " +
    "let loop match mod mut new nil None null pub return self static struct super switch this " +
    "throw trait true True False try type use var while with yield").split(" "));
  var TOKEN = /(\/\/[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`|\b\d[\d_.]*\b|\b[A-Za-z_]\w*\b)/g;
  function highlight(code) {
    var hashComments = /language-(sh|bash|shell|zsh|python|py|ruby|rb|yaml|yml|toml)/.test(code.className);
    var text = code.textContent;
    var out = document.createDocumentFragment();
    var last = 0;
    text.replace(TOKEN, function (tok, _g, at) {
      var kind = null;
      if (tok[0] === "/" && (tok[1] === "/" || tok[1] === "*")) kind = "c";
      else if (tok[0] === "#") kind = hashComments ? "c" : null;
      else if (tok[0] === '"' || tok[0] === "'" || tok[0] === "`") kind = "s";
      else if (/^\d/.test(tok)) kind = "n";
      else if (KEYWORDS.has(tok)) kind = "k";
      if (kind === null) return tok;
      out.appendChild(document.createTextNode(text.slice(last, at)));
      var span = document.createElement("span");
      span.className = "hl-" + kind;
      span.textContent = tok;
      out.appendChild(span);
      last = at + tok.length;
      return tok;
    });
    out.appendChild(document.createTextNode(text.slice(last)));
    code.textContent = "";
    code.appendChild(out);
  }

  var start = location.hash.indexOf("#e-") === 0 ? location.hash.slice(3) : "";
  if (entries.has(start)) jump(start); else if (list.dataset.leaf) show(list.dataset.leaf);
  // Last, so a block it cannot handle never keeps the page from working.
  document.querySelectorAll("pre code[class^=language-]").forEach(function (code) {
    try { highlight(code); } catch (e) { /* the block stays plain */ }
  });
})();
