// delvebook's table, the log: the latest events told, undone and replaced ones struck through, an action a player
// asked for marked with their name; and the players' screen's last rolls as they now stand.

import { h, text, rollEl } from "./dom.js";

export function logEl(rows) {
  const list = h("div", { cls: "db-log", data: { scroll: "log" } }, rows.map((r) => h("div", {
    cls: `db-logrow${r.mark ? " db-" + r.mark : ""}`, data: { seq: r.seq, kind: r.kind, mark: r.mark || null }, title: r.note,
  }, text("span", "db-seq", `#${r.seq}`), text("span", "db-logtext", r.text),
    r.asked_by ? text("span", "db-askedby", `\u260e ${r.asked_by}`, `${r.asked_by} asked for it from their phone`) : null,
    r.note ? text("span", "db-lognote", r.note) : null)));
  if (!rows.length) list.appendChild(text("div", "db-muted", "The log is empty."));
  return list;
}

export function lastRolls(rows) {
  const list = h("div", { cls: "db-lastrolls" }, (rows || []).map((r) => {
    const verdict = r.verdict ? text("span", `db-verdict ${r.verdict.good === true ? "db-yes" : r.verdict.good === false ? "db-no" : ""}`,
      r.verdict.word) : null;
    return h("div", { cls: "db-lastroll", data: { seq: r.seq, kind: r.kind } },
      h("div", { cls: "db-outcome-text" }, verdict, text("span", "db-said", r.text)), (r.rolls || []).map(rollEl));
  }));
  if (!(rows || []).length) list.appendChild(text("div", "db-muted", "No rolls yet."));
  return list;
}
