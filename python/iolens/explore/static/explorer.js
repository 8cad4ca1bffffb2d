// iolens explore: the page's own canvas drawing (no third-party code, nothing
// loaded from the network).  Served pages ask /api/spans for each view; a
// self-contained page carries its segments in DATA.segments and filters them here.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("iolens-data").textContent);
  const S = DATA.summary;
  const LANE_MAX_PX = 24, LANE_MIN_PX = 3, MAX_LANES_SHOWN = 800;
  const COLORS = { read: "#2b6cb0", write: "#dd6b20", readMpi: "#1a365d", writeMpi: "#9c4221" };
  const $ = (id) => document.getElementById(id);
  const fmtBytes = (b) => {
    const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0;
    while (Math.abs(b) >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i ? b.toFixed(1) : String(Math.round(b))) + " " + u[i];
  };
  const fmtTime = (s) => s >= 1 ? s.toFixed(3) + " s" : s >= 1e-3 ? (s * 1e3).toFixed(3) + " ms" : (s * 1e6).toFixed(1) + " µs";
  const ranks = S.lanes.map((l) => l.rank);
  const rankMin = ranks.length ? Math.min(...ranks) : 0, rankMax = ranks.length ? Math.max(...ranks) : 0;
  const hasMpi = (S.modules || []).includes("DXT_MPIIO") && (S.modules || []).includes("DXT_POSIX");
  const stragglers = new Set();
  (S.findings || []).forEach((f) => { if (f.kind.endsWith("stragglers")) f.ranks.forEach((r) => stragglers.add(r)); });

  // ------------------------------------------------------------ state <-> URL
  const state = { t0: 0, t1: S.span, r0: rankMin, r1: rankMax, op: "all", file: -1 };
  function readUrl() {
    const q = new URLSearchParams(location.search);
    const num = (k) => (q.has(k) && q.get(k) !== "" && isFinite(+q.get(k))) ? +q.get(k) : null;
    for (const k of ["t0", "t1", "r0", "r1", "file"]) { const v = num(k); if (v !== null) state[k] = v; }
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
    q.set("t0", state.t0.toPrecision(12)); q.set("t1", state.t1.toPrecision(12));
    q.set("r0", state.r0); q.set("r1", state.r1); q.set("op", state.op); q.set("file", state.file);
    history.replaceState(null, "", location.pathname + "?" + q.toString());
  }
  function syncForm() {
    $("f-t0").value = state.t0.toPrecision(6); $("f-t1").value = state.t1.toPrecision(6);
    $("f-r0").value = state.r0; $("f-r1").value = state.r1; $("f-op").value = state.op;
    $("f-file").value = String(state.file);
  }
  function readForm() {
    const n = (id, d) => { const v = $(id).value.trim(); return v !== "" && isFinite(+v) ? +v : d; };
    state.t0 = n("f-t0", 0); state.t1 = n("f-t1", S.span); state.r0 = n("f-r0", rankMin);
    state.r1 = n("f-r1", rankMax); state.op = $("f-op").value; state.file = +$("f-file").value;
    clampState();
  }

  // ------------------------------------------------------------ data
  function visibleLanes() {
    const out = [];
    S.lanes.forEach((l, i) => { if (l.rank >= state.r0 && l.rank <= state.r1 && out.length < MAX_LANES_SHOWN) out.push(i); });
    return out;
  }
  function localQuery() {
    const seg = DATA.segments, keep = { start: [], end: [], lane: [], op: [], mod: [], file: [], offset: [], length: [] };
    const laneOk = new Set(visibleLanes()), opCode = state.op === "all" ? -1 : (state.op === "write" ? 1 : 0);
    for (let i = 0; i < seg.start.length; i++) {
      if (seg.end[i] < state.t0 || seg.start[i] > state.t1 || !laneOk.has(seg.lane[i])) continue;
      if (opCode >= 0 && seg.op[i] !== opCode) continue;
      if (state.file >= 0 && seg.file[i] !== state.file) continue;
      for (const k in keep) keep[k].push(seg[k][i]);
    }
    return Object.assign({ kind: "spans", n: keep.start.length, t0: state.t0, t1: state.t1 }, keep);
  }
  let pending = 0;
  async function fetchView(px) {
    if (DATA.segments) return localQuery();
    const q = new URLSearchParams({ t0: state.t0, t1: state.t1, r0: state.r0, r1: state.r1, op: state.op, file: state.file, px: px });
    const r = await fetch("/api/spans?" + q.toString());
    if (!r.ok) throw new Error("query failed: " + r.status);
    return r.json();
  }

  // ------------------------------------------------------------ timeline
  const tl = $("timeline"), tip = $("tooltip");
  let drawn = [], laneRow = new Map(), laneH = LANE_MAX_PX, current = null;
  function setupCanvas(canvas, cssH) {
    const dpr = window.devicePixelRatio || 1, w = canvas.clientWidth || 800;
    canvas.style.height = cssH + "px"; canvas.width = Math.round(w * dpr); canvas.height = Math.round(cssH * dpr);
    const ctx = canvas.getContext("2d"); ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx: ctx, w: w, h: cssH };
  }
  const LABEL_W = 70;
  function drawTimeline(reply) {
    current = reply;
    const lanes = visibleLanes();
    laneH = Math.max(LANE_MIN_PX, Math.min(LANE_MAX_PX, Math.floor(600 / Math.max(1, lanes.length))));
    laneRow = new Map(lanes.map((l, i) => [l, i]));
    const { ctx, w } = setupCanvas(tl, lanes.length * laneH + 22);
    const plotW = w - LABEL_W, scale = plotW / (state.t1 - state.t0);
    const X = (t) => LABEL_W + (t - state.t0) * scale;
    ctx.clearRect(0, 0, w, tl.height);
    (S.phases || []).forEach((p, i) => {           // phase bands behind everything
      ctx.fillStyle = i % 2 ? "rgba(120,160,120,0.10)" : "rgba(120,120,180,0.10)";
      const a = Math.max(LABEL_W, X(p.t0)), b = Math.min(w, X(p.t1));
      if (b > a) ctx.fillRect(a, 0, b - a, lanes.length * laneH);
    });
    ctx.font = Math.min(12, laneH) + "px sans-serif"; ctx.textBaseline = "middle";
    lanes.forEach((l, i) => {
      const lane = S.lanes[l];
      if (i % 2) { ctx.fillStyle = "rgba(0,0,0,0.03)"; ctx.fillRect(LABEL_W, i * laneH, plotW, laneH); }
      if (laneH >= 8) {
        ctx.fillStyle = stragglers.has(lane.rank) ? "#b00" : "#333";
        ctx.fillText("rank " + lane.rank + (lane.thread !== null ? "/" + lane.thread : ""), 2, i * laneH + laneH / 2);
      } else if (stragglers.has(lane.rank)) { ctx.fillStyle = "#b00"; ctx.fillRect(0, i * laneH, 6, laneH); }
    });
    drawn = [];
    if (reply.kind === "spans") {
      for (let i = 0; i < reply.n; i++) {
        const row = laneRow.get(reply.lane[i]);
        if (row === undefined) continue;
        const mpi = reply.mod[i] === 1, write = reply.op[i] === 1;
        const x0 = Math.max(LABEL_W, X(reply.start[i])), x1 = Math.min(w, X(reply.end[i]));
        const half = hasMpi ? laneH / 2 : laneH, y = row * laneH + (hasMpi && !mpi ? half : 0);
        const bw = Math.max(1, x1 - x0);
        ctx.fillStyle = write ? (mpi ? COLORS.writeMpi : COLORS.write) : (mpi ? COLORS.readMpi : COLORS.read);
        ctx.fillRect(x0, y + 1, bw, Math.max(1, half - 2));
        drawn.push({ x: x0, y: y, w: bw, h: half, i: i });
      }
    } else {
      let max = 1; reply.count.forEach((row) => row.forEach((c) => { if (c > max) max = c; }));
      const colW = plotW / reply.px;
      reply.lanes.forEach((l, k) => {
        const row = laneRow.get(l); if (row === undefined) return;
        reply.count[k].forEach((c, j) => {
          if (!c) return;
          ctx.fillStyle = "rgba(43,108,176," + (0.15 + 0.85 * Math.log1p(c) / Math.log1p(max)).toFixed(3) + ")";
          ctx.fillRect(LABEL_W + j * colW, row * laneH, Math.max(1, colW), laneH - 1);
        });
      });
    }
    // time axis
    const axisY = lanes.length * laneH + 14; ctx.fillStyle = "#333"; ctx.font = "11px sans-serif";
    for (let k = 0; k <= 5; k++) {
      const t = state.t0 + (state.t1 - state.t0) * k / 5, x = X(t);
      ctx.fillText(t.toPrecision(5) + " s", Math.min(x, w - 60), axisY);
    }
    tl.dataset.spans = String(drawn.length);
    tl.dataset.kind = reply.kind;
    tl.dataset.segments = String(reply.n);
    $("timeline-status").textContent = reply.kind === "spans"
      ? `${drawn.length} operations drawn` : `${reply.n} operations in view, binned (${reply.source}); zoom in for single operations`;
  }
  function tooltipText(i) {
    const r = current, f = (S.files || [])[r.file[i]] || { name: "?", components: [] };
    const lane = S.lanes[r.lane[i]];
    let ost = "n/a";   // the OST of the operation's first byte, in the layout component holding it
    const off = r.offset[i];
    const c = (f.components || []).find((k) => off >= k.start && (k.end < 0 || off < k.end));
    if (off >= 0 && c && c.osts.length && c.stripe_size > 0) ost = String(c.osts[Math.floor((off - c.start) / c.stripe_size) % c.osts.length]);
    return [`file:     ${f.name}`, `process:  rank ${lane.rank}` + (lane.thread !== null ? ` thread ${lane.thread}` : ""),
      `module:   ${r.mod[i] === 1 ? "MPI-IO" : "POSIX"}  ${r.op[i] === 1 ? "write" : "read"}`,
      `offset:   ${r.offset[i]}`, `size:     ${r.length[i]}`, `start:    ${r.start[i].toFixed(6)} s`,
      `duration: ${(r.end[i] - r.start[i]).toFixed(6)} s`, `OST:      ${ost}`].join("\n");
  }
  tl.addEventListener("mousemove", (ev) => {
    if (drag) return;
    const x = ev.offsetX, y = ev.offsetY;
    let hit = null;
    for (let k = drawn.length - 1; k >= 0; k--) {
      const d = drawn[k];
      if (x >= d.x - 1 && x <= d.x + d.w + 1 && y >= d.y && y <= d.y + d.h) { hit = d; break; }
    }
    if (!hit) { tip.hidden = true; return; }
    tip.textContent = tooltipText(hit.i); tip.hidden = false;
    tip.style.left = Math.min(x + 12, tl.clientWidth - 330) + "px"; tip.style.top = (y + 14) + "px";
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
  let drag = null;
  tl.addEventListener("mousedown", (ev) => { drag = { x: ev.clientX, y: ev.clientY, t0: state.t0, t1: state.t1, r0: state.r0, r1: state.r1 }; });
  window.addEventListener("mouseup", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y, d = drag; drag = null;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) return;
    const dt = -dx / (tl.clientWidth - LABEL_W) * (d.t1 - d.t0);
    const shift = Math.max(-d.t0, Math.min(S.span - d.t1, dt));
    state.t0 = d.t0 + shift; state.t1 = d.t1 + shift;
    const dr = -Math.round(dy / laneH), nr = d.r1 - d.r0;
    state.r0 = Math.max(rankMin, Math.min(rankMax - nr, d.r0 + dr)); state.r1 = state.r0 + nr;
    clampState(); update();
  });

  async function update() {
    writeUrl(); syncForm();
    const ticket = ++pending;
    try {
      const reply = await fetchView(Math.max(100, Math.round(tl.clientWidth - LABEL_W)));
      if (ticket === pending) drawTimeline(reply);
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
    const { ctx, w, h } = setupCanvas(canvas, 220);
    let max = 0; series.forEach((s) => s.forEach((v) => { if (v > max) max = v; }));
    axes(ctx, w, h, "max " + fmt(max));
    const n = labels.length, gw = (w - 50) / Math.max(1, n), bw = gw / (series.length + 0.5);
    labels.forEach((lab, i) => {
      series.forEach((s, k) => {
        const v = s[i] || 0, bh = max ? (h - 30) * v / max : 0;
        ctx.fillStyle = colors[k]; ctx.fillRect(42 + i * gw + k * bw, h - 20 - bh, Math.max(1, bw - 1), bh);
      });
      if (n <= 12 || i % Math.ceil(n / 12) === 0) { ctx.fillStyle = "#333"; ctx.fillText(lab, 42 + i * gw, h - 6); }
    });
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
    o.t.forEach((t, i) => {
      if (state.file >= 0 && o.file[i] !== state.file) return;
      ctx.fillStyle = o.op[i] ? COLORS.write : COLORS.read;
      ctx.fillRect(40 + (w - 44) * t / S.span, h - 20 - (h - 30) * o.offset[i] / max, 2, 2);
    });
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
    (S.files || []).forEach((f, i) => { const o = document.createElement("option"); o.value = String(i); o.textContent = f.name; $("f-file").appendChild(o); });
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
  $("f-reset").addEventListener("click", () => { Object.assign(state, { t0: 0, t1: S.span, r0: rankMin, r1: rankMax, op: "all", file: -1 }); update(); });
  $("zoom-in").addEventListener("click", () => zoomTime(0.5, 0.5));
  $("zoom-out").addEventListener("click", () => zoomTime(2, 0.5));
  readUrl();
  drawStatic();
  window.iolensExplorer = { state: state, update: update, zoomTime: zoomTime, zoomRanks: zoomRanks, drawn: () => drawn, tooltipText: tooltipText };
  if (S.has_dxt) update(); else document.body.dataset.ready = "0";
})();
