// delvebook's table, the shared DOM helpers: elements built from text only (every value set as textContent or a
// text node, numbers included, so a campaign file cannot inject markup), and the small pieces every panel draws
// (a bar, luck pips, a die, a roll). Nothing here knows a table: the per-table controls are in controls.js.
//
// An element's handlers (`on: { click(ev, el) {...} }`) are kept on it, not added as listeners: the table listens
// once (`listen`) and hands each event to the handlers of the elements it passes, each called with the element
// itself. So a redraw that keeps an element (morph.js) gives it the new drawing's handlers, and a handler reads
// the element on the page, never one drawn and dropped.

export const PIPS = ["\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];

export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    if (props.cls) el.className = props.cls;
    if (props.title) el.title = String(props.title);
    if (props.data) for (const [k, v] of Object.entries(props.data)) if (v !== undefined && v !== null) el.dataset[k] = String(v);
    if (props.attrs) for (const [k, v] of Object.entries(props.attrs)) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? "" : String(v));
    if (props.on) el.dbOn = props.on;
    if (props.key !== undefined && props.key !== null) el.dbKey = String(props.key);
    if (props.width !== undefined) el.style.width = `${Math.round(Math.max(0, Math.min(1, props.width)) * 100)}%`;
  }
  add(el, children);
  return el;
}

export function add(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false || c === "") continue;
    if (Array.isArray(c)) add(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export function text(tag, cls, value, title) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  el.textContent = value === null || value === undefined ? "" : String(value);
  if (title) el.title = String(title);
  return el;
}

export const SVG = "http://www.w3.org/2000/svg";
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) {
    if (c === null || c === undefined) continue;
    if (c instanceof Node) el.appendChild(c); else el.appendChild(document.createTextNode(String(c)));
  }
  return el;
}

// the events a table hands to its elements' handlers, from the element reached outwards (a handler that stops
// the event's propagation ends it there)
export const EVENTS = ["click", "change", "input", "keydown"];
export function listen(root) {
  const hand = (ev) => {
    for (let n = ev.target; n && n !== root.parentNode; n = n.parentNode) {
      const fn = n.dbOn && n.dbOn[ev.type];
      if (fn) {
        fn(ev, n);
        if (ev.cancelBubble) return;
      }
    }
  };
  for (const type of EVENTS) root.addEventListener(type, hand);
  return () => { for (const type of EVENTS) root.removeEventListener(type, hand); };
}

// ---- pieces
export function bar(frac, label, cls, data) {
  const tone = frac > 0.5 ? "db-good" : frac > 0.25 ? "db-warn" : "db-bad";
  return h("div", { cls: `db-bar ${cls || ""} ${tone}`, data, title: label },
    h("div", { cls: "db-fill", width: frac }), text("span", "db-bar-label", label));
}

export function pips(left, top) {
  return text("span", "db-pips", "\u25c6".repeat(Math.max(0, left)) + "\u25c7".repeat(Math.max(0, top - left)),
    `${left} of ${top} luck dice left`);
}

export function die(d) {
  if (d.mod !== undefined) return text("span", "db-mod", (d.mod >= 0 ? "+" : "\u2212") + Math.abs(d.mod));
  const face = d.sides === 6 && !d.d66 ? PIPS[d.face - 1] || String(d.face) : String(d.face);
  const cls = `db-die db-d${d.sides}${d.kept ? "" : " db-dropped"}${d.luck ? " db-luckdie" : ""}`;
  const t = d.luck ? `luck die by ${d.luck}: ${d.sign > 0 ? "+" : "-"}${d.face}` :
    d.d66 ? `d66 ${d.d66}: ${d.face}` : `d${d.sides}: ${d.face}${d.kept ? "" : " (dropped)"}`;
  const sign = d.luck || d.sign < 0 ? (d.sign < 0 ? "\u2212" : "+") : null;
  return h("span", { cls: "db-diewrap" }, sign ? text("span", "db-sign", sign) : null, text("span", cls, face, t));
}

export function rollEl(r) {
  return h("div", { cls: "db-roll", data: { total: r.total, name: r.name } },
    text("span", "db-roll-label", r.label), text("code", "db-expr", r.expr),
    h("span", { cls: "db-dice" }, (r.dice || []).map(die)),
    text("b", "db-total", `= ${r.total}`), r.was !== null && r.was !== undefined ? text("span", "db-was", `(was ${r.was})`) : null);
}

// a button's words, and the exact odds beside them
export function oddsLabel(label, odds, extra) {
  return [text("span", "db-btn-label", label), odds ? text("span", "db-odds", `${odds}${extra || ""}`) : null];
}
