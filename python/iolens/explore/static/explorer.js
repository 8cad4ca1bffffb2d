// iolens explore: the page's own canvas drawing (no third-party code, nothing
// loaded from the network).  Served pages ask /api/spans for each view; a
// self-contained page carries its segments in DATA.segments and filters them here.
"use strict";
(function () {
  // performance marks (iolens-*): the bench reports where opening the page goes
  const mark = (name) => { if (window.performance && performance.mark) performance.mark("iolens-" + name); };
  mark("script");
  const DATA = JSON.parse(document.getElementById("iolens-data").textContent);
  mark("parsed");
  const S = DATA.summary;
  const LANE_MAX_PX = 24, LANE_MIN_PX = 3;
  const COLORS = { read: "#2b6cb0", write: "#dd6b20", readMpi: "#1a365d", writeMpi: "#9c4221" };
  const $ = (id) => document.getElementById(id);
  const fmtBytes = (b) => {
    const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0;
    while (Math.abs(b) >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i ? b.toFixed(1) : String(Math.round(b))) + " " + u[i];
  };
  const fmtTime = (s) => s === 0 ? "0 s" : s >= 1 ? s.toFixed(3) + " s" : s >= 1e-3 ? (s * 1e3).toFixed(3) + " ms" : (s * 1e6).toFixed(1) + " µs";
  // per lane, as columns (page.py): its rank, its thread (null: no thread lanes)
  const laneRank = S.lane_rank, laneThread = S.lane_thread;
  let rankMin = laneRank.length ? Infinity : 0, rankMax = laneRank.length ? -Infinity : 0;
  for (const r of laneRank) { if (r < rankMin) rankMin = r; if (r > rankMax) rankMax = r; }
  const hasMpi = (S.modules || []).includes("DXT_MPIIO") && (S.modules || []).includes("DXT_POSIX");
  const stragglers = new Set();
  (S.findings || []).forEach((f) => { if (f.kind.endsWith("stragglers")) f.ranks.forEach((r) => stragglers.add(r)); });

  // ------------------------------------------------------------ state <-> URL
  const state = { t0: 0, t1: S.span, r0: rankMin, r1: rankMax, op: "all", file: -1, region: -1 };
  const TOKEN = new URLSearchParams(location.search).get("token") || "";   // the server's per-run token
  function readUrl() {
    const q = new URLSearchParams(location.search);
    const num = (k) => (q.has(k) && q.get(k) !== "" && isFinite(+q.get(k))) ? +q.get(k) : null;
    for (const k of ["t0", "t1", "r0", "r1", "file", "region"]) { const v = num(k); if (v !== null) state[k] = v; }
    if (["read", "write"].includes(q.get("op"))) state.op = q.get("op");
    clampState();
  }
  function clampState() {
    state.t0 = Math.max(0, Math.min(state.t0, S.span));
    state.t1 = Math.min(S.span, Math.max(state.t1, state.t0 + S.span * 1e-9));
    state.r0 = Math.max(rankMin, Math.min(state.r0, rankMax));
    state.r1 = Math.max(state.r0, Math.min(state.r1, rankMax));
  }
  function writeUrl() {
    const q = new URLSearchParams();
    if (TOKEN) q.set("token", TOKEN);
    q.set("t0", state.t0.toPrecision(12)); q.set("t1", state.t1.toPrecision(12));
    q.set("r0", state.r0); q.set("r1", state.r1); q.set("op", state.op); q.set("file", state.file);
    if (state.region !== -1) q.set("region", state.region);
    history.replaceState(null, "", location.pathname + "?" + q.toString());
  }
  function syncForm() {
    $("f-t0").value = state.t0.toPrecision(6); $("f-t1").value = state.t1.toPrecision(6);
    $("f-r0").value = state.r0; $("f-r1").value = state.r1; $("f-op").value = state.op;
    $("f-file").value = String(state.file); $("f-region").value = String(state.region);
  }
  function readForm() {
    const n = (id, d) => { const v = $(id).value.trim(); return v !== "" && isFinite(+v) ? +v : d; };
    state.t0 = n("f-t0", 0); state.t1 = n("f-t1", S.span); state.r0 = n("f-r0", rankMin);
    state.r1 = n("f-r1", rankMax); state.op = $("f-op").value; state.file = +$("f-file").value;
    state.region = $("f-region").value === "" ? -1 : +$("f-region").value;
    clampState();
  }

  // ------------------------------------------------------------ data
  // Rows: the lanes in view, one row each, or grouped evenly into ROWS_MAX rows
  // when they are more (the server does the same for its replies).
  const TIMELINE = window.iolensTimeline;     // first_view.js: geometry, the first view's early reply
  const ROWS_MAX = TIMELINE.geometry.rowsMax, SUB_MAX = 4, TIP_NAME = 160;
  let earlyView = TIMELINE.first;
  const threadNo = [];      // thread number of each lane within its rank (0, 1, ...)
  laneRank.forEach((r, i) => { threadNo.push(i && laneRank[i - 1] === r ? threadNo[i - 1] + 1 : 0); });
  const threaded = laneThread !== null;
  function lanesInView() {
    const out = [];
    laneRank.forEach((r, i) => { if (r >= state.r0 && r <= state.r1) out.push(i); });
    return out;
  }
  function localRows(reply) {
    // the server's row summary, computed here for a self-contained page
    const lanes = lanesInView(), n = lanes.length, rows = Math.min(ROWS_MAX, n);
    const count = new Map(), busy = new Map();
    for (let i = 0; i < reply.n; i++) {
      const l = reply.lane[i], b = Math.min(reply.end[i], state.t1) - Math.max(reply.start[i], state.t0);
      count.set(l, (count.get(l) || 0) + 1); busy.set(l, (busy.get(l) || 0) + Math.max(0, b));
    }
    const out = { first: [], last: [], busiest: [], slowest: [], busy: [], aggregated: n > rows, lanes_in_view: n };
    lanes.forEach((l, k) => {
      const r = Math.floor(k * rows / n);
      if (r === out.first.length) { out.first.push(l); out.busiest.push(l); out.slowest.push(l); out.busy.push(busy.get(l) || 0); }
      out.last[r] = l;
      if ((count.get(l) || 0) > (count.get(out.busiest[r]) || 0)) out.busiest[r] = l;
      if ((busy.get(l) || 0) > out.busy[r]) { out.slowest[r] = l; out.busy[r] = busy.get(l); }
    });
    return out;
  }
  function localQuery() {
    const seg = DATA.segments, keep = { start: [], end: [], lane: [], op: [], mod: [], file: [], offset: [], length: [] };
    const laneOk = new Set(lanesInView()), opCode = state.op === "all" ? -1 : (state.op === "write" ? 1 : 0);
    for (let i = 0; i < seg.start.length; i++) {
      if (seg.end[i] < state.t0 || seg.start[i] > state.t1 || !laneOk.has(seg.lane[i])) continue;
      if (opCode >= 0 && seg.op[i] !== opCode) continue;
      if (state.file >= 0 && seg.file[i] !== state.file) continue;
      if (!inRegion(seg.region[i])) continue;
      for (const k in keep) keep[k].push(seg[k][i]);
    }
    const reply = Object.assign({ kind: "spans", n: keep.start.length, t0: state.t0, t1: state.t1 }, keep);
    reply.rows = localRows(reply);
    return reply;
  }
  let pending = 0;
  async function fetchView(px) {
    if (DATA.segments) return localQuery();
    if (earlyView) {              // the first view, asked for before the data was parsed
      const early = earlyView; earlyView = null;
      try { return await early; } catch (err) { console.warn("first view: asking again", err); }
    }
    const q = new URLSearchParams({ t0: state.t0, t1: state.t1, r0: state.r0, r1: state.r1, op: state.op,
      file: state.file, region: state.region, px: px, rows: ROWS_MAX, token: TOKEN });
    const r = await fetch("/api/spans?" + q.toString());
    if (!r.ok) throw new Error("query failed: " + r.status);
    return r.json();
  }
  function decode(b64, Type) {
    const bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Type(bytes.buffer);
  }

  // ------------------------------------------------------------ regions
  // Program phases (docs/regions.md): bands from the REGION records (per rank;
  // rank -1 = every rank), a legend, and the selector's filter on the segments'
  // region codes (-1 = outside every region; the selector's -2 asks for those).
  const RG = S.regions || { names: [], filterable: 0, spans: { region: [], rank: [], start: [], end: [] } };
  const REGION_COLORS = ["#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#a6a600", "#a65628",
    "#f781bf", "#999999", "#1b9e77", "#7570b3", "#e7298a"];     // the report's region colours
  const regionColor = (code, alpha) => {
    const c = REGION_COLORS[code % REGION_COLORS.length];
    return `rgba(${parseInt(c.slice(1, 3), 16)},${parseInt(c.slice(3, 5), 16)},${parseInt(c.slice(5, 7), 16)},${alpha})`;
  };
  const inRegion = (code) => state.region === -1 || (state.region === -2 ? code === -1 : code === state.region);
  function setupRegions() {
    const sel = $("f-region");
    RG.names.slice(0, RG.filterable).forEach((n, i) => {
      const o = document.createElement("option"); o.value = String(i); o.textContent = n; sel.appendChild(o);
    });
    $("f-region-box").hidden = !(S.has_dxt && RG.filterable);
    const legend = $("region-legend"), shown = [...new Set(RG.spans.region)].sort((a, b) => a - b);
    legend.hidden = !shown.length;
    legend.replaceChildren(document.createTextNode("Regions: "));
    shown.forEach((code) => {
      const s = document.createElement("span"); s.className = "region-key"; s.dataset.region = RG.names[code];
      s.style.borderLeft = `1.2em solid ${regionColor(code, 0.45)}`; s.textContent = RG.names[code];
      legend.appendChild(s);
    });
    syncForm();
  }
  function drawRegionBands(ctx, X, w, nrows) {
    // rank -> rows that hold one of its lanes
    const rowsOf = new Map();
    laneRow.forEach((row, l) => { const r = laneRank[l]; if (!rowsOf.has(r)) rowsOf.set(r, new Set()); rowsOf.get(r).add(row); });
    const sp = RG.spans, labelled = new Set(), names = [];
    let bands = 0;
    ctx.save(); ctx.font = "10px sans-serif"; ctx.textBaseline = "top";
    for (let i = 0; i < sp.region.length; i++) {
      const a = Math.max(LABEL_W, X(sp.start[i])), b = Math.min(w, Math.max(X(sp.end[i]), X(sp.start[i]) + 2));
      if (b <= a) continue;
      const code = sp.region[i], rows = sp.rank[i] === -1 ? null : rowsOf.get(sp.rank[i]);
      if (sp.rank[i] !== -1 && !rows) continue;
      ctx.fillStyle = regionColor(code, state.region === -1 || state.region === code ? 0.16 : 0.06);
      if (rows === null) ctx.fillRect(a, 0, b - a, nrows * laneH);
      else rows.forEach((r) => ctx.fillRect(a, r * laneH, b - a, laneH));
      bands++;
      if (!labelled.has(code)) {
        labelled.add(code); names.push(RG.names[code]);
        ctx.fillStyle = regionColor(code, 1); ctx.fillText(RG.names[code], a + 2, 1, Math.max(20, b - a - 4));
      }
    }
    ctx.restore();
    tl.dataset.regionBands = String(bands);
    tl.dataset.regionLabels = names.join("|");
  }

  // ------------------------------------------------------------ timeline
  const tl = $("timeline"), tip = $("tooltip");
  let drawn = [], laneRow = new Map(), laneH = LANE_MAX_PX, current = null, rowsNow = null, plot = null;
  function setupCanvas(canvas, cssH) {
    const dpr = window.devicePixelRatio || 1, w = canvas.clientWidth || 800;
    canvas.style.height = cssH + "px"; canvas.width = Math.round(w * dpr); canvas.height = Math.round(cssH * dpr);
    const ctx = canvas.getContext("2d"); ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx: ctx, w: w, h: cssH };
  }
  const LABEL_W = TIMELINE.geometry.labelW;
  const kindColor = (k) => [COLORS.read, COLORS.write, COLORS.readMpi, COLORS.writeMpi][k];
  const laneName = (l) => "rank " + laneRank[l] + (threaded ? " t" + threadNo[l] : "");
  const rowName = (r) => rowsNow.first[r] === rowsNow.last[r] ? laneName(rowsNow.first[r])
    : `ranks ${laneRank[rowsNow.first[r]]}–${laneRank[rowsNow.last[r]]}`;
  function rowHasStraggler(r) {
    for (let l = rowsNow.first[r]; l <= rowsNow.last[r]; l++) if (stragglers.has(laneRank[l])) return true;
    return false;
  }
  function subRows(reply) {
    // overlapping operations of a row (and module) go to the next free sub-row
    const sub = new Int32Array(reply.n), ends = new Map(), nsub = new Map();
    for (let i = 0; i < reply.n; i++) {       // replies are ordered by start
      const row = laneRow.get(reply.lane[i]); if (row === undefined) continue;
      const key = row * 2 + reply.mod[i], e = ends.get(key) || [];
      let k = e.findIndex((end) => end <= reply.start[i]);
      if (k < 0) k = e.length < SUB_MAX ? e.length : SUB_MAX - 1;
      e[k] = Math.max(e[k] === undefined ? -Infinity : e[k], reply.end[i]); ends.set(key, e);
      sub[i] = k; nsub.set(row, Math.max(nsub.get(row) || 1, k + 1));
    }
    return { sub: sub, nsub: nsub };
  }
  function niceStep(span) {
    const raw = span / 6, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
  }
  function drawAxis(ctx, X, w, y) {
    // Deep zoom: one absolute origin and relative labels, never the same
    // rounded absolute time repeated under every tick.
    const span = state.t1 - state.t0, step = niceStep(span);
    const relative = state.t0 > 50 * span;
    const origin = relative ? Math.floor(state.t0 / step) * step : 0;
    ctx.fillStyle = "#333"; ctx.font = "11px sans-serif";
    const labels = [];
    for (let t = Math.ceil(state.t0 / step) * step; t <= state.t1 + step * 1e-9; t += step) {
      const x = X(t); if (x < LABEL_W || x > w) continue;
      const text = relative ? "+" + fmtTime(t - origin) : fmtTime(t);
      ctx.fillRect(x, y - 12, 1, 4); ctx.fillText(text, Math.min(x + 2, w - 60), y);
      labels.push(text);
    }
    if (relative) ctx.fillText("from " + origin.toFixed(9) + " s", 2, y);
    tl.dataset.axis = labels.join("|");
  }
  const KIND_RGB = [COLORS.read, COLORS.write, COLORS.readMpi, COLORS.writeMpi]
    .map((c) => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16)));
  function drawBins(ctx, count, kind, reply, nrows, plotW) {
    // One image pixel per cell (colour of its kind, opacity growing with its
    // count), scaled onto the plot in one drawImage: a fillRect per cell took
    // most of the first view's time at 20,000 ranks (300 x 2,048 cells).
    const px = reply.px, lmax = Math.log1p(Math.max(1, reply.max));
    const img = new ImageData(px, Math.max(1, nrows)), d = img.data;
    for (let k = 0; k < nrows * px; k++) {
      const c = count[k]; if (!c) continue;
      const rgb = KIND_RGB[kind[k]], o = 4 * k;
      d[o] = rgb[0]; d[o + 1] = rgb[1]; d[o + 2] = rgb[2];
      d[o + 3] = Math.round(255 * (0.25 + 0.75 * Math.log1p(c) / lmax));
    }
    blit(ctx, img, LABEL_W, 0, plotW, nrows * laneH);
  }
  function blit(ctx, img, x, y, w, h) {
    // an ImageData drawn scaled to (x, y, w, h), unsmoothed, over what is there
    const layer = document.createElement("canvas");
    layer.width = img.width; layer.height = img.height;
    layer.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(layer, x, y, w, h);
    ctx.imageSmoothingEnabled = true;
  }
  function drawTimeline(reply) {
    current = reply; rowsNow = reply.rows;
    const nrows = rowsNow.first.length;
    laneH = Math.max(LANE_MIN_PX, Math.min(LANE_MAX_PX, Math.floor(600 / Math.max(1, nrows))));
    laneRow = new Map();
    for (let r = 0; r < nrows; r++) for (let l = rowsNow.first[r]; l <= rowsNow.last[r]; l++) laneRow.set(l, r);
    const { ctx, w } = setupCanvas(tl, nrows * laneH + 22);
    const plotW = w - LABEL_W, scale = plotW / (state.t1 - state.t0);
    const X = (t) => LABEL_W + (t - state.t0) * scale;
    plot = { X: X, plotW: plotW };
    ctx.clearRect(0, 0, w, tl.height);
    drawRegionBands(ctx, X, w, nrows);
    (S.phases || []).forEach((p, i) => {           // phase bands behind everything
      ctx.fillStyle = i % 2 ? "rgba(120,160,120,0.10)" : "rgba(120,120,180,0.10)";
      const a = Math.max(LABEL_W, X(p.t0)), b = Math.min(w, X(p.t1));
      if (b > a) ctx.fillRect(a, 0, b - a, nrows * laneH);
    });
    ctx.font = Math.min(12, laneH) + "px sans-serif"; ctx.textBaseline = "middle";
    for (let r = 0; r < nrows; r++) {
      if (r % 2) { ctx.fillStyle = "rgba(0,0,0,0.03)"; ctx.fillRect(LABEL_W, r * laneH, plotW, laneH); }
      const slow = rowHasStraggler(r);
      if (laneH >= 8) { ctx.fillStyle = slow ? "#b00" : "#333"; ctx.fillText(rowName(r), 2, r * laneH + laneH / 2, LABEL_W - 4); }
      else if (slow) { ctx.fillStyle = "#b00"; ctx.fillRect(0, r * laneH, 8, laneH); }
    }
    drawn = [];
    if (reply.kind === "spans") {
      const { sub, nsub } = subRows(reply);
      for (let i = 0; i < reply.n; i++) {
        const row = laneRow.get(reply.lane[i]);
        if (row === undefined) continue;
        const mpi = reply.mod[i] === 1, write = reply.op[i] === 1;
        const x0 = Math.max(LABEL_W, X(reply.start[i])), x1 = Math.min(w, X(reply.end[i]));
        const half = hasMpi ? laneH / 2 : laneH, h = half / (nsub.get(row) || 1);
        const y = row * laneH + (hasMpi && !mpi ? half : 0) + sub[i] * h;
        const bw = Math.max(1, x1 - x0);
        ctx.fillStyle = kindColor((write ? 1 : 0) + (mpi ? 2 : 0));
        ctx.fillRect(x0, y + (h > 4 ? 1 : 0), bw, Math.max(1, h - (h > 4 ? 2 : 0)));
        drawn.push({ x: x0, y: y, w: bw, h: h, i: i, sub: sub[i] });
      }
    } else {
      const count = decode(reply.count, reply.count_bytes === 2 ? Uint16Array : Uint32Array);
      const kind = decode(reply.cell_kind, Uint8Array);
      reply.countArr = count; reply.kindArr = kind;
      drawBins(ctx, count, kind, reply, nrows, plotW);
    }
    if (S.partial && S.partial.length && S.lane_last) {     // where a partial trace stopped
      ctx.fillStyle = "#c00";
      for (let r = 0; r < nrows; r++) {
        let last = -Infinity;
        for (let l = rowsNow.first[r]; l <= rowsNow.last[r]; l++) last = Math.max(last, S.lane_last[l]);
        const x = X(last); if (x >= LABEL_W && x <= w) ctx.fillRect(x, r * laneH, 2, laneH);
      }
    }
    drawAxis(ctx, X, w, nrows * laneH + 14);
    tl.dataset.spans = String(drawn.length);
    tl.dataset.kind = reply.kind;
    tl.dataset.segments = String(reply.n);
    tl.dataset.rows = String(nrows);
    $("timeline-status").textContent = reply.kind === "spans"
      ? `${drawn.length} operations drawn` : `${reply.n} operations in view, binned (${reply.source}); zoom in for single operations`;
    const agg = $("aggregation-note");
    agg.hidden = !rowsNow.aggregated;
    if (rowsNow.aggregated) agg.textContent = `${rowsNow.lanes_in_view} lanes in view, drawn as ${nrows} rows of about ` +
      `${Math.ceil(rowsNow.lanes_in_view / nrows)}: hover a row for its busiest and slowest rank; red marks: rows holding a straggler. Shift+wheel or the rank filter shows single lanes.`;
    const part = $("partial-note");
    part.hidden = !(S.partial && S.partial.length);
    if (!part.hidden) part.textContent = `The trace is partial (${S.partial.join(", ")} stopped recording): red marks show where each lane's trace ends.`;
  }
  const clip = (s) => s.length > TIP_NAME ? s.slice(0, 60) + " … " + s.slice(-(TIP_NAME - 63)) : s;
  function laneText(l) {
    const thread = threaded ? laneThread[l] : null;
    return `rank ${laneRank[l]}` + (thread !== null ? ` thread ${threadNo[l]} (pthread ${thread})` : "");
  }
  function tooltipText(i) {
    const r = current, f = (S.files || [])[r.file[i]] || { name: "?", components: [] };
    let ost = "n/a";   // the OST of the operation's first byte, in the layout component holding it
    const off = r.offset[i];
    const c = (f.components || []).find((k) => off >= k.start && (k.end < 0 || off < k.end));
    if (off >= 0 && c && c.osts.length && c.stripe_size > 0) ost = String(c.osts[Math.floor((off - c.start) / c.stripe_size) % c.osts.length]);
    return [`file:     ${clip(f.name)}`, `process:  ${laneText(r.lane[i])}`,
      `module:   ${r.mod[i] === 1 ? "MPI-IO" : "POSIX"}  ${r.op[i] === 1 ? "write" : "read"}`,
      `offset:   ${r.offset[i]}`, `size:     ${r.length[i]}`, `start:    ${r.start[i].toFixed(6)} s`,
      `duration: ${(r.end[i] - r.start[i]).toFixed(6)} s`, `OST:      ${ost}`]
      .concat(RG.names.length ? [`region:   ${r.region[i] >= 0 ? clip(RG.names[r.region[i]]) : "none"}`] : []).join("\n");
  }
  function rowText(row) {
    const R = rowsNow, lines = [R.first[row] === R.last[row] ? laneText(R.first[row]) : rowName(row) + ` (${R.last[row] - R.first[row] + 1} lanes)`];
    if (R.first[row] !== R.last[row]) lines.push(`busiest:  ${laneText(R.busiest[row])}`, `slowest:  ${laneText(R.slowest[row])} (${fmtTime(R.busy[row])} of I/O in view)`);
    return lines;
  }
  const KIND_NAME = ["POSIX read", "POSIX write", "MPI-IO read", "MPI-IO write"];
  function binText(row, col) {
    const r = current, k = row * r.px + col, c = r.countArr[k];
    const t0 = state.t0 + (state.t1 - state.t0) * col / r.px, t1 = state.t0 + (state.t1 - state.t0) * (col + 1) / r.px;
    if (!c) return null;
    return rowText(row).concat([`${c} operations in flight, mostly ${KIND_NAME[r.kindArr[k]]}`,
      `time:     ${t0.toFixed(6)} – ${t1.toFixed(6)} s`]).join("\n");
  }
  function hitText(x, y) {
    if (!current || !rowsNow) return null;
    const row = Math.floor(y / laneH);
    if (row < 0 || row >= rowsNow.first.length) return null;
    if (x < LABEL_W) return rowText(row).join("\n");
    if (current.kind === "bins") return binText(row, Math.floor((x - LABEL_W) / plot.plotW * current.px));
    for (let k = drawn.length - 1; k >= 0; k--) {
      const d = drawn[k];
      if (x >= d.x - 1 && x <= d.x + d.w + 1 && y >= d.y && y <= d.y + d.h) return tooltipText(d.i);
    }
    return null;
  }
  tl.addEventListener("mousemove", (ev) => {
    if (drag) return;
    const text = hitText(ev.offsetX, ev.offsetY);
    if (!text) { tip.hidden = true; return; }
    tip.textContent = text; tip.hidden = false;
    tip.style.left = Math.min(ev.offsetX + 12, tl.clientWidth - 500) + "px"; tip.style.top = (ev.offsetY + 14) + "px";
  });
  tl.addEventListener("mouseleave", () => { tip.hidden = true; });

  // zoom / pan
  function zoomTime(factor, centerFrac) {
    const span = state.t1 - state.t0, c = state.t0 + span * centerFrac, ns = Math.max(span * factor, S.span * 1e-9);
    state.t0 = c - ns * centerFrac; state.t1 = state.t0 + ns;
    if (state.t0 < 0) { state.t1 -= state.t0; state.t0 = 0; }
    if (state.t1 > S.span) { state.t0 = Math.max(0, state.t0 - (state.t1 - S.span)); state.t1 = S.span; }
    update();
  }
  function zoomRanks(factor, centerFrac) {
    const n = state.r1 - state.r0 + 1, c = state.r0 + n * centerFrac;
    const nn = Math.max(1, Math.round(n * factor));
    state.r0 = Math.round(c - nn * centerFrac); state.r1 = state.r0 + nn - 1;
    clampState(); update();
  }
  tl.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const factor = ev.deltaY > 0 ? 1.25 : 0.8;
    if (ev.shiftKey) zoomRanks(factor, ev.offsetY / Math.max(1, tl.clientHeight - 22));
    else zoomTime(factor, Math.max(0, (ev.offsetX - LABEL_W) / (tl.clientWidth - LABEL_W)));
  }, { passive: false });
  window.addEventListener("keydown", (ev) => {
    if (ev.target && ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
    if (ev.key === "+" || ev.key === "=") { ev.preventDefault(); zoomTime(0.5, 0.5); }
    else if (ev.key === "-" || ev.key === "_") { ev.preventDefault(); zoomTime(2, 0.5); }
  });
  let drag = null;
  tl.addEventListener("mousedown", (ev) => { drag = { x: ev.clientX, y: ev.clientY, t0: state.t0, t1: state.t1, r0: state.r0, r1: state.r1 }; });
  window.addEventListener("mouseup", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y, d = drag; drag = null;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) return;
    const dt = -dx / (tl.clientWidth - LABEL_W) * (d.t1 - d.t0);
    const shift = Math.max(-d.t0, Math.min(S.span - d.t1, dt));
    state.t0 = d.t0 + shift; state.t1 = d.t1 + shift;
    const perRow = rowsNow && rowsNow.first.length ? (d.r1 - d.r0 + 1) / rowsNow.first.length : 1;
    const dr = -Math.round(dy / laneH * perRow), nr = d.r1 - d.r0;
    state.r0 = Math.max(rankMin, Math.min(rankMax - nr, d.r0 + dr)); state.r1 = state.r0 + nr;
    clampState(); update();
  });

  async function update() {
    writeUrl(); syncForm();
    const ticket = ++pending;
    try {
      const reply = await fetchView(Math.max(100, Math.round(tl.clientWidth - LABEL_W)));
      mark("fetched");
      if (ticket === pending) drawTimeline(reply);
      mark("drawn");
    } catch (err) {
      console.error(err);
    }
    if (ticket === pending) document.body.dataset.ready = String(ticket);
  }

  // ------------------------------------------------------------ small charts
  function axes(ctx, w, h, label) {
    ctx.strokeStyle = "#999"; ctx.beginPath(); ctx.moveTo(40, 8); ctx.lineTo(40, h - 20); ctx.lineTo(w - 4, h - 20); ctx.stroke();
    ctx.fillStyle = "#333"; ctx.font = "11px sans-serif"; ctx.fillText(label, 44, 12);
  }
  function bars(canvas, labels, series, colors, fmt) {
    // More bars than pixels (a bar per rank at 20,000 ranks): each group of
    // bars sharing a pixel column is drawn once, at its largest value, so the
    // work is bounded by the width and a lone large bar still shows.
    const { ctx, w, h } = setupCanvas(canvas, 220);
    let max = 0; series.forEach((s) => s.forEach((v) => { if (v > max) max = v; }));
    axes(ctx, w, h, "max " + fmt(max));
    const n = labels.length, per = Math.max(1, Math.ceil(n * series.length / (w - 50)));
    const groups = Math.ceil(n / per), gw = (w - 50) / Math.max(1, groups), bw = gw / (series.length + 0.5);
    for (let g = 0; g < groups; g++) {
      series.forEach((s, k) => {
        let v = 0; for (let i = g * per; i < Math.min(n, (g + 1) * per); i++) v = Math.max(v, s[i] || 0);
        const bh = max ? (h - 30) * v / max : 0;
        ctx.fillStyle = colors[k]; ctx.fillRect(42 + g * gw + k * bw, h - 20 - bh, Math.max(1, bw - 1), bh);
      });
      if (groups <= 12 || g % Math.ceil(groups / 12) === 0) { ctx.fillStyle = "#333"; ctx.fillText(labels[g * per], 42 + g * gw, h - 6); }
    }
    canvas.dataset.bars = String(n);
  }
  function drawSizes() {
    const used = [];
    for (let b = 0; b < S.sizes.buckets; b++)
      if ([S.sizes.posix, S.sizes.mpiio].some((m) => m[0][b] || m[1][b])) used.push(b);
    if (!used.length) return;
    const lo = used[0], hi = used[used.length - 1], labels = [], sr = [], sw = [], mr = [], mw = [];
    for (let b = lo; b <= hi; b++) {
      labels.push(fmtBytes(2 ** b).replace(" ", ""));
      sr.push(S.sizes.posix[0][b]); sw.push(S.sizes.posix[1][b]); mr.push(S.sizes.mpiio[0][b]); mw.push(S.sizes.mpiio[1][b]);
    }
    bars($("sizes"), labels, [sr, sw, mr, mw], [COLORS.read, COLORS.write, COLORS.readMpi, COLORS.writeMpi], (v) => v + " ops");
  }
  function lineChart(canvas, width, series, colors, fmt) {
    const { ctx, w, h } = setupCanvas(canvas, 220);
    let max = 0; series.forEach((s) => s.forEach((v) => { if (v > max) max = v; }));
    axes(ctx, w, h, "max " + fmt(max));
    series.forEach((s, k) => {
      ctx.strokeStyle = colors[k]; ctx.beginPath();
      s.forEach((v, i) => { const x = 40 + (w - 44) * i / Math.max(1, s.length - 1), y = h - 20 - (max ? (h - 30) * v / max : 0); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
      ctx.stroke();
    });
    ctx.fillStyle = "#333"; ctx.fillText((width * series[0].length).toPrecision(4) + " s", w - 60, h - 6);
  }
  function drawOffsets() {
    const o = S.offsets, { ctx, w, h } = setupCanvas($("offsets"), 220);
    let max = 1; o.offset.forEach((v) => { if (v > max) max = v; });
    axes(ctx, w, h, "max offset " + fmtBytes(max) + (o.stride > 1 ? ` (every ${o.stride}th operation)` : ""));
    // 2 x 2 dots set in one image (up to 20,000 of them: a fillRect each
    // was most of the static charts' drawing at 20,000 ranks)
    const W = Math.max(1, Math.round(w)), img = new ImageData(W, h), d = img.data;
    o.t.forEach((t, i) => {
      if (state.file >= 0 && o.file[i] !== state.file) return;
      const x = Math.round(40 + (w - 44) * t / S.span), y = Math.round(h - 20 - (h - 30) * o.offset[i] / max);
      if (!(x >= 0 && x < W - 1 && y >= 0 && y < h - 1)) return;
      const rgb = KIND_RGB[o.op[i] ? 1 : 0];
      for (const p of [y * W + x, y * W + x + 1, (y + 1) * W + x, (y + 1) * W + x + 1]) {
        d[4 * p] = rgb[0]; d[4 * p + 1] = rgb[1]; d[4 * p + 2] = rgb[2]; d[4 * p + 3] = 255;
      }
    });
    blit(ctx, img, 0, 0, W, h);
  }
  function table(el, head, rows) {
    el.replaceChildren();
    const tr = (cells, tag) => { const r = document.createElement("tr"); cells.forEach((c) => { const td = document.createElement(tag); td.textContent = c; r.appendChild(td); }); return r; };
    el.appendChild(tr(head, "th")); rows.forEach((row) => el.appendChild(tr(row, "td")));
  }
  function drawStatic() {
    const j = S.job;
    $("job-line").textContent = `${j.exe || j.log} · ${j.nprocs} processes · ${j.run_time.toFixed ? j.run_time.toFixed(2) : j.run_time} s · ${S.nseg} traced operations`;
    const dmg = S.damage || { total: 0, lines: [] };
    table($("perf-totals"), ["layer", "bytes read", "bytes written", "I/O time (slowest process + shared)", "bandwidth"],
      Object.entries(S.perf || {}).map(([m, p]) => [m, fmtBytes(p.bytes_read), fmtBytes(p.bytes_written), fmtTime(p.agg_time_by_slowest), p.agg_perf_by_slowest.toFixed(2) + " MiB/s"]));
    if (dmg.total) { $("damage-note").hidden = false; $("damage-note").textContent = "Damaged data set aside (not in any figure): " + dmg.lines.join("; "); }
    const fl = $("findings"); fl.replaceChildren();
    (S.findings || []).forEach((f) => {
      const li = document.createElement("li"); li.className = `${f.kind} ${f.severity}`;
      li.dataset.source = f.source;
      const ranks = f.ranks.length ? ` (ranks ${f.ranks.join(", ")})` : "";
      li.textContent = `${f.severity.toUpperCase()} ${f.title}: ${f.detail}${ranks} [${f.source}]`;
      // Only a finding that names processes can move the view to them.
      if (f.ranks.length) li.addEventListener("click", () => { state.r0 = Math.min(...f.ranks); state.r1 = Math.max(...f.ranks); clampState(); update(); });
      fl.appendChild(li);
    });
    if (!(S.findings || []).length) fl.innerHTML = "<li>no findings: the diagnosis and the trace show no problem</li>";
    if (S.has_dxt) {
      table($("phases"), ["phase", "start (s)", "end (s)", "processes", "bytes", "fastest", "slowest"],
        S.phases.map((p, i) => [i + 1, p.t0.toPrecision(5), p.t1.toPrecision(5), p.processes, fmtBytes(p.bytes),
          p.fastest ? `rank ${p.fastest.rank} (${fmtTime(p.fastest.busy)})` : "-", p.slowest ? `rank ${p.slowest.rank} (${fmtTime(p.slowest.busy)})` : "-"]));
      drawSizes();
      lineChart($("bandwidth"), S.bandwidth.width, [S.bandwidth.read, S.bandwidth.write], [COLORS.read, COLORS.write], (v) => fmtBytes(v) + "/s");
      drawOffsets();
      table($("gaps"), ["idle from (s)", "to (s)", "length"], S.gaps.global.map((g) => [g[0].toPrecision(5), g[1].toPrecision(5), fmtTime(g[1] - g[0])]));
      if (S.osts.length) bars($("osts"), S.osts.map((o) => "OST " + o.ost), [S.osts.map((o) => o.bytes)], ["#6b46c1"], fmtBytes);
      else $("ost-box").hidden = true;
    } else {
      $("dxt-views").hidden = true; $("no-dxt-note").hidden = false;
    }
    const hm = S.heatmap;
    if (hm && hm.ranks) {
      const { ctx, w, h } = setupCanvas($("heatmap"), Math.min(600, Math.max(120, hm.ranks.length * 6 + 30)));
      let max = 1; hm.bytes.forEach((r) => r.forEach((v) => { if (v > max) max = v; }));
      const rh = (h - 24) / hm.ranks.length;
      hm.bytes.forEach((row, i) => row.forEach((v, j) => {
        if (!v) return;
        ctx.fillStyle = "rgba(221,107,32," + (0.15 + 0.85 * Math.log1p(v) / Math.log1p(max)).toFixed(3) + ")";
        ctx.fillRect(40 + (w - 44) * j / row.length, i * rh, Math.max(1, (w - 44) / row.length), Math.max(1, rh));
      }));
      ctx.fillStyle = "#333"; ctx.font = "11px sans-serif"; ctx.fillText(`${hm.api}, ${hm.ranks.length} processes, ${(hm.width * hm.bytes[0].length).toPrecision(4)} s`, 44, h - 6);
    } else $("heatmap-box").hidden = true;
    const cv = S.counters.POSIX || S.counters["MPI-IO"] || S.counters.STDIO;
    if (cv) {
      bars($("rank-bytes"), cv.ranks.map((r) => r < 0 ? "shared" : "r" + r), [cv.read, cv.write], [COLORS.read, COLORS.write], fmtBytes);
      table($("top-files"), ["file", "bytes"], cv.top_files.map((f) => [f[0], fmtBytes(f[1])]));
    } else { $("ranks-box").hidden = true; $("topfiles-box").hidden = true; }
  }

  // ------------------------------------------------------------ wiring
  $("f-apply").addEventListener("click", () => { readForm(); update(); if (S.has_dxt) drawOffsets(); });
  $("f-reset").addEventListener("click", () => { Object.assign(state, { t0: 0, t1: S.span, r0: rankMin, r1: rankMax, op: "all", file: -1, region: -1 }); update(); });
  $("zoom-in").addEventListener("click", () => zoomTime(0.5, 0.5));
  $("zoom-out").addEventListener("click", () => zoomTime(2, 0.5));
  readUrl();
  (S.files || []).forEach((f, i) => { const o = document.createElement("option"); o.value = String(i); o.textContent = f.name; $("f-file").appendChild(o); });
  // The first view is asked for before the static charts are drawn, so the
  // server's query runs while the browser draws them (at 20,000 ranks each
  // takes a few hundred ms on a loaded machine: in turn they added up).
  setupRegions();
  if (S.has_dxt) update(); else document.body.dataset.ready = "0";
  drawStatic();
  mark("static");
  window.iolensExplorer = { state: state, update: update, zoomTime: zoomTime, zoomRanks: zoomRanks, drawn: () => drawn,
    tooltipText: tooltipText, hitText: hitText, laneName: laneName, rows: () => rowsNow, reply: () => current };
})();
