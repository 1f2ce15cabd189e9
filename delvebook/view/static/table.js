// delvebook's table: draws the view model the kernel computes (the synced trait "view") and sends back what a
// click asks for, as one intent message. No rule lives here: every number, odd, option and label comes in the
// view model, and every control carries the intent it sends. Every text reaches the page as text
// (textContent / text nodes), numbers included: a campaign file cannot inject markup.

const PIPS = ["\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];

// ---------------------------------------------------------------- building elements (text only)

function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    if (props.cls) el.className = props.cls;
    if (props.title) el.title = String(props.title);
    if (props.data) for (const [k, v] of Object.entries(props.data)) if (v !== undefined && v !== null) el.dataset[k] = String(v);
    if (props.attrs) for (const [k, v] of Object.entries(props.attrs)) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? "" : String(v));
    if (props.on) for (const [k, fn] of Object.entries(props.on)) el.addEventListener(k, fn);
    if (props.width !== undefined) el.style.width = `${Math.round(Math.max(0, Math.min(1, props.width)) * 100)}%`;
  }
  add(el, children);
  return el;
}

function add(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false || c === "") continue;
    if (Array.isArray(c)) add(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

function text(tag, cls, value, title) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  el.textContent = value === null || value === undefined ? "" : String(value);
  if (title) el.title = String(title);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) {
    if (c === null || c === undefined) continue;
    if (c instanceof Node) el.appendChild(c); else el.appendChild(document.createTextNode(String(c)));
  }
  return el;
}

// ---------------------------------------------------------------- one table on the page

function mount(model, el) {
  const me = Math.random().toString(36).slice(2, 10);
  let count = 0;
  let pending = null;            // the intent sent and not yet answered: {id, at}
  let clearing = null;           // form fields to forget once that intent went through: {id, keys}
  const drafts = new Map();      // what the keeper typed and has not sent, by field key (kept across redraws)
  let where = new Map();         // section id -> element (where a refusal or a question is shown)
  let lastWhere = null;
  let lastNotice = "[null,null]";
  let lastSeq = null;
  let live = false;              // a kernel stands behind this table: it answered the page's hello, or sent a view
  let alone = null;              // what to say when none answers: "picture" (a saved table) or "silent" (a click)
  let placed = false;            // the table was brought into view once, as it first showed

  const root = document.createElement("div");
  root.className = "db-root";
  el.appendChild(root);
  const phones = phoneParts({ h, text, svg, button, section, formEl, bar, pips, rollEl, send });

  function post(message) {
    try { model.send(message); } catch (err) { console.warn("delvebook table: no kernel to send to", err); }
  }

  function send(intent, args) {
    if (pending && Date.now() - pending.at < 8000) return;  // one click at a time: a double click acts once
    const id = `${me}:${++count}`;
    pending = { id, at: Date.now() };
    lastWhere = intent.where || null;
    root.classList.add("db-busy");
    post({ type: "intent", id, intent: args ? { ...intent, args } : intent });
    setTimeout(() => { if (pending && pending.id === id) { alone = live ? "silent" : "picture"; draw(); } }, 10000);
    return id;
  }

  // ---- a table with no kernel behind it (a notebook's saved picture, a kernel restarted): said in one line
  const ALONE = {
    picture: "This table is a picture of it as the notebook was saved: no kernel runs it now. Run \u25b8 Run All " +
      "Cells opens it, as play left it (every click is on disk).",
    silent: "The kernel has not answered this click for 10 s: it is still working, or it was restarted or " +
      "stopped (then Run \u25b8 Run All Cells opens the table again, as play left it).",
  };
  function aloneEl() {
    return alone ? h("div", { cls: `db-alone db-alone-${alone}`, data: { alone } }, text("span", null, ALONE[alone])) : null;
  }

  // ---- the table as it first shows: in view (after Run All, or a reloaded page), its top first
  function bringIntoView(v) {
    if (placed || v.scope !== "table" || v.mode !== "keeper") return;
    placed = true;
    requestAnimationFrame(() => {
      let box = root.parentElement;
      while (box && !(/(auto|scroll)/.test(getComputedStyle(box).overflowY) && box.scrollHeight > box.clientHeight)) box = box.parentElement;
      if (!box) return;
      const r = root.getBoundingClientRect(), c = box.getBoundingClientRect();
      const seen = Math.min(r.bottom, c.bottom) - Math.max(r.top, c.top);
      if (r.top < c.top - 1 || seen < Math.min(r.height, c.height) * 0.6) root.scrollIntoView({ block: "start" });
    });
  }

  function button(label, intent, opts = {}) {
    const b = h("button", {
      cls: `db-btn${opts.cls ? " " + opts.cls : ""}`, title: opts.title, data: opts.data,
      attrs: { type: "button", disabled: opts.disabled || !intent },
      on: { click: (ev) => {
        ev.stopPropagation();
        if (!intent) return;
        const id = send(intent, opts.args ? opts.args() : undefined);
        if (id && opts.onSent) opts.onSent(id);
      } },
    });
    add(b, Array.isArray(label) ? label : [label]);
    return b;
  }

  function section(id, cls, ...children) {
    const s = h("div", { cls: `db-section ${cls || ""}`, data: { where: id } }, ...children);
    if (id) where.set(id, s);
    return s;
  }

  // ---- forms: fields remember what was typed across redraws until the intent goes through
  function fieldKey(formId, f) { return `${formId}.${f.name}`; }

  function fieldEl(formId, f) {
    const key = fieldKey(formId, f);
    const has = drafts.has(key);
    const value = has ? drafts.get(key) : f.value;
    const remember = (v) => drafts.set(key, v);
    let input;
    if (f.kind === "choice") {
      input = h("select", { cls: "db-input", data: { key }, attrs: { name: f.name } });
      for (const o of f.options || []) {
        const opt = text("option", null, o.label);
        opt.value = o.value === null || o.value === undefined ? "" : String(o.value);
        input.appendChild(opt);
      }
      input.value = value === null || value === undefined ? "" : String(value);
      input.addEventListener("change", () => {
        remember(input.value);
        if (f.send) send({ ...f.send, value: input.value });  // a choice the form is drawn from (a class)
      });
    } else if (f.kind === "multi") {
      const picked = new Set((value || []).map(String));
      input = h("span", { cls: "db-multi", data: { key } });
      for (const o of f.options || []) {
        const box = h("input", { attrs: { type: "checkbox", value: String(o.value) } });
        box.checked = picked.has(String(o.value));
        box.addEventListener("change", () => {
          remember([...input.querySelectorAll("input:checked")].map((x) => x.value));
        });
        input.appendChild(h("label", { cls: "db-check" }, box, o.label));
      }
      if (!(f.options || []).length) input.appendChild(text("span", "db-muted", "none known"));
    } else if (f.kind === "flag") {
      input = h("input", { cls: "db-flag", data: { key }, attrs: { type: "checkbox" } });
      input.checked = !!value;
      input.addEventListener("change", () => remember(input.checked));
      return h("label", { cls: "db-field db-check", title: f.hint }, input, f.label);
    } else if (f.kind === "lines") {
      input = h("textarea", { cls: "db-input db-lines", data: { key }, attrs: { name: f.name, rows: 5, placeholder: f.hint || f.label } });
      input.value = value === null || value === undefined ? "" : String(value);
      input.addEventListener("input", () => remember(input.value));
    } else if (f.kind === "find") {
      // a big bestiary: typed (an id or a name), with the first few as suggestions
      const list = `db-${me}-${formId}-${f.name}`.replace(/[^A-Za-z0-9_-]/g, "_");
      input = h("input", { cls: "db-input", data: { key }, attrs: { type: "text", list, placeholder: f.hint || f.label, name: f.name } });
      input.value = value === null || value === undefined ? "" : String(value);
      input.addEventListener("input", () => remember(input.value));
      const options = h("datalist", { attrs: { id: list } });
      for (const o of f.options || []) { const opt = text("option", null, o.label); opt.value = String(o.value); options.appendChild(opt); }
      return h("label", { cls: "db-field", title: f.hint, data: { error: f.error ? 1 : null } },
        f.label ? text("span", "db-label", f.label) : null, input, options, f.error ? text("span", "db-field-error", f.error) : null);
    } else {
      input = h("input", {
        cls: `db-input${f.kind === "number" ? " db-num" : ""}`, data: { key },
        attrs: { type: f.kind === "number" ? "number" : "text", placeholder: f.hint || f.label, min: f.min, max: f.max, name: f.name },
      });
      input.value = value === null || value === undefined ? "" : String(value);
      input.addEventListener("input", () => remember(input.value));
    }
    if (f.error) { input.classList.add("db-invalid"); input.setAttribute("aria-invalid", "true"); }
    return h(f.kind === "multi" ? "div" : "label", { cls: "db-field", title: f.hint, data: { error: f.error ? 1 : null } },
      f.label ? text("span", "db-label", f.label) : null, input, f.error ? text("span", "db-field-error", f.error) : null);
  }

  function readField(container, formId, f) {
    const key = fieldKey(formId, f);
    if (drafts.has(key)) return drafts.get(key);
    return f.kind === "multi" ? (f.value || []) : f.value;
  }

  function formEl(form, cls) {
    const box = h("div", { cls: `db-form ${cls || ""}`, data: { form: form.id } });
    const fields = form.fields || [];
    for (const f of fields) box.appendChild(fieldEl(form.id, f));
    const submits = Array.isArray(form.submit) ? form.submit : [form.submit];
    for (const s of submits) {
      box.appendChild(button(s.label, s.intent, {
        cls: "db-primary",
        // what was typed is forgotten once the kernel says the intent went through (kept if refused)
        onSent: (id) => { clearing = { id, keys: fields.map((f) => fieldKey(form.id, f)) }; },
        args: () => {
          const args = {};
          for (const f of fields) args[f.name] = readField(box, form.id, f);
          return args;
        },
      }));
    }
    box.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && ev.target.tagName === "INPUT" && ev.target.type !== "checkbox") {
        const b = box.querySelector("button.db-primary");
        if (b) { ev.preventDefault(); b.click(); }
      }
    });
    return box;
  }

  // ---- pieces
  function bar(frac, label, cls, data) {
    const tone = frac > 0.5 ? "db-good" : frac > 0.25 ? "db-warn" : "db-bad";
    return h("div", { cls: `db-bar ${cls || ""} ${tone}`, data, title: label },
      h("div", { cls: "db-fill", width: frac }), text("span", "db-bar-label", label));
  }

  function pips(left, top) {
    return text("span", "db-pips", "\u25c6".repeat(Math.max(0, left)) + "\u25c7".repeat(Math.max(0, top - left)),
      `${left} of ${top} luck dice left`);
  }

  function die(d) {
    if (d.mod !== undefined) return text("span", "db-mod", (d.mod >= 0 ? "+" : "\u2212") + Math.abs(d.mod));
    const face = d.sides === 6 && !d.d66 ? PIPS[d.face - 1] || String(d.face) : String(d.face);
    const cls = `db-die db-d${d.sides}${d.kept ? "" : " db-dropped"}${d.luck ? " db-luckdie" : ""}`;
    const t = d.luck ? `luck die by ${d.luck}: ${d.sign > 0 ? "+" : "-"}${d.face}` :
      d.d66 ? `d66 ${d.d66}: ${d.face}` : `d${d.sides}: ${d.face}${d.kept ? "" : " (dropped)"}`;
    const sign = d.luck || d.sign < 0 ? (d.sign < 0 ? "\u2212" : "+") : null;
    return h("span", { cls: "db-diewrap" }, sign ? text("span", "db-sign", sign) : null, text("span", cls, face, t));
  }

  function rollEl(r) {
    return h("div", { cls: "db-roll", data: { total: r.total, name: r.name } },
      text("span", "db-roll-label", r.label), text("code", "db-expr", r.expr),
      h("span", { cls: "db-dice" }, (r.dice || []).map(die)),
      text("b", "db-total", `= ${r.total}`), r.was !== null && r.was !== undefined ? text("span", "db-was", `(was ${r.was})`) : null);
  }

  function notice(kind, body, onClose) {
    const box = h("div", { cls: `db-notice db-${kind}`, data: { kind } }, body);
    if (onClose) box.appendChild(button("\u00d7", onClose, { cls: "db-close", title: "dismiss" }));
    return box;
  }

  // ---- the header
  function header(v) {
    const undo = v.undo, redo = v.redo;
    return h("div", { cls: "db-header" },
      text("span", "db-title", v.title),
      text("span", "db-session", `${v.session.text} \u00b7 ${v.session.clock}`),
      v.mode === "keeper" ? h("span", { cls: "db-tabs" }, (v.panels || []).map((p) =>
        button(p.label, p.intent, { cls: `db-tab${p.on ? " db-on" : ""}`, data: { panel: p.id } }))) : null,
      v.mode === "keeper" && undo ? h("span", { cls: "db-undo" },
        button(["\u21b6 ", undo.label], undo.enabled ? undo.intent : null, { cls: "db-undo-btn", title: undo.label }),
        button(["\u21b7 ", redo.label], redo.enabled ? redo.intent : null, { cls: "db-redo-btn", title: redo.label })) : null,
      v.save ? button(["\u2b07 ", v.save.label], v.save.intent, { cls: "db-download db-save", title: v.save.hint }) : null);
  }

  // ---- the party strip
  function partyStrip(party, v) {
    const keeper = v.mode === "keeper";
    return section("party", "db-party", party.map((c) => {
      const cls = ["db-chip", c.selected ? "db-selected" : "", c.acting ? "db-acting" : "", c.dying ? "db-dying" : "",
        c.dead ? "db-dead" : "", c.touched ? "db-touched" : ""].join(" ");
      const chip = h("div", {
        cls, data: { name: c.name, status: c.status, hearts: c.hearts, luck: c.luck },
        on: keeper ? { click: () => send(c.select) } : undefined,
        title: keeper ? `act as ${c.name}` : undefined,
      },
        h("div", { cls: "db-chip-head" }, text("b", "db-name", c.name), text("span", "db-sub", `${c.class} ${c.level}`),
          c.badge ? text("span", "db-badge", c.badge) : null),
        bar(c.frac, `\u2665 ${c.hearts_text}`, "db-hearts", { hearts: c.hearts, max: c.max_hearts, status: c.status }),
        h("div", { cls: "db-chip-row" }, pips(c.luck, c.luck_max), text("span", "db-luck", `${c.player}`),
          (c.resources || []).map((r) => text("span", "db-res", r.text))),
        (c.conditions || []).length || c.pending ? h("div", { cls: "db-chip-row" },
          (c.conditions || []).map((x) => text("span", "db-cond", x.text, x.title)),
          c.pending ? text("span", "db-cond db-pending", "level-up choice waiting") : null) : null,
        c.death_save ? button(c.death_save.label, c.death_save.intent, { cls: "db-danger db-deathsave" }) : null);
      return chip;
    }), fallenEl(v.fallen, keeper));
  }

  // the dead, out of the strip's way: their count, and (opened) their names to pick one's sheet
  function fallenEl(f, keeper) {
    if (!f) return null;
    return h("div", { cls: `db-fallen${f.open ? " db-open" : ""}`, data: { count: f.count } }, text("span", "db-sub", f.text),
      keeper && f.toggle && f.toggle.intent ? button(f.toggle.label, f.toggle.intent, { cls: "db-mini db-fallen-toggle" }) : null,
      (f.names || []).map((n) => button(n.text, keeper ? n.select : null,
        { cls: `db-mini db-fallen-name${n.selected ? " db-selected" : ""}`, data: { name: n.name } })));
  }

  // ---- the named creatures beside the party: NPCs and familiars (a familiar acts in its mage's turn)
  function creatureStrip(list, v) {
    if (!list || !list.length) return null;
    const keeper = v.mode === "keeper";
    return section("creatures", "db-party db-creatures", list.map((c) => {
      const cls = ["db-chip db-creature", c.selected ? "db-selected" : "", c.acting ? "db-acting" : "",
        c.dying ? "db-dying" : "", c.dead ? "db-dead" : "", c.touched ? "db-touched" : ""].join(" ");
      return h("div", {
        cls, data: { name: c.name, status: c.status, hearts: c.hearts, role: c.role },
        on: keeper ? { click: () => send(c.select) } : undefined,
        title: [c.role, c.note].filter((x) => x).join(": "),
      },
        h("div", { cls: "db-chip-head" }, text("b", "db-name", c.name), text("span", "db-sub", c.role)),
        bar(c.frac, `\u2665 ${c.hearts_text}`, "db-hearts db-small", { hearts: c.hearts, max: c.max_hearts, status: c.status }),
        (c.conditions || []).length ? h("div", { cls: "db-chip-row" },
          c.conditions.map((x) => text("span", "db-cond", x.text, x.title))) : null);
    }));
  }

  // ---- the fight bar
  function fightBar(f, v) {
    if (!f) return null;
    const keeper = v.mode === "keeper";
    if (!f.running) {
      if (!keeper || v.panel !== "play") return null;
      return section("fight", "db-fightbar db-nofight",
        text("span", "db-label", "No fight. Start:"),
        f.start.prepared.map((p) => button(p.label, p.intent, { cls: "db-start", title: p.note })),
        formEl(f.start.form, "db-inline"));
    }
    const foeOf = new Map(f.foes.map((x) => [x.name, x]));
    const note = f.note ? text("span", "db-note db-fight-note", f.note) : null;  // beside the order, wrapped, whole
    const order = h("div", { cls: "db-order" }, f.order.map((side) => h("span", { cls: "db-side" },
      text("b", "db-label", side.label),
      side.chips.map((c) => {
        const foe = foeOf.get(c.name);
        const chip = h("span", {
          cls: `db-turn${c.acting ? " db-acting" : ""}${c.dead ? " db-dead" : ""}${c.dying ? " db-dying" : ""}${foe ? " db-foe" : ""}${foe && foe.touched ? " db-touched" : ""}`,
          data: { name: c.name, hearts: foe ? foe.hearts : null, status: foe ? foe.status : null },
          title: foe ? foe.sub : undefined,
          on: keeper && foe ? { click: () => send(foe.select) } : undefined,
        }, text("span", "db-turn-name", c.name),
          foe ? bar(foe.frac, `\u2665 ${foe.hearts_text}`, "db-hearts db-small", { hearts: foe.hearts, status: foe.status }) : null,
          keeper && c.earlier ? button("\u25c0", c.earlier, { cls: "db-mini", title: `${c.name} acts earlier` }) : null);
        return chip;
      }))), note);
    return section("fight", "db-fightbar",
      h("div", { cls: "db-fight-head" },
        text("b", "db-fight-name", f.name), text("span", "db-fight-status", f.status),
        keeper ? h("span", { cls: "db-fight-buttons" },
          (f.initiative || []).map((b) => button(b.label, b.intent, { cls: "db-primary" })),
          f.next ? button(f.next.label, f.next.intent, { cls: "db-primary db-next" }) : null,
          f.end ? button(f.end.label, f.end.intent, { cls: "db-end" }) : null,
          f.join ? formEl(f.join, "db-inline db-join") : null) : null),
      order);
  }

  // ---- the action bar
  function oddsLabel(label, odds, extra) {
    return [text("span", "db-btn-label", label), odds ? text("span", "db-odds", `${odds}${extra || ""}`) : null];
  }

  function checks(c, who) {
    const target = h("input", { cls: "db-input db-num db-target", data: { key: "checks.target" }, attrs: { type: "number", min: 1, max: 100 } });
    target.value = String(c.target);
    target.addEventListener("change", () => send({ ...c.set_target, target: target.value }));
    const vs = h("select", { cls: "db-input db-vs", data: { key: "checks.vs" } });
    for (const o of c.vs_options) { const opt = text("option", null, o.label); opt.value = String(o.value); vs.appendChild(opt); }
    vs.value = c.vs || "";
    vs.addEventListener("change", () => send({ ...c.set_vs, vs: vs.value }));
    return section("checks", "db-checks",
      h("div", { cls: "db-row db-wrap" }, text("b", "db-h", `Checks ${c.against}`),
        text("span", "db-label", "target"), target,
        c.presets.map((p) => button(p.label, p.intent, { cls: `db-mini${p.on ? " db-on" : ""}` })),
        text("span", "db-label", "or vs"), vs),
      h("div", { cls: "db-row db-wrap" }, c.skills.map((s) =>
        button(oddsLabel(s.label, s.odds), s.intent, { cls: "db-skill", title: s.title }))));
  }

  function attacks(a) {
    if (!a) return null;
    const opts = h("div", { cls: "db-row db-wrap db-options" }, text("b", "db-h", "Attack"),
      a.options.map((o) => {
        if (o.kind === "flag") {
          const box = h("input", { attrs: { type: "checkbox" } });
          box.checked = !!o.value;
          box.addEventListener("change", () => send({ ...o.intent, value: box.checked }));
          return h("label", { cls: "db-check", title: o.title, data: { option: o.name } }, box, o.label);
        }
        const input = h("input", { cls: `db-input ${o.kind === "number" ? "db-num" : "db-short"}`, data: { key: `attack.${o.name}`, option: o.name },
          attrs: { type: o.kind === "number" ? "number" : "text", min: o.min, max: o.max, placeholder: o.kind === "number" ? "1" : "+0" } });
        input.value = o.value === null || o.value === undefined ? "" : String(o.value);
        input.addEventListener("change", () => send({ ...o.intent, value: input.value }));
        return h("label", { cls: "db-field", title: o.title }, text("span", "db-label", o.label), input);
      }));
    const rows = h("div", { cls: "db-targets" }, a.rows.map((r) => h("div", { cls: `db-target db-${r.status}`, data: { name: r.name } },
      h("div", { cls: "db-target-head" }, text("b", "db-name", r.name), bar(r.frac, `\u2665 ${r.hearts_text}`, "db-hearts db-small")),
      h("div", { cls: "db-row db-wrap" }, r.buttons.map((b) =>
        button(oddsLabel(b.label, b.odds, a.each ? " each" : ""), b.intent,
          { cls: `db-attack${b.ready === false ? " db-unready" : ""}`, title: b.title, data: { weapon: b.label } }))))));
    if (!a.rows.length) rows.appendChild(text("div", "db-muted", "no one left to attack"));
    return section("attack", "db-attacks", opts, a.note ? text("div", "db-muted", a.note) : null, rows);
  }

  function action(x) {
    const head = h("div", { cls: "db-action-head" }, text("b", "db-name", x.name), text("span", "db-cost", x.cost),
      x.note ? text("span", "db-muted", x.note) : null);
    let control = null;
    if (x.kind === "button") control = button(x.name, x.intent, { cls: "db-use", title: x.effect });
    else if (x.kind === "chips") control = h("span", { cls: "db-chips" }, x.chips.map((c) =>
      button(oddsLabel(c.label, c.odds), c.intent, { cls: `db-use${c.ready === false ? " db-unready" : ""}`,
        title: `${x.name} \u2192 ${c.label}${c.note ? ": " + c.note : ""}` })));
    else if (x.kind === "form") control = x.open ? formEl(x.form, "db-inline") :
      button(`${x.name}\u2026`, x.toggle, { cls: "db-use", title: "open the form" });
    const close = x.kind === "form" && x.open ? button("\u00d7", x.toggle, { cls: "db-close", title: "close" }) : null;
    return section(x.key, `db-action${x.ready ? "" : " db-unready"}`, h("div", { cls: "db-row db-wrap" }, head, control, close),
      text("div", "db-effect", x.effect));
  }

  function actor(a, v) {
    if (!a) {
      if (!v.empty) return text("div", "db-muted", "No one at the table yet.");
      return section("actor", "db-empty", text("div", "db-muted", v.empty.text),
        button(v.empty.label, v.empty.intent, { cls: "db-primary" }));
    }
    const sheet = a.sheet ? text("div", "db-sheet", a.sheet.rows.join(" \u00b7 "), a.sheet.rows.join("\n")) : null;
    const parts = [section("actor", "db-actor-head",
      h("div", { cls: "db-row" }, text("b", "db-actor-name", a.name), text("span", "db-sub", a.hearts_text),
        a.role ? text("span", "db-sub db-role", a.role) : null,
        a.acting ? text("span", "db-badge db-turnbadge", "acting now") : null,
        a.why_not ? text("span", "db-muted", a.why_not) : null,
        a.turn && a.turn.text ? text("span", `db-muted${a.turn.why ? " db-offturn" : ""}`, a.turn.text) : null), sheet,
      a.death_save ? button(a.death_save.label, a.death_save.intent, { cls: "db-danger db-deathsave db-big" }) : null)];
    if (v.mode !== "keeper") return parts;
    // the actor's actions first (in a fight the attacks, else the checks); a pending level-up choice after the
    // checks outside a fight, after every action in one: it never pushes the next click below the fold
    const pending = (a.choices || []).length ? choices(a.choices) : null;
    if (a.attacks) parts.push(attacks(a.attacks));
    if (a.checks && !a.attacks) parts.push(checks(a.checks, a.name), phones.askForm(a.ask));
    if (pending && !a.attacks) parts.push(pending);
    if ((a.abilities || []).length) parts.push(h("div", { cls: "db-group" }, text("b", "db-h", "Abilities"), a.abilities.map(action)));
    if ((a.spells || []).length) parts.push(h("div", { cls: "db-group" }, text("b", "db-h", "Spells"), a.spells.map(action)));
    if ((a.gear || []).length) parts.push(h("div", { cls: "db-group db-gear" }, text("b", "db-h", "Gear"), a.gear.map(action)));
    if (a.checks && a.attacks) parts.push(checks(a.checks, a.name), phones.askForm(a.ask));
    if (pending && a.attacks) parts.push(pending);
    return parts;
  }

  function choices(list) {
    return list.map((c) => section(c.key, "db-choice", text("b", "db-h", c.title),
      h("div", { cls: "db-row db-wrap" }, c.options.map((o) =>
        h("span", { cls: "db-option" }, button(o.label, o.intent, { cls: "db-primary", title: o.effect }), text("span", "db-effect", o.effect))))));
  }

  // ---- the outcome, luck dice and real dice
  function outcomeEl(o, v) {
    if (!o) return text("div", "db-muted", "Nothing has happened yet: start a session in the Keeper panel.");
    const verdict = o.verdict ? text("span", `db-verdict ${o.verdict.good === true ? "db-yes" : o.verdict.good === false ? "db-no" : ""}`,
      o.verdict.word) : null;
    return section("outcome", "db-outcome", h("div", { cls: "db-result", data: { seq: o.seq, kind: o.kind } },
      h("div", { cls: "db-outcome-text" }, verdict, text("span", "db-said", o.text)),
      (o.lines || []).map((l) => text("div", "db-line", l)),
      (o.rolls || []).map(rollEl),
      o.standing === false ? text("div", "db-muted", "this action no longer stands (undone)") : null,
      (o.follow || []).map((b) => button(b.label, b.enabled === false ? null : b.intent,
        { cls: b.danger ? "db-danger db-deathsave" : `db-primary${b.on_hit ? " db-onhit" : ""}`, title: b.title,
          data: { onHit: b.on_hit } }))));
  }

  function luckEl(l) {
    if (!l) return null;
    return section("luck", "db-luckbox",
      h("div", { cls: "db-row db-wrap" }, text("b", "db-h", "Luck dice on"), text("span", "db-luck-on", l.on),
        l.players.map((p) => button([p.player, " ", pips(p.left, 3)], p.intent,
          { cls: `db-mini db-player${p.on ? " db-on" : ""}`, data: { player: p.player, luck: p.left }, title: `${p.player} spends the luck dice` }))),
      l.rows.map((r) => h("div", { cls: "db-row db-wrap db-luckrow", data: { roll: r.name } },
        text("span", "db-roll-label", `${r.label}: ${r.total}`),
        r.plus ? button(r.plus.label, r.plus.intent, { cls: "db-luck-plus db-mini", title: r.plus.title }) : r.note ? null : text("span", "db-muted", r.player ? (r.left ? "" : `${r.player} has no luck dice left`) : "pick a player"),
        r.minus ? button(r.minus.label, r.minus.intent, { cls: "db-luck-minus db-mini", title: r.minus.title }) : null,
        r.note ? text("span", "db-muted db-luck-note", r.note) : null,
        formEl(r.amend, "db-inline db-amend"))));
  }

  function logEl(rows, v) {
    const list = h("div", { cls: "db-log", data: { scroll: "log" } }, rows.map((r) => h("div", {
      cls: `db-logrow${r.mark ? " db-" + r.mark : ""}`, data: { seq: r.seq, kind: r.kind, mark: r.mark || null }, title: r.note,
    }, text("span", "db-seq", `#${r.seq}`), text("span", "db-logtext", r.text),
      r.asked_by ? text("span", "db-askedby", `\u260e ${r.asked_by}`, `${r.asked_by} asked for it from their phone`) : null,
      r.note ? text("span", "db-lognote", r.note) : null)));
    if (!rows.length) list.appendChild(text("div", "db-muted", "The log is empty."));
    return list;
  }

  // ---- the keeper's panel
  function card(title, id, ...body) { return section(id, "db-card", text("b", "db-h", title), ...body); }

  function rowsOf(rows) {
    return rows.map((r) => h("div", { cls: `db-row db-wrap db-item${r.done ? " db-done" : ""}` },
      text("span", "db-name", r.name + (r.done ? " (done)" : "")),
      r.intent ? button(r.label, r.intent, { cls: "db-mini" }) : null,
      r.note ? text("div", "db-note", r.note) : null));
  }

  const prep = preparePanels({ h, text, button, formEl, card, section });

  // ---- "Last time...": a session told, in sections (a heading, its lines)
  function recapEl(r) {
    return h("div", { cls: "db-recap" }, text("div", "db-sub", r.summary), (r.sections || []).map((s) =>
      h("div", { cls: "db-recap-part" }, text("b", null, s.heading), s.lines.map((l) => text("div", "db-line", l)))));
  }

  function recapCard(r) {
    return card("Last time\u2026", "keeper:recap", r.open ? recapEl(r) : null,
      h("div", { cls: "db-row db-wrap" }, button(r.toggle.label, r.toggle.intent, { cls: "db-mini" }),
        r.show ? button(r.show.label, r.show.intent, { cls: "db-mini" }) : null),
      r.hint ? text("div", "db-note", r.hint) : null);
  }

  function keeperPanel(k) {
    const tabs = h("div", { cls: "db-row db-wrap db-ktabs" }, (k.tabs || []).map((t) =>
      button(t.label, t.intent, { cls: `db-mini db-ktab${t.on ? " db-on" : ""}`, data: { ktab: t.id } })));
    if (k.tab && k.tab !== "table") return h("div", { cls: "db-keeper db-prep" }, tabs, prep.section(k));
    const out = [
      tabs,
      card("Session", "keeper:session", text("div", "db-sub", k.session.text),
        h("div", { cls: "db-row db-wrap" }, k.session.buttons.map((b) => button(b.label, b.intent, { cls: b.primary ? "db-primary" : "" })))),
    ];
    if (k.recap) out.push(recapCard(k.recap));
    if (k.fight) out.push(card("Start a fight", "fight", k.fight.prepared.map((p) => h("div", { cls: "db-item" },
      button(p.label, p.intent, { cls: "db-start" }), text("div", "db-note", p.note))), formEl(k.fight.form, "db-inline")));
    out.push(card("Quests", "keeper:quests", rowsOf(k.quests.rows), formEl(k.quests.form, "db-inline")));
    out.push(card("Rooms", "keeper:rooms", rowsOf(k.rooms.rows), formEl(k.rooms.form, "db-inline")));
    out.push(card("Coins", "keeper:coins", text("div", "db-note", k.coins.hint), formEl(k.coins.earn, "db-inline"),
      formEl(k.coins.spend, "db-inline"), text("div", "db-note", `purses: ${k.coins.purses}`)));
    out.push(card("XP", "keeper:xp", text("div", "db-note", k.xp.hint), formEl(k.xp.form, "db-inline")));
    out.push(card("Hearts by hand", "keeper:by_hand", formEl(k.by_hand.form, "db-inline")));
    for (const d of k.deeds || []) out.push(card(d.title, d.where, d.hint ? text("div", "db-note", d.hint) : null, formEl(d.form, "db-inline")));
    out.push(card("Levels", "keeper:levels", k.levels.map((l) => h("div", { cls: "db-row db-wrap db-item" },
      text("span", null, l.text), l.intent ? button(l.label, l.intent, { cls: l.ready ? "db-primary db-mini" : "db-mini" }) : null))));
    out.push(card("Conditions", "keeper:conditions", k.conditions.rows.map((r) => h("div", { cls: "db-row db-item" },
      text("span", null, r.text), button("End", r.intent, { cls: "db-mini" }))), formEl(k.conditions.form, "db-inline")));
    out.push(card("Roll", "keeper:roll", formEl(k.roll, "db-inline")));
    if (k.give) out.push(card("Found items", "keeper:give", formEl(k.give, "db-inline")));
    if (k.npcs) out.push(card("NPCs and familiars", "keeper:npcs", k.npcs.rows.map((r) => h("div", { cls: `db-row db-wrap db-item${r.dead ? " db-done" : ""}`, data: { name: r.name } },
      text("span", null, r.text), r.intent ? button(r.label, r.intent, { cls: "db-mini" }) : null,
      r.note ? text("div", "db-note", r.note) : null)), formEl(k.npcs.form, "db-inline")));
    if (k.phones) out.push(phones.phonesCard(k.phones));
    out.push(card("Campaign folder", "keeper:download", button(k.download.label, k.download.intent, { cls: "db-download" }),
      text("div", "db-note", k.download.hint)));
    return h("div", { cls: "db-keeper" }, out);
  }

  function sheets(list) {
    return h("div", { cls: "db-sheets" }, list.map((s) => section(`sheet:${s.name}`, "db-card db-sheetcard", text("b", "db-h", s.name),
      s.rows.map((r) => text("div", "db-line", r)), s.choices && s.choices.length ? choices(s.choices) : null)));
  }

  // ---- the players' screen: the table as it stands, big, across the whole screen, with nothing to click
  function lastRolls(rows) {
    const list = h("div", { cls: "db-lastrolls" }, (rows || []).map((r) => {
      const verdict = r.verdict ? text("span", `db-verdict ${r.verdict.good === true ? "db-yes" : r.verdict.good === false ? "db-no" : ""}`,
        r.verdict.word) : null;
      return h("div", { cls: "db-lastroll", data: { seq: r.seq, kind: r.kind } },
        h("div", { cls: "db-outcome-text" }, verdict, text("span", "db-said", r.text)), (r.rolls || []).map(rollEl));
    }));
    if (!(rows || []).length) list.appendChild(text("div", "db-muted", "No rolls yet."));
    return list;
  }

  function playersScreen(v, body) {
    body.appendChild(h("div", { cls: "db-header" }, text("span", "db-title", v.title),
      text("span", "db-session", `${v.session.text} \u00b7 ${v.session.clock}`)));
    if (v.refusal) body.appendChild(h("div", { cls: "db-notice db-refused", data: { kind: "problem" } }, text("span", "db-said", v.refusal.text)));
    if (v.recap) body.appendChild(section("recap", "db-card db-p-recap", text("b", "db-h", "Last time\u2026"), recapEl(v.recap)));
    body.appendChild(partyStrip(v.party || [], v));
    const cs = creatureStrip(v.creatures, v);
    if (cs) body.appendChild(cs);
    const fb = fightBar(v.fight, v);
    if (fb) body.appendChild(fb);
    const now = v.actor && v.actor.acting ? h("div", { cls: "db-now" }, text("span", "db-h", "Acting now"),
      text("b", "db-actor-name", v.actor.name), text("span", "db-sub", v.actor.hearts_text)) : null;
    const latest = v.outcome ? h("div", { cls: "db-outcome db-latest" }, h("div", { cls: "db-result", data: { seq: v.outcome.seq, kind: v.outcome.kind } },
      h("div", { cls: "db-outcome-text" }, text("span", "db-said", v.outcome.text)),
      (v.outcome.lines || []).map((l) => text("div", "db-line", l)))) : null;
    // blocks a narrow screen (a phone) puts in another order: what just happened and its rolls first
    body.appendChild(h("div", { cls: "db-main" },
      h("div", { cls: "db-left" }, now,
        h("div", { cls: "db-p-latest" }, text("b", "db-h", "Latest"), latest || text("div", "db-muted", "Nothing has happened yet.")),
        h("div", { cls: "db-p-story" }, text("b", "db-h db-logh", "The story so far"), logEl(v.log || [], v))),
      h("div", { cls: "db-right" }, h("div", { cls: "db-p-rolls" }, text("b", "db-h", "Last rolls"), lastRolls(v.rolls)))));
    return body;
  }

  // ---- the whole view
  function build(v) {
    where = new Map();
    const keeper = v.mode === "keeper";
    if (v.mode === "players") {
      return playersScreen(v, h("div", { cls: `db-table db-mode-players db-scope-${v.scope}`, data: { mode: v.mode, scope: v.scope } }));
    }
    const body = h("div", { cls: `db-table db-mode-${v.mode} db-scope-${v.scope}`, data: { mode: v.mode, scope: v.scope } });
    if (v.mode === "player") {
      phones.playerPage(v, body);
    } else if (v.scope === "table") {
      body.appendChild(header(v));
      body.appendChild(partyStrip(v.party || [], v));
      const cs = creatureStrip(v.creatures, v);
      if (cs) body.appendChild(cs);
      const fb = fightBar(v.fight, v);
      if (fb) body.appendChild(fb);
      let left;
      if (!keeper || v.panel === "play") left = actor(v.actor, v);
      else if (v.panel === "keeper") left = keeperPanel(v.keeper);
      else if (v.panel === "party") left = sheets(v.sheets || []);
      else if (v.panel === "charts") left = chartsEl(v.charts);
      const right = h("div", { cls: "db-right" },
        h("div", { cls: "db-outbox", data: { scroll: "out" } }, keeper ? phones.requestsEl(v.requests) : null,
          outcomeEl(v.outcome, v), keeper ? luckEl(v.luck) : null),
        text("b", "db-h db-logh", "Log"), logEl(v.log || [], v));
      // what the left column shows: a panel, or an actor on a turn (a new turn is a new page, read from its top)
      const turn = v.fight && v.fight.running ? v.fight.status : "";
      const shown = !keeper || v.panel === "play" ? `play:${v.actor ? v.actor.name : ""}:${turn}` :
        v.panel === "keeper" && v.keeper ? `keeper:${v.keeper.tab}` : v.panel;  // (each Keeper section its own page)
      body.appendChild(h("div", { cls: "db-main" }, h("div", { cls: "db-left", data: { scroll: `left:${shown}` } }, left), right));
    } else if (v.scope === "card") {
      if (v.party && v.party.length) body.appendChild(partyStrip(v.party, v));
      body.appendChild(h("div", { cls: "db-main db-stack" }, h("div", { cls: "db-left" }, actor(v.actor, v)),
        h("div", { cls: "db-right" }, outcomeEl(v.outcome, v), luckEl(v.luck))));
    } else if (v.scope === "fight") {
      body.appendChild(partyStrip(v.party || [], v));
      const cs = creatureStrip(v.creatures, v);
      if (cs) body.appendChild(cs);
      const fb = fightBar(v.fight, { ...v, panel: "play" });
      if (fb) body.appendChild(fb);
      body.appendChild(h("div", { cls: "db-main db-stack" }, h("div", { cls: "db-left" }, v.actor ? actor(v.actor, v) : null),
        h("div", { cls: "db-right" }, outcomeEl(v.outcome, v), luckEl(v.luck))));
    } else if (v.scope === "log") {
      if (keeper && v.undo) body.appendChild(h("div", { cls: "db-header" }, text("span", "db-title", v.title),
        h("span", { cls: "db-undo" }, button(["\u21b6 ", v.undo.label], v.undo.enabled ? v.undo.intent : null, { cls: "db-undo-btn" }),
          button(["\u21b7 ", v.redo.label], v.redo.enabled ? v.redo.intent : null, { cls: "db-redo-btn" }))));
      body.appendChild(logEl(v.log || [], v));
    } else if (v.scope === "roll") {
      body.appendChild(outcomeEl(v.outcome, v));
      body.appendChild(luckEl(v.luck) || text("span", null, ""));
    }
    // a refusal or a question shows where the keeper clicked (else beside the outcome)
    const place = (id) => where.get(id) || (lastWhere && where.get(lastWhere)) || where.get("outcome") || where.get("latest") || body.firstChild;
    if (v.refusal) {
      const at = place(v.refusal.where);
      // something typed wrong is said beside its field (drawn with the form); anything else at the click
      if (!(v.refusal.field && at.querySelector("[data-error]"))) {
        const box = notice("refused", [text("b", null, "Refused: "), text("span", "db-said", v.refusal.text),
          v.refusal.override ? formEl(v.refusal.override, "db-inline") : null],
          { do: "dismiss", where: v.refusal.where });
        at.insertBefore(box, at.firstChild ? at.firstChild.nextSibling : null);
      }
    }
    if (v.confirm) {
      const c = v.confirm;
      const box = notice("confirm", [text("span", "db-said", c.text),
        button(c.yes_label, c.yes, { cls: "db-danger db-yes-btn" }),
        (c.also || []).map((b) => button(b.label, b.intent, { cls: "db-yes-btn" })),
        button(c.no_label, c.no, { cls: "db-no-btn" })]);
      const at = place(c.where);
      at.insertBefore(box, at.firstChild ? at.firstChild.nextSibling : null);
    }
    return body;
  }

  function draw() {
    const v = model.get("view") || {};
    if (!v.scope) return;
    if (pending && v.ack === pending.id) {
      alone = null;
      if (clearing && clearing.id === pending.id && !v.refusal) for (const k of clearing.keys) drafts.delete(k);
      pending = null;
      clearing = null;
      root.classList.remove("db-busy");
    }
    // keep what the page itself holds across the redraw: scroll positions, and the field being typed in
    const scrolls = {};
    for (const s of root.querySelectorAll("[data-scroll]")) scrolls[s.dataset.scroll] = s.scrollTop;
    const seq = v.outcome ? v.outcome.seq : null;
    if (seq !== lastSeq) { delete scrolls.out; lastSeq = seq; }  // a new outcome shows from its top
    const active = document.activeElement && root.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    const body = build(v);
    const said = aloneEl();
    root.classList.toggle("db-is-alone", alone === "picture");
    root.replaceChildren(...(said ? [said, body] : [body]));
    // a box scrolled as it was only when it shows the same thing (the left column: the same panel, the same actor)
    for (const s of root.querySelectorAll("[data-scroll]")) if (scrolls[s.dataset.scroll]) s.scrollTop = scrolls[s.dataset.scroll];
    if (active) {
      const again = [...root.querySelectorAll("[data-key]")].find((x) => x.dataset.key === active);
      if (again && again.focus) again.focus();
    }
    bringIntoView(v);
    const asked = JSON.stringify([v.refusal, v.confirm]);
    if (asked !== lastNotice) {  // a new refusal or question: make sure it is in view
      lastNotice = asked;
      const shown = root.querySelector(".db-notice");
      if (shown && shown.scrollIntoView) shown.scrollIntoView({ block: "nearest" });
    }
  }

  function onLive() {  // a kernel answered: whatever was said about it no longer holds
    live = true;
    if (alone) { alone = null; draw(); }
  }

  function onCustom(msg, buffers) {
    if (msg && msg.type === "live") { onLive(); return; }
    if (!msg || msg.type !== "download" || !buffers || !buffers.length) return;
    const blob = new Blob([buffers[0]], { type: "application/zip" });
    const url = URL.createObjectURL(blob);
    const a = h("a", { attrs: { href: url, download: msg.name } });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  const onView = () => { live = true; draw(); };
  model.on("change:view", onView);
  model.on("msg:custom", onCustom);
  draw();
  // the keeper's table asks whether a kernel runs it: a live one answers at once, a saved picture never does (the
  // players' screen sends nothing back, and has nothing to say about a kernel)
  const keeperTable = (model.get("view") || {}).mode !== "players";
  if (keeperTable) post({ type: "hello" });
  const waiting = keeperTable ? setTimeout(() => { if (!live) { alone = "picture"; draw(); } }, 4000) : null;
  return () => {
    clearTimeout(waiting);
    model.off("change:view", onView);
    model.off("msg:custom", onCustom);
  };
}

export default {
  render({ model, el }) {
    return mount(model, el);
  },
};
