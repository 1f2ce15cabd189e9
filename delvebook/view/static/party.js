// delvebook's table, the party strip along the top: each delver's chip (hearts, luck dice, resources,
// conditions, a death save), the fallen folded into one row at its end, and beside it the named creatures (NPCs
// and familiars). On the keeper's table a chip is clicked to act as that delver or creature.

import { h, text, bar, pips } from "./dom.js";

export function partyPanel(kit) {
  const { send, button, section } = kit;

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

  return { partyStrip, creatureStrip };
}
