// delvebook's table, the players' screen (view mode "players"): the table as it stands, big, across a second
// screen, with nothing to click: the party, the fight's order with the foes as wounds, who acts, the latest
// outcome, the last rolls as they now stand, and the story so far. A narrow screen (a phone) puts what just
// happened first (table.css).

import { h, text } from "./dom.js";
import { logEl, lastRolls } from "./log.js";

export function playersScreen(kit, v, body) {
  const { section, partyStrip, creatureStrip, fightBar, recapEl } = kit;
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
      h("div", { cls: "db-p-story" }, text("b", "db-h db-logh", "The story so far"), logEl(v.log || []))),
    h("div", { cls: "db-right" }, h("div", { cls: "db-p-rolls" }, text("b", "db-h", "Last rolls"), lastRolls(v.rolls)))));
  return body;
}
