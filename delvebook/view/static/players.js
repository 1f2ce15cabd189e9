// delvebook's players' pages, served by `delvebook players`: the table's own front end (table.js) drawn from the
// view model the server computes, with this stand-in for anywidget's model: the view comes by server-sent events
// (one stream a page, ended when the page closes), a click goes back as one POST to the same server, carrying the
// link's secret. Nothing is fetched from anywhere else.

import table from "./table.js";

const key = new URLSearchParams(location.search).get("key") || "";
const q = `key=${encodeURIComponent(key)}`;
const listeners = { "change:view": [], "msg:custom": [] };
let view = {};
let kept = { refusal: null, ack: null };  // what the answer to this page's last click said, until the next click

function emit(name, ...args) { for (const fn of listeners[name] || []) fn(...args); }

function show(v) {
  view = { ...v, ack: kept.ack, refusal: kept.refusal || v.refusal || null };
  emit("change:view");
}

function said(line) {  // one line above the page: the connection to the keeper's laptop
  let el = document.getElementById("db-connection");
  if (!line) { if (el) el.remove(); return; }
  if (!el) {
    el = document.createElement("div");
    el.id = "db-connection";
    el.className = "db-alone";
    document.body.prepend(el);
  }
  el.textContent = line;
}

let last = {};
async function click(message) {
  const intent = message.intent || {};
  if (intent.do === "dismiss") { kept = { refusal: null, ack: message.id }; show(last); return; }
  try {
    const r = await fetch(`/intent?${q}`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(message), credentials: "omit", cache: "no-store" });
    const v = await r.json();
    kept = { refusal: v.refusal || null, ack: v.ack || message.id };
    last = { ...v, refusal: null };
    show(v);
  } catch (err) {
    kept = { refusal: { text: "The keeper's laptop did not answer: try again.", where: intent.where || null }, ack: message.id };
    show(last);
  }
}

const model = {
  get: (name) => (name === "view" ? view : undefined),
  on: (name, fn) => { (listeners[name] = listeners[name] || []).push(fn); },
  off: (name, fn) => { listeners[name] = (listeners[name] || []).filter((f) => f !== fn); },
  send: (message) => {
    if (message && message.type === "hello") setTimeout(() => emit("msg:custom", { type: "live" }), 0);
    else if (message && message.type === "intent") click(message);
  },
};

const stream = new EventSource(`/events?${q}`);
stream.addEventListener("view", (e) => { said(null); last = JSON.parse(e.data); show(last); });
stream.addEventListener("error", () => {
  said(stream.readyState === EventSource.CLOSED ? "This page lost the keeper's laptop: reload it to try again."
    : "Connection to the keeper's laptop lost: trying again\u2026");
});

table.render({ model, el: document.getElementById("db") });
