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

  var start = location.hash.indexOf("#e-") === 0 ? location.hash.slice(3) : "";
  if (entries.has(start)) jump(start); else if (list.dataset.leaf) show(list.dataset.leaf);
})();
