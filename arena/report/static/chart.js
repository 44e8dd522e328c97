/* The one chart of the pages (lines over an x axis: Elo as boards come in, a bot across
 * tournaments, an SPRT's LLR), and the small scales of the standings' and opponents' bars. */
import { s } from "./dom.js";
import { elo } from "./format.js";

export const PALETTE = ["#2456a6", "#d1495b", "#2a9d8f", "#e9a23b", "#6a4c93", "#3d7d2e", "#c05299", "#1b98e0",
  "#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#ff7f0e", "#9467bd", "#2ca02c", "#e377c2", "#393b79", "#637939",
  "#8c6d31", "#843c39"];

export function niceTicks(lo, hi, n) {
  const span = hi - lo, raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(function (m) { return m * mag; }).find(function (st) { return span / st <= n; }) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(Math.round(v * 1e6) / 1e6);
  return out;
}

// Lines over an x axis. o: width, height, margin [left, right, top, bottom], x and y ranges
// ([lo, hi]), yTicks and xTicks (how many; xTicks 0: none), yFormat, grid (a colour), lines
// ([{points: [[x, y]], colour, cls, title, dots: [title per point]}]) and rules (level lines:
// [{y, label, cls}], labelled on the right), id and label (what it shows, for a reader).
export function lineChart(o) {
  const W = o.width, H = o.height, L = o.margin[0], R = o.margin[1], T = o.margin[2], B = o.margin[3];
  const x0 = o.x[0], x1 = o.x[1], y0 = o.y[0], y1 = o.y[1];
  const X = function (v) { return L + (x1 === x0 ? 0 : (v - x0) / (x1 - x0)) * (W - L - R); };
  const Y = function (v) { return T + (y1 - v) / (y1 - y0) * (H - T - B); };
  const g = s("svg", { viewBox: "0 0 " + W + " " + H, role: "img", id: o.id, "aria-label": o.label });
  niceTicks(y0, y1, o.yTicks).forEach(function (v) {
    g.appendChild(s("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: o.grid || "#eef0f3" }));
    g.appendChild(s("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end" }, (o.yFormat || String)(v)));
  });
  if (o.xTicks) niceTicks(x0, x1, o.xTicks).filter(function (q) { return q === Math.round(q); }).forEach(function (q) {
    g.appendChild(s("text", { x: X(q), y: H - 8, "text-anchor": "middle" }, String(q)));
  });
  (o.rules || []).forEach(function (r) {
    g.appendChild(s("line", { class: r.cls, x1: L, x2: W - R, y1: Y(r.y), y2: Y(r.y) }));
    if (r.label) g.appendChild(s("text", { x: W - R + 6, y: Y(r.y) + 4 }, r.label));
  });
  o.lines.forEach(function (line) {
    const pts = line.points.filter(function (p) { return p[1] !== null; })
      .map(function (p) { return X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); }).join(" ");
    g.appendChild(s("polyline", { class: line.cls, points: pts, fill: "none", stroke: line.colour, "stroke-width": 2, "stroke-linejoin": "round" },
      line.title ? s("title", null, line.title) : null));
    if (line.dots) line.points.forEach(function (p, i) {
      g.appendChild(s("circle", { cx: X(p[0]), cy: Y(p[1]), r: 3.5, fill: line.colour }, s("title", null, line.dots[i])));
    });
  });
  return g;
}

// The standings' bars: each row's Elo and its interval on one axis shared by every row.
export function eloScale(rows, width, ref) {
  let lo = ref, hi = ref;
  rows.forEach(function (r) {
    [r.elo, r.ci_low, r.ci_high, r.more_than, r.less_than].forEach(function (v) {
      if (v !== null && v !== undefined) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    });
  });
  const pad = Math.max(20, (hi - lo) * 0.05);
  lo -= pad; hi += pad;
  return { lo: lo, hi: hi, ref: ref, x: function (v) { return 6 + (v - lo) / (hi - lo) * (width - 12); } };
}
// A row's Elo (the dot) with its interval, or its one-sided bound as an open arrow; the dashed
// line is what the intervals are about: the pool's mean (--errors pool) or the anchor's 0.
export function errorBar(r, sc, width) {
  const y = 10, g = s("svg", { class: "bar", width: width, height: 20, viewBox: "0 0 " + width + " 20", role: "img",
    "aria-label": "Elo " + elo(r.elo) + (r.more_than !== null ? ", more than " + elo(r.more_than) : r.less_than !== null
      ? ", less than " + elo(r.less_than) : r.ci_low !== null ? ", 95% interval " + elo(r.ci_low) + " to " + elo(r.ci_high) : "") });
  g.appendChild(s("line", { class: "zero", x1: sc.x(sc.ref), x2: sc.x(sc.ref), y1: 1, y2: 19 }));
  const span = function (a, b, capA, capB) {
    g.appendChild(s("line", { class: "ci", x1: a, x2: b, y1: y, y2: y }));
    if (capA) g.appendChild(s("line", { class: "cap", x1: a, x2: a, y1: y - 5, y2: y + 5 }));
    if (capB) g.appendChild(s("line", { class: "cap", x1: b, x2: b, y1: y - 5, y2: y + 5 }));
  };
  if (r.more_than !== null) {
    span(sc.x(r.more_than), width - 2, true, false);
    g.appendChild(s("path", { class: "arrow", d: "M" + (width - 8) + " " + (y - 4) + " L" + (width - 2) + " " + y + " L" + (width - 8) + " " + (y + 4) }));
  } else if (r.less_than !== null) {
    span(2, sc.x(r.less_than), false, true);
    g.appendChild(s("path", { class: "arrow", d: "M8 " + (y - 4) + " L2 " + y + " L8 " + (y + 4) }));
  } else if (r.ci_low !== null && r.ci_high !== null) {
    span(sc.x(r.ci_low), sc.x(r.ci_high), true, true);
  }
  g.appendChild(s("circle", { class: "dot", cx: sc.x(r.elo), cy: y, r: 4 }));
  return g;
}
export function axis(sc, width) {
  const g = s("svg", { class: "bar", width: width, height: 16, viewBox: "0 0 " + width + " 16", "aria-hidden": "true" });
  niceTicks(sc.lo, sc.hi, 4).forEach(function (v) {
    g.appendChild(s("text", { x: sc.x(v), y: 12, "text-anchor": "middle" }, elo(v)));
  });
  return g;
}
// A score's bar (0 to 100%): its dot and interval; `scoreAxis` heads a column of them.
export function scoreBar(o, W) {
  const g = s("svg", { class: "bar", width: W, height: 20, viewBox: "0 0 " + W + " 20" });
  const x = function (p) { return 6 + p * (W - 12); };
  g.appendChild(s("line", { class: "zero", x1: x(0.5), x2: x(0.5), y1: 1, y2: 19 }));
  g.appendChild(s("line", { class: "ci", x1: x(o.ci_low), x2: x(o.ci_high), y1: 10, y2: 10 }));
  g.appendChild(s("circle", { class: "dot", cx: x(o.pct), cy: 10, r: 4 }));
  return g;
}
export function scoreAxis(W) {
  const g = s("svg", { class: "bar", width: W, height: 26, viewBox: "0 0 " + W + " 26", "aria-hidden": "true" });
  g.appendChild(s("text", { x: W / 2, y: 10, "text-anchor": "middle" }, "score, 95% interval"));
  [[0, "0%", "start"], [0.5, "50%", "middle"], [1, "100%", "end"]].forEach(function (q) {
    g.appendChild(s("text", { x: 6 + q[0] * (W - 12), y: 23, "text-anchor": q[2] }, q[1]));
  });
  return g;
}
// A crosstable cell's colour: red (0) through pale grey (1/2) to green (1).
export function heatColour(p) {
  const d = Math.min(1, Math.abs(p - 0.5) * 2);
  const hue = p < 0.5 ? 4 : 140;
  return "hsl(" + hue + ", " + Math.round(20 + 50 * d) + "%, " + Math.round(96 - 26 * d) + "%)";
}
