// delvebook's table: the Keeper panel's sections for preparing the evening (the party, the bestiary, the encounter
// builder with its forecast and tuner, roll tables). Loaded before table.js in the same module; table.js hands it
// its drawing kit. No rule lives here: every label, number and intent comes in the view model, and every text is
// set as text.

function preparePanels(kit) {
  const { h, text, button, formEl, card } = kit;

  function rows(list, draw) {
    return (list || []).length ? list.map(draw) : [text("div", "db-muted", "none yet")];
  }

  function itemRow(name, bits, buttons, note, data) {
    return h("div", { cls: "db-row db-wrap db-item", data }, text("span", "db-name", name),
      bits ? text("span", "db-sub", bits) : null, buttons, note ? text("div", "db-note", note) : null);
  }

  // ---- the party: seats clockwise, retiring, and a new delver
  function party(p) {
    return [
      card("At the table, clockwise", p.where, text("div", "db-note", p.hint),
        rows(p.rows, (r) => itemRow(r.text, null, [
          r.earlier ? button("\u25b2", r.earlier, { cls: "db-mini", title: `${r.name} sits one seat earlier` }) : null,
          button(r.retire_label, r.retire, { cls: "db-mini", title: `${r.name} leaves the table (kept in the history)` }),
        ], null, { name: r.name })),
        (p.retired || []).length ? text("div", "db-note", `retired: ${p.retired.join("; ")}`) : null),
      card("A new delver", `${p.where}:form`, formEl(p.form, "db-inline db-prepform")),
    ];
  }

  // ---- the bestiary: foe types, the table's own first
  function bestiary(b) {
    return [
      card(b.editing ? `Change ${b.editing}` : "A new foe type", `${b.where}:form`, formEl(b.form, "db-inline db-prepform")),
      card("The bestiary", b.where, text("div", "db-note", b.count),
        b.find ? formEl(b.find, "db-inline") : null,
        rows(b.rows, (r) => itemRow(r.text, r.own ? "this campaign's" : null, [
          button("Change", r.edit, { cls: "db-mini" }), button("Remove", r.remove, { cls: "db-mini" }),
        ], r.note, { foe: r.id }))),
    ];
  }

  // ---- prepared encounters and the builder
  function encounters(e) {
    const list = card("Prepared encounters", e.where,
      h("div", { cls: "db-row db-wrap" }, button("New encounter", e.new, { cls: "db-primary" }),
        e.fighting ? text("span", "db-muted", e.fighting) : null),
      rows(e.rows, (r) => itemRow(r.name, r.foes, [
        button("Build / forecast", r.open, { cls: "db-mini" }),
        r.start ? button("Start fight", r.start, { cls: "db-mini" }) : null,
        button("Drop", r.remove, { cls: "db-mini" }),
      ], r.note, { encounter: r.id })));
    return e.builder ? [builder(e.builder), list] : [list];
  }

  function builder(b) {
    const foes = h("div", { cls: "db-bfoes" }, (b.foes || []).length ? b.foes.map((f) => h("div", { cls: "db-row db-bfoe", data: { foe: f.id } },
      button("\u2212", f.fewer, { cls: "db-mini db-fewer", title: `one ${f.name} fewer` }),
      text("b", "db-count", f.count),
      button("+", f.more, { cls: "db-mini db-more", title: `one ${f.name} more` }),
      text("span", "db-name", f.name))) : text("div", "db-muted", "no foes yet: add some below"));
    const sitting = h("div", { cls: "db-row db-wrap db-sitting" }, text("span", "db-label", "sitting out:"),
      (b.sitting || []).map((s) => button(s.name, s.intent, { cls: `db-mini${s.out ? " db-on" : ""}`, data: { out: s.name },
        title: s.out ? `${s.name} sits this fight out: click to bring them back` : `what if ${s.name} sits this fight out?` })),
      b.dark ? text("span", "db-label", "\u00b7 the fight:") : null,
      b.dark ? button(b.dark.label, b.dark.intent, { cls: `db-mini db-dark${b.dark.on ? " db-on" : ""}`,
        title: "the fight in darkness (whoever cannot see attacks with disadvantage), or lit" }) : null);
    const box = card(b.title, b.where, formEl(b.form, "db-inline db-prepform"), foes, formEl(b.add, "db-inline"), sitting,
      forecastEl(b.forecast), h("div", { cls: "db-tuner" }, text("b", "db-h", "Tune"), formEl(b.tune, "db-inline"),
        tuningEl(b.tuning)), checkEl(b.check));
    const title = box.firstChild;  // the close button beside the card's title
    const row = h("div", { cls: "db-row" });
    box.insertBefore(row, title);
    row.appendChild(title);
    row.appendChild(button("\u00d7", b.close, { cls: "db-close", title: "close the builder" }));
    return box;
  }

  function forecastEl(f) {
    if (!f) return null;
    const head = h("div", { cls: "db-row db-wrap" }, text("b", "db-h", "How deadly"),
      h("div", { cls: `db-progress db-${f.status}`, data: { status: f.status, done: f.done },
        title: "how close every chance is to \u00b12 points" }, h("div", { cls: "db-pfill", width: f.frac || 0 })),
      text("span", "db-sub db-ftext", f.text),
      f.cancel ? button("Cancel", f.cancel, { cls: "db-mini db-fcancel" }) : null,
      f.again ? button("Forecast again", f.again, { cls: "db-mini" }) : null);
    const policies = policiesEl(f.policies);
    if (!(f.delvers || []).length || !f.done) return h("div", { cls: "db-forecast", data: { status: f.status } }, head, policies);
    // a chance, and the other policy's beside it where they differ by more than a few points
    const chance = (value, other) => [text("b", null, value), other ? text("span", "db-fother", `\u00b7 ${other}`) : null];
    const table = h("table", { cls: "db-ftable" },
      h("tr", null, text("th", null, ""), (f.heads || ["drops below 1", "dies"]).map((x) => text("th", null, x))),
      f.delvers.map((d) => h("tr", { data: { name: d.name } }, text("th", null, d.name),
        h("td", null, chance(d.drops, d.drops_other)), h("td", null, chance(d.dies, d.dies_other)))));
    const party = h("div", { cls: "db-row db-wrap db-fparty" },
      f.label ? text("span", "db-sub db-flabel", `${f.label}:`) : null,
      (f.party || []).map((x) => h("span", { cls: "db-fstat", data: { stat: x.label } }, text("span", "db-label", x.label),
        chance(x.value, x.other))),
      f.rounds ? h("span", { cls: "db-fstat" }, text("span", "db-label", "rounds"), text("b", null, f.rounds)) : null,
      f.other_status ? text("span", "db-muted", f.other_status) : null);
    return h("div", { cls: "db-forecast", data: { status: f.status } }, head, party, table, policies);
  }

  // how this party plays (learned from its fights, in words) and the switch to the documented default
  function policiesEl(p) {
    if (!p) return null;
    return h("div", { cls: "db-habits" },
      h("div", { cls: "db-row db-wrap" }, text("b", "db-h", p.title),
        (p.choices || []).length ? text("span", "db-label", "forecast:") : null,
        (p.choices || []).map((c) => button(c.label, c.intent, { cls: `db-mini db-policy${c.on ? " db-on" : ""}`,
          data: { on: c.on ? "yes" : "no" } }))),
      (p.lines || []).map((line) => text("div", "db-line db-habit", line)));
  }

  // whether to believe it: each policy's Brier score beside the base rate's, and its reliability bins (folded)
  function checkEl(c) {
    if (!c) return null;
    const head = h("div", { cls: "db-row db-wrap" }, text("b", "db-h", "Was the forecast right?"),
      c.status === "running" ? h("div", { cls: "db-progress db-running" }, h("div", { cls: "db-pfill", width: c.frac || 0 })) : null,
      c.text ? text("span", "db-sub", c.text) : null,
      c.cancel ? button("Cancel", c.cancel, { cls: "db-mini" }) : null,
      c.ask ? button(c.ask.label, c.ask.intent, { cls: "db-mini db-check" }) : null);
    if (c.status !== "done") return h("div", { cls: "db-fcheck", data: { status: c.status } }, head);
    const scores = h("table", { cls: "db-ftable db-fscores" }, h("tr", null, (c.heads || []).map((x) => text("th", null, x))),
      (c.rows || []).map((r) => h("tr", null, text("th", null, r.chance), text("td", null, `${r.happened} of ${r.n}`),
        r.cells.map((x) => h("td", { cls: x.best ? "db-best" : null, data: { policy: x.policy } }, text("b", null, x.brier),
          text("span", "db-muted", ` \u00b7 ${x.right}`))),
        text("td", null, r.reference))));
    const bins = h("details", { cls: "db-fbins" }, text("summary", "db-sub", "the reliability bins"),
      h("table", { cls: "db-ftable" }, h("tr", null, ["policy", "chance", "forecast", "how many", "said", "happened",
        "95% interval", "right?"].map((x) => text("th", null, x))),
      (c.bins || []).map((b) => h("tr", { cls: b.right ? null : "db-off" }, text("td", null, b.policy), text("td", null, b.chance),
        text("td", null, b.range), text("td", null, b.n), text("td", null, b.said), text("td", null, b.happened),
        text("td", null, b.interval), text("td", null, b.right ? "yes" : "no")))));
    return h("div", { cls: "db-fcheck", data: { status: c.status } }, head, scores, bins);
  }

  function tuningEl(t) {
    if (!t) return null;
    return h("div", { cls: "db-tuning", data: { status: t.status } },
      h("div", { cls: "db-row db-wrap" }, text("span", "db-sub", t.text),
        t.cancel ? button("Cancel", t.cancel, { cls: "db-mini" }) : null,
        t.use ? button(t.use.label, t.use.intent, { cls: "db-primary db-mini db-use-count" }) : null),
      (t.rows || []).map((r) => text("div", `db-line${r.meets ? " db-meets" : ""}`, `${r.meets ? "\u2713" : "\u2717"} ${r.text}`)));
  }

  // ---- roll tables
  function tables(t) {
    return [
      card("Roll tables", t.where, text("div", "db-note", t.hint),
        rows(t.rows, (r) => itemRow(r.name, r.text, [
          button("Roll", r.roll, { cls: "db-mini db-primary", title: `roll on ${r.name}` }),
          button("Change", r.edit, { cls: "db-mini" }),
          r.reset ? button("Reset", r.reset, { cls: "db-mini" }) : null,
          r.remove ? button("Drop", r.remove, { cls: "db-mini" }) : null,
        ], r.note, { table: r.id }))),
      card(t.form.id === "table" ? "A new roll table" : "Change the roll table", `${t.where}:form`,
        formEl(t.form, "db-inline db-prepform")),
    ];
  }

  const SECTIONS = { party, bestiary, encounters, tables };
  return {
    section(k) {
      const draw = SECTIONS[k.tab];
      return draw && k[k.tab] ? draw(k[k.tab]) : [];
    },
  };
}
