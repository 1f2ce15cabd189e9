// delvebook's table, the Keeper panel: its sections' tabs; at the table, sessions, rests and time, Last time...,
// the prepared fights, quests, rooms, coins, XP, hearts by hand, the keeper's deeds, levels, conditions, any roll,
// found items, NPCs, the players' phones and the campaign folder; the preparing sections are prepare.js's. Also
// the Party panel's sheets.

import { h, text } from "./dom.js";

export function keeperPanels(kit) {
  const { button, section, formEl, phones, choices } = kit;

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

  // ---- the Party panel: every sheet, with its pending choices
  function sheets(list) {
    return h("div", { cls: "db-sheets" }, list.map((s) => section(`sheet:${s.name}`, "db-card db-sheetcard", text("b", "db-h", s.name),
      s.rows.map((r) => text("div", "db-line", r)), s.choices && s.choices.length ? choices(s.choices) : null)));
  }

  return { keeperPanel, sheets, recapEl };
}
