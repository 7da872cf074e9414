"""``ssdlab sweep report DIR``: one self-contained HTML page of a sweep's results.

The page carries its data as inline JSON and draws inline SVG plots with inline
JavaScript (no network, no CDN): every chosen metric against every axis (the parameters
that vary), one point per run and a line through the mean of each group (coloured by a
second axis), filters on every axis value and a table of the filtered runs. The key
metrics (IOPS, bandwidth, mean and p99 latency, WAF) are shown first; any other metric
(every device counter included) is one click away. Labels carry units (``read p99
latency (µs)``, ``read MB/s``); axis values are in their natural order (sizes and times
by size, off/min/half/max), plots are wide enough to read with the legend beside them,
and the runs table is sorted by the axes.

Simplifications: axes are the parameter columns with more than one value (the resolved
``config.*`` columns are left out: they follow ``set.*`` and ``device``); plots are
scatter-and-mean, not box plots.
"""

from __future__ import annotations

import html
import json
import math
import os
from pathlib import Path
from typing import Any

PARAM_PREFIXES = ("set.", "workload.")
PARAM_NAMES = ("device", "state", "seed")
META = ("run_id", "status", "error", "ssdlab_version")
METRIC_PREFIXES = ("read_", "write_", "trim_", "stats.", "prep.")
METRIC_NAMES = (
    "waf",
    "measured_waf",
    "sim_time_ns",
    "wall_time_s",
    "prep_wall_time_s",
    "sim_wall_time_s",
    "events",
    "queues",
)
KEY_METRICS = (
    "read_iops",
    "write_iops",
    "read_mb_per_s",
    "write_mb_per_s",
    "read_lat_mean_us",
    "read_lat_p99_us",
    "write_lat_mean_us",
    "write_lat_p99_us",
    "waf",
)


def is_metric(col: str) -> bool:
    return col in METRIC_NAMES or col.startswith(METRIC_PREFIXES)


def columns(df) -> tuple[list[str], list[str]]:
    """(axes, metrics) of a results frame."""
    axes, metrics = [], []
    from ssdlab.schema import replacement

    for c in df.columns:
        if c in META or c.startswith("config.") or replacement(c):
            continue  # deprecated aliases (read_lat_p99_ns) repeat their _us column
        values = df[c].dropna()
        if is_metric(c):
            if values.size and values.map(_is_number).all() and values.nunique() > 0:
                metrics.append(c)
        elif values.astype(str).nunique() > 1:
            axes.append(c)
    # Device overrides and workload options first, repeats (seed) last.
    order = ("set.", "workload.", "device", "state")
    axes.sort(
        key=lambda a: (
            a == "seed",
            next((i for i, p in enumerate(order) if a.startswith(p)), len(order)),
        )
    )
    return axes, metrics


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _clean(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def page(df, title: str) -> str:
    axes, metrics = columns(df)
    keep = ["run_id", "status", "error", *axes, *metrics]
    rows = [{k: _clean(v) for k, v in r.items()} for r in df[keep].to_dict("records")]
    data = {
        "axes": axes,
        "metrics": metrics,
        "key": [m for m in KEY_METRICS if m in metrics and df[m].fillna(0).any()],
        "rows": rows,
    }
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    n_ok = int((df["status"] == "ok").sum())
    summary = (
        f"{len(df)} runs ({n_ok} ok, {len(df) - n_ok} failed), {len(axes)} axes "
        f"({', '.join(axes) or 'none'}), {len(metrics)} metrics"
    )
    return (
        TEMPLATE.replace("__TITLE__", html.escape(title))
        .replace("__SUMMARY__", html.escape(summary))
        .replace("__DATA__", blob)
        .replace("__SCRIPT__", SCRIPT)
    )


def write_report(out: str | os.PathLike, target: str | os.PathLike | None = None) -> Path:
    """Write the report of the sweep directory ``out``; returns the HTML file's path."""
    from ssdlab.sweep.store import sweep_results

    df = sweep_results(out)
    path = Path(target) if target else Path(out) / "report.html"
    from ssdlab.cliutil import write_atomically

    write_atomically(path, page(df, f"ssdlab sweep: {Path(out).resolve().name}"))
    os.chmod(path, 0o644)  # a page to share, not a secret (the temporary file is 0600)
    return path


TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{font:14px system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:18px 0 6px}
.filters{display:flex;flex-wrap:wrap;gap:10px}
fieldset{border:1px solid #ccc;padding:4px 8px} legend{font-weight:600}
label{margin-right:8px;white-space:nowrap}
.plots{display:flex;flex-wrap:wrap;gap:8px}
.plot{border:1px solid #ddd;background:#fff}
table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ddd;padding:2px 6px}
th{background:#f4f4f4;position:sticky;top:0} td.num{text-align:right}
tr.failed td{background:#fde8e8} #metricbox{max-height:140px;overflow:auto;columns:4}
</style></head><body>
<h1>__TITLE__</h1><div id="summary">__SUMMARY__</div>
<h2>Filters</h2><div class="filters" id="filters"></div>
<h2>Metrics</h2>
<div><button id="keyonly">key metrics</button> <button id="allm">all metrics</button>
 <button id="nonem">none</button></div>
<div id="metricbox"></div>
<h2>Plots</h2><div id="plots"></div>
<h2>Runs</h2><div id="count"></div><div style="overflow:auto;max-height:600px">
<table id="table"></table></div>
<script id="data" type="application/json">__DATA__</script>
<script>__SCRIPT__</script>
</body></html>
"""

SCRIPT = r"""
const D = JSON.parse(document.getElementById('data').textContent);
const COLORS = ['#1f77b4','#d62728','#2ca02c','#ff7f0e','#9467bd','#8c564b','#e377c2',
                '#17becf','#bcbd22','#7f7f7f'];
const NS = 'http://www.w3.org/2000/svg';
const filters = {}; let shown = new Set(D.key.length ? D.key : D.metrics.slice(0, 6));
function el(tag, attrs, parent, text) {
  const e = tag.startsWith('svg:') ? document.createElementNS(NS, tag.slice(4))
                                   : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
// Values in their natural order: numbers by value; sizes, times and rates by size
// (64MiB < 1GiB, 40us < 1ms); HMB policies off < min < half < max; other text A-Z.
const RANK = {off: 0, min: 1, half: 2, max: 3};
const SCALE = {'': 1, b: 1, kib: 2**10, mib: 2**20, gib: 2**30, tib: 2**40, kb: 1e3, mb: 1e6,
               gb: 1e9, tb: 1e12, k: 2**10, m: 2**20, g: 2**30, ns: 1e-9, us: 1e-6,
               ms: 1e-3, s: 1};
function orderKey(v) {
  if (typeof v === 'number') return [0, v, ''];
  const t = String(v);
  if (t in RANK) return [1, RANK[t], t];
  const m = t.match(/^\s*([\d.]+)\s*([A-Za-z/]*)\s*$/);
  if (m) {
    let u = m[2].toLowerCase(); if (u.endsWith('/s')) u = u.slice(0, -2);
    if (u in SCALE) return [0, parseFloat(m[1]) * SCALE[u], t];
  }
  return [2, 0, t];
}
function cmp(a, b) {
  const x = orderKey(a), y = orderKey(b);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}
function vals(col, rows) {
  const s = [...new Set(rows.map(r => r[col]).filter(v => v !== null && v !== undefined))];
  return s.every(v => typeof v === 'number') ? s.sort((a, b) => a - b)
                                            : s.map(String).sort(cmp);
}
// A column's label with its unit: read_lat_p99_us -> "read p99 latency (µs)".
function label(c) {
  const short = /^(workload|set)\./.test(c) ? c.split('.').pop() : c;
  let m = short.match(/^(?:(read|write|trim)_)?(lat|clat|slat)_(\w+?)_(us|ns)$/);
  if (m) {
    const what = {lat: 'latency', clat: 'completion latency', slat: 'submission latency'}[m[2]];
    const stat = m[3].startsWith('p') ? m[3].replace(/_/g, '.') : m[3];
    return (m[1] ? m[1] + ' ' : '') + stat + ' ' + what + (m[4] === 'us' ? ' (µs)' : ' (ns)');
  }
  m = short.match(/^(?:(read|write|trim)_)?(iops|mb_per_s|bw_bytes)$/);
  if (m) return (m[1] ? m[1] + ' ' : '') +
                {iops: 'IOPS', mb_per_s: 'MB/s', bw_bytes: 'bandwidth (bytes/s)'}[m[2]];
  for (const [suf, u] of [['_us', 'µs'], ['_ns', 'ns'], ['_bytes', 'bytes'], ['_ms', 'ms'],
                          ['_s', 's']])
    if (short.endsWith(suf)) return short.slice(0, -suf.length) + ' (' + u + ')';
  return short === 'waf' ? 'WAF' : short;
}
function fmt(v) {
  if (typeof v !== 'number') return v === null || v === undefined ? '' : String(v);
  const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toPrecision(3) + 'G';
  if (a >= 1e6) return (v / 1e6).toPrecision(3) + 'M';
  if (a >= 1e4) return (v / 1e3).toPrecision(3) + 'k';
  if (a >= 100) return Math.round(v).toLocaleString('en-US');
  return Number.isInteger(v) ? String(v) : v.toPrecision(3);
}
function buildFilters() {
  const box = document.getElementById('filters');
  for (const a of D.axes) {
    const fs = el('fieldset', {}, box); el('legend', {title: a}, fs, label(a));
    filters[a] = new Set(vals(a, D.rows).map(String));
    for (const v of vals(a, D.rows)) {
      const lab = el('label', {}, fs);
      const cb = el('input', {type: 'checkbox'}, lab); cb.checked = true;
      cb.onchange = () => { cb.checked ? filters[a].add(String(v)) : filters[a].delete(String(v));
                            render(); };
      lab.appendChild(document.createTextNode(' ' + v));
    }
  }
  const mb = document.getElementById('metricbox');
  for (const m of D.metrics) {
    const lab = el('label', {style: 'display:block'}, mb);
    const cb = el('input', {type: 'checkbox', 'data-m': m}, lab); cb.checked = shown.has(m);
    cb.onchange = () => { cb.checked ? shown.add(m) : shown.delete(m); render(); };
    lab.appendChild(document.createTextNode(' ' + m));
  }
  const setAll = (list) => { shown = new Set(list);
    for (const cb of mb.querySelectorAll('input')) cb.checked = shown.has(cb.dataset.m);
    render(); };
  document.getElementById('keyonly').onclick = () => setAll(D.key);
  document.getElementById('allm').onclick = () => setAll(D.metrics);
  document.getElementById('nonem').onclick = () => setAll([]);
}
function plot(parent, rows, x, m) {
  const by = D.axes.find(a => a !== x && vals(a, rows).length > 1 && a !== 'seed')
             || D.axes.find(a => a !== x && vals(a, rows).length > 1);
  // The legend sits right of the plot area, never on the data.
  const W = by ? 600 : 480, H = 300, L = 64, R = by ? 130 : 14, T = 24, B = 44;
  const svg = el('svg:svg', {width: W, height: H, class: 'plot'}, parent);
  el('svg:text', {x: L, y: 15, 'font-size': 13, 'font-weight': 600}, svg,
     label(m) + ' vs ' + label(x));
  const pts = rows.filter(r => typeof r[m] === 'number' && r[x] !== null && r[x] !== undefined);
  if (!pts.length) { el('svg:text', {x: L, y: H / 2}, svg, 'no data'); return; }
  const xs = vals(x, pts), numeric = xs.every(v => typeof v === 'number');
  const logx = numeric && xs[0] > 0 && xs[xs.length - 1] / xs[0] >= 16;
  const xpos = numeric
    ? (v) => { const f = logx ? Math.log : (t) => t; const lo = f(xs[0]), hi = f(xs[xs.length-1]);
               return L + (hi > lo ? (f(v) - lo) / (hi - lo) : 0.5) * (W - L - R); }
    : (v) => L + (xs.indexOf(String(v)) + 0.5) / xs.length * (W - L - R);
  const ys = pts.map(r => r[m]);
  let ylo = Math.min(0, ...ys), yhi = Math.max(...ys); if (yhi === ylo) yhi = ylo + 1;
  // round ticks: a step of 1, 2 or 5 times a power of ten, about 4 of them
  const raw = (yhi - ylo) / 4, p10 = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(k => k * p10).find(k => k >= raw);
  ylo = Math.floor(ylo / step) * step; yhi = Math.ceil(yhi / step) * step;
  const ypos = (v) => H - B - (v - ylo) / (yhi - ylo) * (H - T - B);
  el('svg:line', {x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: '#888'}, svg);
  el('svg:line', {x1: L, y1: T, x2: L, y2: H - B, stroke: '#888'}, svg);
  for (let v = ylo; v <= yhi + step / 2; v += step) {
    const y = ypos(v);
    el('svg:line', {x1: L, y1: y, x2: W - R, y2: y, stroke: '#eee'}, svg);
    el('svg:text', {x: L - 4, y: y + 4, 'font-size': 11, 'text-anchor': 'end'}, svg, fmt(v));
  }
  for (const v of xs) el('svg:text', {x: xpos(v), y: H - B + 15, 'font-size': 11,
                                      'text-anchor': 'middle'}, svg, fmt(v));
  el('svg:text', {x: (L + W - R) / 2, y: H - 6, 'font-size': 12, 'text-anchor': 'middle'},
     svg, label(x) + (logx ? ' (log scale)' : ''));
  el('svg:text', {x: 14, y: (T + H - B) / 2, 'font-size': 12, 'text-anchor': 'middle',
                  transform: 'rotate(-90 14 ' + (T + H - B) / 2 + ')'}, svg, label(m));
  const groups = by ? vals(by, pts).map(String) : [''];
  groups.forEach((g, gi) => {
    const c = COLORS[gi % COLORS.length];
    const mine = pts.filter(r => !by || String(r[by]) === g);
    const line = [];
    for (const v of xs) {
      const at = mine.filter(r => String(r[x]) === String(v));
      if (at.length) line.push([xpos(v), ypos(at.reduce((s, r) => s + r[m], 0) / at.length)]);
    }
    if (line.length > 1) el('svg:polyline', {points: line.map(p => p.join(',')).join(' '),
                                             fill: 'none', stroke: c, 'stroke-width': 2}, svg);
    for (const r of mine) {
      const dot = el('svg:circle', {cx: xpos(r[x]), cy: ypos(r[m]), r: 3.5, fill: c}, svg);
      el('svg:title', {}, dot, D.axes.map(a => a + '=' + r[a]).join(', ') + ': ' + fmt(r[m]));
    }
    if (by) {
      const ly = T + 8 + 16 * gi;
      el('svg:line', {x1: W - R + 8, y1: ly - 4, x2: W - R + 24, y2: ly - 4, stroke: c,
                      'stroke-width': 2}, svg);
      el('svg:text', {x: W - R + 28, y: ly, 'font-size': 11, fill: '#222'}, svg,
         (gi === 0 ? label(by) + '=' : '') + g);
    }
  });
}
function render() {
  const rows = D.rows.filter(r => D.axes.every(a => filters[a].has(String(r[a]))));
  rows.sort((p, q) => { for (const a of D.axes) { const c = cmp(p[a], q[a]); if (c) return c; }
                        return 0; });
  const ok = rows.filter(r => r.status === 'ok');
  const plots = document.getElementById('plots'); plots.innerHTML = '';
  const axes = D.axes.length ? D.axes : ['run_id'];
  for (const m of D.metrics.filter(m => shown.has(m))) {
    const div = el('div', {class: 'plots'}, plots);
    for (const a of axes) plot(div, ok, a, m);
  }
  document.getElementById('count').textContent = rows.length + ' of ' + D.rows.length + ' runs';
  const t = document.getElementById('table'); t.innerHTML = '';
  const cols = ['status', ...D.axes, ...D.metrics.filter(m => shown.has(m)), 'error', 'run_id'];
  const hr = el('tr', {}, t); for (const c of cols) el('th', {title: c}, hr, label(c));
  for (const r of rows) {
    const tr = el('tr', {class: r.status === 'ok' ? '' : 'failed'}, t);
    for (const c of cols) el('td', {class: typeof r[c] === 'number' ? 'num' : ''}, tr, fmt(r[c]));
  }
}
buildFilters(); render();
"""
