// delvebook's table: the Charts panel, SVG line charts drawn from the series the view model carries (XP per
// delver with the level thresholds, hearts in the latest fight). Loaded before table.js in the same module, whose
// h, text and svg it uses. Every label is set as text.

// where the end labels go: each beside its line's end, moved apart so none prints on another (in the order they
// want to be, each at least a line below the one above, then back up from the bottom if they ran past it)
function spread(wanted, top, bottom, gap) {
  const order = wanted.map((y, i) => [y, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const ys = new Array(wanted.length);
  let prev = -Infinity;
  for (const [y, i] of order) { ys[i] = Math.max(y, prev + gap, top); prev = ys[i]; }
  let next = Infinity;
  for (let k = order.length - 1; k >= 0; k--) { const i = order[k][1]; ys[i] = Math.min(ys[i], next - gap, bottom); next = ys[i]; }
  return ys;
}

function lineChart(title, series, opts) {
  const GAP = 12;  // one label's height
  const labels = series.map((s) => { const last = s.points[s.points.length - 1]; return last ? `${s.name} ${last[1]}` : null; });
  const longest = Math.max(0, ...labels.map((l) => (l ? l.length : 0)));
  const W = 560, L = 40, B = 24, T = 32, R = Math.round(Math.min(220, Math.max(90, 12 + 5.6 * longest)));
  const H = Math.max(210, T + B + (labels.filter((l) => l).length + 1) * GAP);
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1])).concat((opts.marks || []).map((m) => m.y));
  const x0 = opts.first !== undefined && opts.first !== null ? opts.first : Math.min(0, ...xs);
  const x1 = Math.max(x0 + 1, ...xs, opts.last || 0);
  const y1 = Math.max(1, ...ys);
  const X = (x) => L + ((x - x0) / (x1 - x0 || 1)) * (W - L - R);
  const Y = (y) => H - B - (y / y1) * (H - B - T);
  const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "db-chart", role: "img" });
  g.appendChild(svg("text", { x: 4, y: 14, class: "db-chart-title" }, title));
  g.appendChild(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "db-axis" }));
  g.appendChild(svg("line", { x1: L, y1: T, x2: L, y2: H - B, class: "db-axis" }));
  g.appendChild(svg("text", { x: L - 4, y: Y(y1) + 4, class: "db-tick", "text-anchor": "end" }, y1));
  g.appendChild(svg("text", { x: L - 4, y: H - B, class: "db-tick", "text-anchor": "end" }, 0));
  g.appendChild(svg("text", { x: W - R, y: H - 6, class: "db-tick", "text-anchor": "end" }, opts.xlabel || "event"));
  for (const m of opts.marks || []) {  // a mark's label inside the plot, at its left: the right is the lines' own
    g.appendChild(svg("line", { x1: L, y1: Y(m.y), x2: W - R, y2: Y(m.y), class: "db-mark" }));
    g.appendChild(svg("text", { x: L + 4, y: Y(m.y) - 3, class: "db-tick db-mark-label" }, m.label));
  }
  const at = spread(series.map((s) => { const last = s.points[s.points.length - 1]; return last ? Y(last[1]) + 4 : 0; }),
    T + 4, H - B + 4, GAP);
  series.forEach((s, i) => {
    const pts = s.points.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" ");
    const cls = `db-series db-c${i % 8}${s.side === "foes" ? " db-foe-line" : ""}`;
    g.appendChild(svg("polyline", { points: pts, class: cls }, svg("title", {}, s.name)));
    const last = s.points[s.points.length - 1];
    if (!last) return;
    g.appendChild(svg("circle", { cx: X(last[0]).toFixed(1), cy: Y(last[1]).toFixed(1), r: 2.5, class: `db-end db-c${i % 8}` }));
    g.appendChild(svg("text", { x: W - R + 4, y: at[i].toFixed(1), class: `db-legend db-c${i % 8}`, "data-name": s.name }, labels[i]));
  });
  return g;
}

function chartsEl(c) {
  if (!c) return text("div", "db-muted", "Charts need the analysis extra: pip install 'delvebook[analysis]'");
  return h("div", { cls: "db-charts" },
    lineChart("XP per delver (level thresholds dashed)", c.xp.series, { marks: c.xp.thresholds.map((t) => ({ y: t.xp, label: `level ${t.level}` })), last: c.xp.last }),
    c.hearts ? lineChart(`Hearts in fight ${c.hearts.number}`, c.hearts.series,
      { first: c.hearts.first, last: c.hearts.last, xlabel: `events #${c.hearts.first}\u2013#${c.hearts.last}` })
      : text("div", "db-muted", "No fight yet: hearts are charted per fight."));
}
