// delvebook's table, the fight bar under the party: the order by side with who acts (the foes with their
// hearts), Next turn, End fight, a foe joining, the prepared encounter's note; with no fight, the prepared fights
// to start.

import { h, text, bar } from "./dom.js";

export function fightPanel(kit) {
  const { send, button, section, formEl } = kit;

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

  return { fightBar };
}
