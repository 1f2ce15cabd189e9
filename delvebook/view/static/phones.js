// delvebook's table, the players' phones: a player's own page (view mode "player"), and on the keeper's table the
// players' requests beside the outcome, each player's link with its QR code, and a roll sent to a player. Drawn
// with the table's own builders (the kit table.js hands over), text only; loaded before table.js, as one module.

function phoneParts(kit) {
  const { h, text, svg, button, section, formEl, bar, pips, rollEl } = kit;

  // ---- a link as a QR code: the view model gives the dark modules as one SVG path
  function qrEl(q, label) {
    if (!q) return null;
    return svg("svg", { viewBox: `0 0 ${q.size} ${q.size}`, class: "db-qr", role: "img", "shape-rendering": "crispEdges" },
      svg("title", {}, label), svg("rect", { width: q.size, height: q.size, class: "db-qr-light" }),
      svg("path", { d: q.d, class: "db-qr-dark" }));
  }

  // ---- the keeper's table: what the players asked, beside the outcome
  function requestsEl(r) {
    if (!r) return null;
    const auto = h("input", { attrs: { type: "checkbox" } });
    auto.checked = !!r.auto_luck.on;
    auto.addEventListener("change", () => kit.send(r.auto_luck.intent));
    return section("requests", "db-requests",
      h("div", { cls: "db-row db-wrap" }, text("b", "db-h", "From the players' phones"),
        h("label", { cls: "db-check db-autoluck" }, auto, r.auto_luck.label)),
      r.rows.map((x) => section(x.where, "db-request", h("div", { cls: "db-row db-wrap", data: { player: x.player, n: x.n } },
        text("span", "db-said", x.text),
        button("Accept", x.why_not ? null : x.accept, { cls: "db-primary db-mini db-accept" }),
        button("Decline", x.decline, { cls: "db-mini db-decline" })),
        x.why_not ? text("div", "db-muted", x.why_not) : null)),
      r.rows.length ? null : text("div", "db-muted", "No request waiting."),
      r.asks.map((a) => h("div", { cls: "db-row db-wrap db-asked" }, text("span", "db-note", a.text),
        button("Withdraw", a.withdraw, { cls: "db-mini" }))),
      r.problem ? text("div", "db-muted", r.problem) : null,
      (r.set_aside || []).map((t) => text("div", "db-set-aside", t)));
  }

  // ---- the Keeper panel: each player's link and QR code, or how to serve the pages
  // Under Jupyter the links are made as this browser reaches the server: its origin and the server's base URL
  // (JupyterLab's page config), told to the table once a page.
  let reachedSent = null;
  function tellReach(ask) {
    let base = null;
    try {
      const cfg = document.getElementById("jupyter-config-data");
      base = cfg ? JSON.parse(cfg.textContent).baseUrl || null : null;
    } catch (err) { base = null; }
    const said = `${location.origin} ${base}`;
    if (reachedSent === said) return;
    reachedSent = said;
    setTimeout(() => kit.send({ ...ask, origin: location.origin, base }), 0);
  }

  function linkRows(rows) {
    return h("div", { cls: "db-links" }, rows.map((r) => h("div", { cls: "db-link", data: { player: r.player } },
      qrEl(r.qr, `QR code of ${r.label}'s link`), h("div", { cls: "db-link-text" }, text("b", null, r.label),
        text("code", "db-code db-url", r.link)))));
  }

  function phonesCard(p) {
    if (!p) return null;
    if (p.ask_reach) tellReach(p.ask_reach);
    const body = [text("div", "db-note db-reach", p.text)];
    if (!p.running) {
      body.push(h("div", { cls: "db-row db-wrap" }, button(p.start.label, p.start.intent, { cls: "db-primary" }),
        text("span", "db-muted", "or, for the table's Wi-Fi, in a terminal:"), text("code", "db-code", p.command)));
    } else {
      if ((p.rows || []).length) body.push(linkRows(p.rows));
      if (p.lan) body.push(h("div", { cls: "db-row db-wrap" }, button(p.lan.label, p.lan.intent, { cls: "db-primary" }),
        text("span", "db-muted", "or in a terminal:"), text("code", "db-code", p.command)));
      if (p.lan_rows) body.push(text("div", "db-note db-lan", p.lan_text), linkRows(p.lan_rows));
      if (p.qr_missing) body.push(text("div", "db-muted", "QR codes need the players extra: pip install 'delvebook[players]'"));
      body.push(button(p.stop.label, p.stop.intent, { cls: "db-mini" }));
    }
    return section("phones", "db-card db-phones", text("b", "db-h", "Players' phones"), body);
  }

  // ---- the action bar: a roll of this delver sent to its player's phone
  function askForm(a) {
    if (!a) return null;
    return section("ask", "db-ask", text("b", "db-h", a.title), formEl(a, "db-inline"));
  }

  // ---- a player's own page: big type, one column
  function delverCard(d, luck) {
    return h("div", { cls: `db-card db-mine${d.dying ? " db-dying" : ""}${d.dead ? " db-dead" : ""}`, data: { name: d.name, status: d.status } },
      h("div", { cls: "db-chip-head" }, text("b", "db-name", d.name), text("span", "db-sub", `${d.class} ${d.level}`),
        d.badge ? text("span", "db-badge", d.badge) : null),
      bar(d.frac, `\u2665 ${d.hearts_text}`, "db-hearts", { hearts: d.hearts, max: d.max_hearts, status: d.status }),
      h("div", { cls: "db-row db-wrap" }, pips(luck.left, luck.max), text("span", "db-luckleft", `${luck.left} of ${luck.max} luck dice`),
        (d.resources || []).map((r) => text("span", "db-res", r.text))),
      (d.conditions || []).length ? h("div", { cls: "db-row db-wrap" }, d.conditions.map((x) => text("span", "db-cond", x.text, x.title))) : null,
      bar(d.xp_frac, `${d.xp_text} \u00b7 ${d.xp_next}`, "db-xp"));
  }

  function playerPage(v, body) {
    body.appendChild(h("div", { cls: "db-header" }, text("span", "db-title", v.title),
      text("span", "db-session", `${v.player} \u00b7 ${v.session.text} \u00b7 ${v.session.clock}`)));
    const parts = [];
    if (v.note) parts.push(text("div", "db-muted", v.note));
    parts.push(...(v.delvers || []).map((d) => delverCard(d, v.luck)));
    if (v.turn) parts.push(text("div", `db-now${v.turn.mine ? " db-myturn" : ""}`, v.turn.text));
    for (const a of v.asks || []) {
      parts.push(section(a.where, "db-card db-asked-me", text("b", "db-h", "The keeper asks"),
        text("div", "db-said", a.label),
        button([text("span", "db-btn-label", "Roll it"), a.odds ? text("span", "db-odds", a.odds) : null], a.roll, { cls: "db-primary db-big db-rollit" }),
        formEl(a.faces, "db-inline db-faces")));
    }
    const o = v.outcome;
    parts.push(section("latest", "db-card db-latest", text("b", "db-h", "Latest"),
      o ? h("div", { cls: "db-result", data: { seq: o.seq, kind: o.kind } }, text("div", "db-said", o.text),
        (o.lines || []).map((l) => text("div", "db-line", l)), (o.rolls || []).map(rollEl)) :
        text("div", "db-muted", "Nothing has happened yet."),
      section("spend", "db-spend", v.spend.rows.map((r) => section(r.where, "db-row db-wrap db-luckrow", text("span", "db-roll-label", `${r.label}: ${r.total}`),
        r.plus ? button("+ luck die", r.plus, { cls: "db-primary db-luck-plus" }) : null, r.minus ? button("\u2212 luck die", r.minus, { cls: "db-luck-minus" }) : null)),
        v.spend.note ? text("div", "db-muted", v.spend.note) : null)));
    for (const c of v.choices || []) {
      parts.push(section(c.key, "db-card db-choice", text("b", "db-h", `${c.who}: ${c.title}`),
        c.options.map((x) => h("div", { cls: "db-option" }, button(x.label, x.intent, { cls: "db-primary" }), text("div", "db-effect", x.effect)))));
    }
    if ((v.requests || []).length) {
      parts.push(section("requests", "db-card db-myrequests", text("b", "db-h", "Your requests"),
        v.requests.map((r) => h("div", { cls: `db-myrequest db-${r.status}`, data: { n: r.n, status: r.status } },
          text("span", "db-said", r.text), text("b", "db-status", ` ${r.status}`), r.why ? text("div", "db-muted", r.why) : null))));
    }
    body.appendChild(h("div", { cls: "db-page-main" }, parts));
    return body;
  }

  return { requestsEl, phonesCard, askForm, playerPage };
}
