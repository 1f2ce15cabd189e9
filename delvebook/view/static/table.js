// delvebook's table: draws the view model the kernel computes (the synced trait "view") and sends back what a
// click asks for, as one intent message. No rule lives here: every number, odd, option and label comes in the
// view model, and every control carries the intent it sends. Every text reaches the page as text
// (textContent / text nodes, dom.js), numbers included: a campaign file cannot inject markup.
//
// This file is one table on the page (its state, sending, the header, the whole view, the redraw: a new drawing
// reconciled into the page's, morph.js) and the anywidget entry; each panel is its own file (party.js, fight.js, actor.js, outcome.js, log.js, keeper.js,
// screen.js). phones.js, prepare.js and charts.js are scripts joined into the same module text (front.py), so
// their phoneParts, preparePanels and chartsEl are used here unimported.

import { h, text, svg, bar, pips, rollEl, listen } from "./dom.js";
import { morphChildren } from "./morph.js";
import { controls } from "./controls.js";
import { partyPanel } from "./party.js";
import { fightPanel } from "./fight.js";
import { actorPanel } from "./actor.js";
import { outcomePanel } from "./outcome.js";
import { logEl } from "./log.js";
import { keeperPanels } from "./keeper.js";
import { playersScreen } from "./screen.js";

function mount(model, el) {
  let count = 0;
  let pending = null;            // the intent sent and not yet answered: {id, at, what}
  let queued = null;             // another control's click made meanwhile, sent once that is answered
  const clearing = new Map();    // intent id -> the form fields to forget once it went through
  let cleared = null;            // the keys of the fields just forgotten, for the next redraw
  let lastWhere = null;
  let lastNotice = "[null,null]";
  let lastTuned;  // the tuner's last answer shown (undefined until the first drawing: a reload scrolls nowhere)
  let lastSeq = null;
  let live = false;              // a kernel stands behind this table: it answered the page's hello, or sent a view
  let alone = null;              // what to say when none answers: "picture" (a saved table) or "silent" (a click)
  let placed = false;            // the table was brought into view once, as it first showed
  const t = {
    me: Math.random().toString(36).slice(2, 10),
    drafts: new Map(),           // what the keeper typed and has not sent, by field key (kept across redraws)
    where: new Map(),            // section id -> element (where a refusal or a question is shown), this drawing's
    send,
    forget: (id, keys) => { clearing.set(id, keys); },
  };

  const root = document.createElement("div");
  root.className = "db-root";
  el.appendChild(root);
  const unlisten = listen(root);
  const { button, section, notice, formEl } = controls(t);
  const phones = phoneParts({ h, text, svg, button, section, formEl, bar, pips, rollEl, send });
  const { partyStrip, creatureStrip } = partyPanel({ send, button, section });
  const { fightBar } = fightPanel({ send, button, section, formEl });
  const { actor, choices } = actorPanel({ send, button, section, formEl, phones });
  const { outcomeEl, luckEl } = outcomePanel({ button, section, formEl });
  const { keeperPanel, sheets, recapEl } = keeperPanels({ button, section, formEl, phones, choices });

  function post(message) {
    try { model.send(message); } catch (err) { console.warn("delvebook table: no kernel to send to", err); }
  }

  // one intent at a time: a click on the same control again before the answer (a double click) acts once; a
  // click on another control (or a field's change, sent as the pointer leaves it for a button) goes once the
  // answer came: the last such click, if several
  function send(intent, args) {
    const what = JSON.stringify(intent);
    if (pending && Date.now() - pending.at < 8000) {
      if (what === pending.what || (queued && what === queued.what)) return;
      if (queued) clearing.delete(queued.id);
      queued = { id: `${t.me}:${++count}`, intent, args, what };
      return queued.id;
    }
    return go(`${t.me}:${++count}`, intent, args, what);
  }

  function go(id, intent, args, what) {
    pending = { id, at: Date.now(), what };
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

  // ---- the whole view
  function build(v) {
    t.where = new Map();
    const keeper = v.mode === "keeper";
    if (v.mode === "players") {
      return playersScreen({ section, partyStrip, creatureStrip, fightBar, recapEl }, v,
        h("div", { cls: `db-table db-mode-players db-scope-${v.scope}`, data: { mode: v.mode, scope: v.scope } }));
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
          outcomeEl(v.outcome), keeper ? luckEl(v.luck) : null),
        text("b", "db-h db-logh", "Log"), logEl(v.log || []));
      // what the left column shows: a panel, or an actor on a turn (a new turn is a new page, read from its top)
      const turn = v.fight && v.fight.running ? v.fight.status : "";
      const shown = !keeper || v.panel === "play" ? `play:${v.actor ? v.actor.name : ""}:${turn}` :
        v.panel === "keeper" && v.keeper ? `keeper:${v.keeper.tab}` : v.panel;  // (each Keeper section its own page)
      body.appendChild(h("div", { cls: "db-main" }, h("div", { cls: "db-left", data: { scroll: `left:${shown}` } }, left), right));
    } else if (v.scope === "card") {
      if (v.party && v.party.length) body.appendChild(partyStrip(v.party, v));
      body.appendChild(h("div", { cls: "db-main db-stack" }, h("div", { cls: "db-left" }, actor(v.actor, v)),
        h("div", { cls: "db-right" }, outcomeEl(v.outcome), luckEl(v.luck))));
    } else if (v.scope === "fight") {
      body.appendChild(partyStrip(v.party || [], v));
      const cs = creatureStrip(v.creatures, v);
      if (cs) body.appendChild(cs);
      const fb = fightBar(v.fight, { ...v, panel: "play" });
      if (fb) body.appendChild(fb);
      body.appendChild(h("div", { cls: "db-main db-stack" }, h("div", { cls: "db-left" }, v.actor ? actor(v.actor, v) : null),
        h("div", { cls: "db-right" }, outcomeEl(v.outcome), luckEl(v.luck))));
    } else if (v.scope === "log") {
      if (keeper && v.undo) body.appendChild(h("div", { cls: "db-header" }, text("span", "db-title", v.title),
        h("span", { cls: "db-undo" }, button(["\u21b6 ", v.undo.label], v.undo.enabled ? v.undo.intent : null, { cls: "db-undo-btn" }),
          button(["\u21b7 ", v.redo.label], v.redo.enabled ? v.redo.intent : null, { cls: "db-redo-btn" }))));
      body.appendChild(logEl(v.log || []));
    } else if (v.scope === "roll") {
      body.appendChild(outcomeEl(v.outcome));
      body.appendChild(luckEl(v.luck) || text("span", null, ""));
    }
    // a refusal or a question shows where the keeper clicked (else beside the outcome)
    const where = t.where;
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
      const keys = clearing.get(pending.id);
      if (keys && !v.refusal) {
        for (const k of keys) t.drafts.delete(k);
        cleared = new Set(keys);  // (shown as the model has them, even in the field still focused)
      }
      clearing.delete(pending.id);
      pending = null;
      root.classList.remove("db-busy");
    }
    // the new drawing reconciled into the page's: what has not changed stays the same element, so a press
    // lands, a field being typed in keeps its text, caret and focus, and a box keeps its scroll (a box showing
    // something else is another element: the left column's key is its panel or its actor on a turn)
    const active = document.activeElement && root.contains(document.activeElement) ? document.activeElement : null;
    const next = document.createElement("div");
    const said = aloneEl();
    next.append(...(said ? [said, build(v)] : [build(v)]));
    root.classList.toggle("db-is-alone", alone === "picture");
    morphChildren(root, next, { cleared });
    cleared = null;
    const seq = v.outcome ? v.outcome.seq : null;
    if (seq !== lastSeq) {  // a new outcome shows from its top
      lastSeq = seq;
      const out = root.querySelector('[data-scroll="out"]');
      if (out) out.scrollTop = 0;
    }
    if (active && !active.isConnected && active.dataset.key) {  // its field drawn anew (another form): found again
      const again = [...root.querySelectorAll("[data-key]")].find((x) => x.dataset.key === active.dataset.key);
      if (again && again.focus) again.focus();
    }
    if (queued && !pending) {  // the click made while the last was unanswered
      const q = queued;
      queued = null;
      go(q.id, q.intent, q.args, q.what);
    }
    bringIntoView(v);
    const asked = JSON.stringify([v.refusal, v.confirm]);
    if (asked !== lastNotice) {  // a new refusal or question: make sure it is in view
      lastNotice = asked;
      const shown = root.querySelector(".db-notice");
      if (shown && shown.scrollIntoView) shown.scrollIntoView({ block: "nearest" });
    }
    const tuned = root.querySelector('.db-tuning[data-status="done"]');
    const answer = tuned ? tuned.textContent : null;
    if (answer !== lastTuned) {  // the tuner's count the keeper asked for: in view when it comes
      const first = lastTuned === undefined;
      lastTuned = answer;
      if (!first && tuned && tuned.scrollIntoView) tuned.scrollIntoView({ block: "nearest" });
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
    unlisten();
    model.off("change:view", onView);
    model.off("msg:custom", onCustom);
  };
}

export default {
  render({ model, el }) {
    return mount(model, el);
  },
};
