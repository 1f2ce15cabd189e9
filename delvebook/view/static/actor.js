// delvebook's table, the action bar (the left column in play): whoever acts, with the turn economy's word on it
// and the sheet; in a fight the attacks against each target with their options, then abilities, spells and gear
// (each a button, target chips or a small form), the checks with their target number or opponent, and a pending
// level-up choice after them. Every odd, option and reason comes in the view model.

import { h, text, bar, oddsLabel } from "./dom.js";

export function actorPanel(kit) {
  const { send, button, section, formEl, phones } = kit;

  function checks(c) {
    const target = h("input", { cls: "db-input db-num db-target", data: { key: "checks.target" }, attrs: { type: "number", min: 1, max: 100 },
      on: { change: (ev, el) => send({ ...c.set_target, target: el.value }) } });
    target.value = String(c.target);
    const vs = h("select", { cls: "db-input db-vs", data: { key: "checks.vs" }, on: { change: (ev, el) => send({ ...c.set_vs, vs: el.value }) } });
    for (const o of c.vs_options) { const opt = text("option", null, o.label); opt.value = String(o.value); vs.appendChild(opt); }
    vs.value = c.vs || "";
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
          const box = h("input", { attrs: { type: "checkbox" }, on: { change: (ev, el) => send({ ...o.intent, value: el.checked }) } });
          box.checked = !!o.value;
          return h("label", { cls: "db-check", title: o.title, data: { option: o.name } }, box, o.label);
        }
        const input = h("input", { cls: `db-input ${o.kind === "number" ? "db-num" : "db-short"}`, data: { key: `attack.${o.name}`, option: o.name },
          attrs: { type: o.kind === "number" ? "number" : "text", min: o.min, max: o.max, placeholder: o.kind === "number" ? "1" : "+0" },
          on: { change: (ev, el) => send({ ...o.intent, value: el.value }) } });
        input.value = o.value === null || o.value === undefined ? "" : String(o.value);
        return h("label", { cls: "db-field", title: o.title }, text("span", "db-label", o.label), input);
      }));
    const rows = h("div", { cls: "db-targets" }, a.rows.map((r) => h("div", { cls: `db-target db-${r.status}`, data: { name: r.name } },
      h("div", { cls: "db-target-head" }, text("b", "db-name", r.name), bar(r.frac, `\u2665 ${r.hearts_text}`, "db-hearts db-small")),
      h("div", { cls: "db-row db-wrap" }, r.buttons.map((b) =>
        button(oddsLabel(b.label, b.odds), b.intent,
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

  function choices(list) {
    return list.map((c) => section(c.key, "db-choice", text("b", "db-h", c.title),
      h("div", { cls: "db-row db-wrap" }, c.options.map((o) =>
        h("span", { cls: "db-option" }, button(o.label, o.intent, { cls: "db-primary", title: o.effect }), text("span", "db-effect", o.effect))))));
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
    if (a.checks && !a.attacks) parts.push(checks(a.checks), phones.askForm(a.ask));
    if (pending && !a.attacks) parts.push(pending);
    if ((a.abilities || []).length) parts.push(h("div", { cls: "db-group" }, text("b", "db-h", "Abilities"), a.abilities.map(action)));
    if ((a.spells || []).length) parts.push(h("div", { cls: "db-group" }, text("b", "db-h", "Spells"), a.spells.map(action)));
    if ((a.gear || []).length) parts.push(h("div", { cls: "db-group db-gear" }, text("b", "db-h", "Gear"), a.gear.map(action)));
    if (a.checks && a.attacks) parts.push(checks(a.checks), phones.askForm(a.ask));
    if (pending && a.attacks) parts.push(pending);
    return parts;
  }

  return { actor, choices };
}
