// delvebook's table, the outcome of the last click (beside the actions): what happened in the game's words, every
// die drawn, a choice the hit allows once it is seen; then the luck dice any player may spend on its rolls, and
// the faces of real dice typed instead.

import { h, text, pips, rollEl } from "./dom.js";

export function outcomePanel(kit) {
  const { button, section, formEl } = kit;

  function outcomeEl(o) {
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

  return { outcomeEl, luckEl };
}
