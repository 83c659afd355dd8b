(function () {
  "use strict";
  function key(cell, numeric) {
    if (!cell) { return numeric ? -Infinity : ""; }
    var raw = cell.getAttribute("data-sort");
    if (numeric) { var n = parseFloat(raw === null ? cell.textContent : raw); return isNaN(n) ? -Infinity : n; }
    return (raw === null ? cell.textContent : raw).trim().toLowerCase();
  }
  function sortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, col) {
      if (!th.hasAttribute("data-sort")) { return; }
      th.tabIndex = 0;
      function sort() {
        var numeric = th.getAttribute("data-sort") === "num";
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows).map(function (r, i) { return [key(r.cells[col], numeric), i, r]; });
        rows.sort(function (a, b) { return a[0] < b[0] ? -dir : a[0] > b[0] ? dir : a[1] - b[1]; });
        rows.forEach(function (r) { body.appendChild(r[2]); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);

  var table = document.getElementById("verdicts");
  if (table) {
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var text = document.getElementById("q");
    var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
    var shown = document.getElementById("shown");
    var chips = Array.prototype.slice.call(document.querySelectorAll("button[data-status]"));
    var apply = function () {
      var words = text.value.toLowerCase().split(/\s+/).filter(Boolean);
      var n = 0;
      rows.forEach(function (row) {
        var ok = words.every(function (w) { return row.textContent.toLowerCase().indexOf(w) >= 0; });
        selects.forEach(function (s) {
          var want = s.value, field = s.getAttribute("data-filter");
          if (!want) { return; }
          if (field === "status" && want === "unexpected") { ok = ok && row.getAttribute("data-unexpected") === "1"; }
          else { ok = ok && row.getAttribute("data-" + field) === want; }
        });
        row.hidden = !ok;
        if (ok) { n += 1; }
      });
      shown.textContent = n + " of " + rows.length + " shown";
      var status = document.getElementById("f-status").value;
      chips.forEach(function (c) { c.classList.toggle("active", c.getAttribute("data-status") === status); });
    };
    // A link can open the table filtered and sorted: index.html?status=unexpected&q=conv&sort=max-abs-err&order=desc
    var params = new URLSearchParams(window.location.search);
    if (params.get("q")) { text.value = params.get("q"); }
    selects.forEach(function (s) {
      var want = params.get(s.getAttribute("data-filter"));
      if (want !== null) { s.value = want; }
    });
    text.addEventListener("input", apply);
    selects.forEach(function (s) { s.addEventListener("change", apply); });
    chips.forEach(function (c) {
      c.addEventListener("click", function () {
        var s = document.getElementById("f-status");
        s.value = s.value === c.getAttribute("data-status") ? "" : c.getAttribute("data-status");
        apply();
      });
    });
    apply();
    var by = params.get("sort");
    var th = by && table.querySelector('th[data-key="' + by.replace(/[^\w-]/g, "") + '"]');
    if (th) {
      th.click();
      if (params.get("order") === "desc") { th.click(); }
    }
  }
  document.body.setAttribute("data-ready", "1");
  window.addEventListener("load", function () {  // a plot that failed to decode shows up here
    var broken = Array.prototype.filter.call(document.images, function (img) { return !img.naturalWidth; });
    document.body.setAttribute("data-images", document.images.length + " shown, " + broken.length + " broken");
  });
})();
