// delvebook's players' pages, served under the keeper's Jupyter server or by `delvebook players`: the table's own
// front end (table.js) drawn from the view model the server computes, with this stand-in for anywidget's model.
// One WebSocket a page carries everything: the link's secret first (read from the link's fragment, which no
// server or log ever sees), then the page's view as it changes, and its clicks, each answered on it. A browser's
// six connections to a host are not spent on it, so a dozen pages of one origin all follow. Nothing is fetched
// from anywhere else.

import table from "./table.js";

const root = document.getElementById("db");
const key = decodeURIComponent(location.hash.slice(1));
const listeners = { "change:view": [], "msg:custom": [] };
let view = {};
let last = {};
let kept = { refusal: null, ack: null };  // what the answer to this page's last click said, until the next click
let socket = null;
let refused = false;
let tries = 0;

function emit(name, ...args) { for (const fn of listeners[name] || []) fn(...args); }

function show(v) {
  if (v.title) document.title = v.title;
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

function connect() {
  const url = new URL(root.dataset.live, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  socket = new WebSocket(url.href);
  socket.addEventListener("open", () => { socket.send(JSON.stringify({ type: "hello", key })); });
  socket.addEventListener("message", (e) => {
    let m;
    try { m = JSON.parse(e.data); } catch (err) { return; }
    if (m.type === "view") { tries = 0; said(null); last = m.view; show(last); }
    else if (m.type === "answer") {
      kept = { refusal: m.view.refusal || null, ack: m.view.ack };
      last = { ...m.view, refusal: null };
      show(m.view);
    } else if (m.type === "refused") { refused = true; said(m.text); }
  });
  socket.addEventListener("close", () => {
    if (refused) return;
    tries += 1;
    said(tries > 20 ? "This page lost the keeper's laptop: reload it to try again."
      : "Connection to the keeper's laptop lost: trying again\u2026");
    if (tries <= 20) setTimeout(connect, Math.min(500 * tries, 3000));
  });
}

function click(message) {
  const intent = message.intent || {};
  if (intent.do === "dismiss") { kept = { refusal: null, ack: message.id }; show(last); return; }
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    kept = { refusal: { text: "The keeper's laptop did not answer: try again.", where: intent.where || null }, ack: message.id };
    show(last);
    return;
  }
  socket.send(JSON.stringify({ type: "intent", id: message.id, intent }));
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

connect();
table.render({ model, el: root });
