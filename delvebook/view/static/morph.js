// delvebook's table, the redraw: the tree a view model draws is reconciled into the one on the page (keyed, as
// morphdom does), so every control that has not changed stays the same element. A click pressed on a button and
// released after a redraw lands on the button it was pressed on; a field being typed in keeps its text, its caret
// and its focus; a box keeps its scroll. Handlers are not listeners on the elements (the page's listeners hand
// each event to the `on` of the element it reached, dom.js), so a kept element gets the new drawing's handlers.
//
// Siblings are matched by key: what a builder gave (a button: the intent it sends), else the first data-* of
// KEYS an element carries (a section's `where`, a field's `key`, a chip's `name`, a log row's `seq`...); an
// element with none is matched to the next unmatched one of its tag and first class, in order.

const KEYS = ["key", "where", "scroll", "form", "seq", "name", "panel", "ktab", "roll", "player", "kind", "alone",
  "option", "foe", "encounter", "table", "n", "out", "mode"];

function keyOf(n) {
  if (n.nodeType !== 1) return null;
  if (n.dbKey) return n.dbKey;
  const d = n.dataset;
  if (d) for (const k of KEYS) if (d[k] !== undefined) return `${n.localName}[${k}=${d[k]}]`;
  return null;
}

function shapeOf(n) {
  if (n.nodeType !== 1) return `#${n.nodeType}`;
  const cls = n.getAttribute("class");
  return `${n.namespaceURI}:${n.localName}.${cls ? cls.split(" ", 1)[0] : ""}`;
}

// a field the keeper is typing in: its text, caret and focus are theirs until its own form went through
function typing(n, opts) {
  if (n !== document.activeElement) return false;
  if (n.dataset && n.dataset.key && opts.cleared && opts.cleared.has(n.dataset.key)) return false;
  return n.localName === "textarea" || n.localName === "select" ||
    (n.localName === "input" && !["checkbox", "radio", "button", "submit"].includes(n.type));
}

function morphNode(old, next, opts) {
  if (old.nodeType !== 1) {
    if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    return;
  }
  for (const a of [...old.attributes]) if (!next.hasAttribute(a.name)) old.removeAttribute(a.name);
  for (const a of next.attributes) if (old.getAttribute(a.name) !== a.value) old.setAttribute(a.name, a.value);
  old.dbOn = next.dbOn;
  old.dbKey = next.dbKey;
  const held = typing(old, opts);
  if (old.localName !== "textarea") morphChildren(old, next, opts);
  if (held) return;
  if (old.localName === "input" || old.localName === "textarea" || old.localName === "select") {
    if (old.value !== next.value) old.value = next.value;
    if (old.checked !== next.checked) old.checked = next.checked;
  }
}

// the children of `old` become those of `next`: matched ones morphed and kept, the rest removed or adopted
export function morphChildren(old, next, opts = {}) {
  const keyed = new Map(), loose = new Map();
  for (const o of old.childNodes) {
    const k = keyOf(o);
    if (k !== null) {
      if (!keyed.has(k)) keyed.set(k, []);
      keyed.get(k).push(o);
    } else if (o.nodeType === 1 || o.nodeType === 3) {
      const s = shapeOf(o);
      if (!loose.has(s)) loose.set(s, []);
      loose.get(s).push(o);
    }
  }
  const wanted = [];
  for (const n of [...next.childNodes]) {
    const k = keyOf(n);
    const pool = k !== null ? keyed.get(k) : loose.get(shapeOf(n));
    const o = pool && pool.length ? pool.shift() : null;
    if (o) { morphNode(o, n, opts); wanted.push(o); } else wanted.push(n);
  }
  const keep = new Set(wanted);
  for (const o of [...old.childNodes]) if (!keep.has(o)) o.remove();
  let at = old.firstChild;
  for (const w of wanted) {
    if (w === at) at = at.nextSibling;
    else old.insertBefore(w, at);
  }
}
