// iolens explore: the timeline's geometry and, on a served page opened without
// a view in its URL, the first view's query sent at once.  This script runs
// before the page's data is parsed (page.py puts it ahead of the data), so the
// server computes the first view while the browser parses the data and draws
// the static charts: at 20,000 ranks, done in turn, they were a third each of
// opening the page.  explorer.js takes the reply (the same view it would ask
// for: the whole run, every lane, every operation and file) and asks again if
// this request failed.
"use strict";
window.iolensTimeline = (function () {
  const geometry = { labelW: 90, rowsMax: Math.floor(600 / 3) };   // label column px; rows of >= 3 px
  const q = new URLSearchParams(location.search);
  const viewInUrl = ["t0", "t1", "r0", "r1", "op", "file", "region"].some((k) => q.has(k));
  if (document.body.dataset.served === undefined || viewInUrl) return { geometry: geometry, first: null };
  const px = Math.max(100, Math.round(document.getElementById("timeline").clientWidth - geometry.labelW));
  const params = new URLSearchParams({ px: px, rows: geometry.rowsMax, token: q.get("token") || "" });
  const first = fetch("/api/spans?" + params.toString()).then((r) => {
    if (!r.ok) throw new Error("query failed: " + r.status);
    return r.json();
  });
  first.catch(() => {});        // not an unhandled rejection: explorer.js asks again
  return { geometry: geometry, first: first };
})();
