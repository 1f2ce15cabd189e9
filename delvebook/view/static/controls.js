// delvebook's table, the controls of one table: a button sends the intent it carries; a section is where a
// refusal or a question about it shows; a form's fields remember what was typed across redraws until its intent
// went through. Each table gets its own (`controls(t)`), over the table's state `t`: its `send`, its `drafts`
// (field key -> what was typed), `me` (an id unique on the page), `where` (section id -> element, this drawing's)
// and `forget(id, keys)` (the fields to clear once intent `id` went through).

import { h, add, text } from "./dom.js";

export function controls(t) {
  function button(label, intent, opts = {}) {
    const b = h("button", {
      cls: `db-btn${opts.cls ? " " + opts.cls : ""}`, title: opts.title, data: opts.data,
      key: intent ? `button:${JSON.stringify(intent)}` : null,  // the same intent is the same control
      attrs: { type: "button", disabled: opts.disabled || !intent },
      on: { click: (ev) => {
        ev.stopPropagation();
        if (!intent) return;
        const id = t.send(intent, opts.args ? opts.args() : undefined);
        if (id && opts.onSent) opts.onSent(id);
      } },
    });
    add(b, Array.isArray(label) ? label : [label]);
    return b;
  }

  function section(id, cls, ...children) {
    const s = h("div", { cls: `db-section ${cls || ""}`, data: { where: id } }, ...children);
    if (id) t.where.set(id, s);
    return s;
  }

  function notice(kind, body, onClose) {
    const box = h("div", { cls: `db-notice db-${kind}`, data: { kind } }, body);
    if (onClose) box.appendChild(button("\u00d7", onClose, { cls: "db-close", title: "dismiss" }));
    return box;
  }

  // ---- forms: fields remember what was typed across redraws until the intent goes through
  function fieldKey(formId, f) { return `${formId}.${f.name}`; }

  function fieldEl(formId, f) {
    const key = fieldKey(formId, f);
    const has = t.drafts.has(key);
    const value = has ? t.drafts.get(key) : f.value;
    const remember = (v) => t.drafts.set(key, v);
    const typed = { input: (ev, el) => remember(el.value) };
    let input;
    if (f.kind === "choice") {
      input = h("select", { cls: "db-input", data: { key }, attrs: { name: f.name }, on: { change: (ev, el) => {
        remember(el.value);
        if (f.send) t.send({ ...f.send, value: el.value });  // a choice the form is drawn from (a class)
      } } });
      for (const o of f.options || []) {
        const opt = text("option", null, o.label);
        opt.value = o.value === null || o.value === undefined ? "" : String(o.value);
        input.appendChild(opt);
      }
      input.value = value === null || value === undefined ? "" : String(value);
    } else if (f.kind === "multi") {
      const picked = new Set((value || []).map(String));
      input = h("span", { cls: "db-multi", data: { key } });
      for (const o of f.options || []) {
        const box = h("input", { attrs: { type: "checkbox", value: String(o.value) }, on: { change: (ev, el) => {
          remember([...el.closest(".db-multi").querySelectorAll("input:checked")].map((x) => x.value));
        } } });
        box.checked = picked.has(String(o.value));
        input.appendChild(h("label", { cls: "db-check" }, box, o.label));
      }
      if (!(f.options || []).length) input.appendChild(text("span", "db-muted", "none known"));
    } else if (f.kind === "flag") {
      input = h("input", { cls: "db-flag", data: { key }, attrs: { type: "checkbox" }, on: { change: (ev, el) => remember(el.checked) } });
      input.checked = !!value;
      return h("label", { cls: "db-field db-check", title: f.hint }, input, f.label);
    } else if (f.kind === "lines") {
      input = h("textarea", { cls: "db-input db-lines", data: { key }, on: typed,
        attrs: { name: f.name, rows: 5, placeholder: f.hint || f.label } });
      input.value = value === null || value === undefined ? "" : String(value);
    } else if (f.kind === "find") {
      // a big bestiary: typed (an id or a name), with the first few as suggestions
      const list = `db-${t.me}-${formId}-${f.name}`.replace(/[^A-Za-z0-9_-]/g, "_");
      input = h("input", { cls: "db-input", data: { key }, on: typed, attrs: { type: "text", list, placeholder: f.hint || f.label, name: f.name } });
      input.value = value === null || value === undefined ? "" : String(value);
      const options = h("datalist", { attrs: { id: list } });
      for (const o of f.options || []) { const opt = text("option", null, o.label); opt.value = String(o.value); options.appendChild(opt); }
      return h("label", { cls: "db-field", title: f.hint, data: { error: f.error ? 1 : null } },
        f.label ? text("span", "db-label", f.label) : null, input, options, f.error ? text("span", "db-field-error", f.error) : null);
    } else {
      input = h("input", {
        cls: `db-input${f.kind === "number" ? " db-num" : ""}`, data: { key }, on: typed,
        attrs: { type: f.kind === "number" ? "number" : "text", placeholder: f.hint || f.label, min: f.min, max: f.max, name: f.name },
      });
      input.value = value === null || value === undefined ? "" : String(value);
    }
    if (f.error) { input.classList.add("db-invalid"); input.setAttribute("aria-invalid", "true"); }
    return h(f.kind === "multi" ? "div" : "label", { cls: "db-field", title: f.hint, data: { error: f.error ? 1 : null } },
      f.label ? text("span", "db-label", f.label) : null, input, f.error ? text("span", "db-field-error", f.error) : null);
  }

  function readField(formId, f) {
    const key = fieldKey(formId, f);
    if (t.drafts.has(key)) return t.drafts.get(key);
    return f.kind === "multi" ? (f.value || []) : f.value;
  }

  function formEl(form, cls) {
    const box = h("div", { cls: `db-form ${cls || ""}`, data: { form: form.id }, on: { keydown: (ev, el) => {
      if (ev.key === "Enter" && ev.target.tagName === "INPUT" && ev.target.type !== "checkbox") {
        const b = el.querySelector("button.db-primary");
        if (b) { ev.preventDefault(); b.click(); }
      }
    } } });
    const fields = form.fields || [];
    for (const f of fields) box.appendChild(fieldEl(form.id, f));
    const submits = Array.isArray(form.submit) ? form.submit : [form.submit];
    for (const s of submits) {
      box.appendChild(button(s.label, s.intent, {
        cls: "db-primary",
        // what was typed is forgotten once the kernel says the intent went through (kept if refused)
        onSent: (id) => t.forget(id, fields.map((f) => fieldKey(form.id, f))),
        args: () => {
          const args = {};
          for (const f of fields) args[f.name] = readField(form.id, f);
          return args;
        },
      }));
    }
    return box;
  }

  return { button, section, notice, formEl };
}
