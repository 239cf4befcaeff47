"use strict";
// The token may arrive once in the address; it stays in memory and leaves the address bar.
const params = new URLSearchParams(location.search);
const token = params.get("token");
if (token) history.replaceState(null, "", location.pathname);
const headers = token ? { Authorization: "Bearer " + token } : {};
const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

async function api(path, body) {
  const init = body === undefined ? { headers } : { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

/**
 * The loads of one part of the page (the element `id`): `await load(api(...))` gives the answer,
 * and whether it is still current, that is no newer load of that part started meanwhile. Answers
 * can overtake each other, and an older one knows less: shown last, it would undo what a newer
 * one showed. The part is aria-busy while any of its loads is out.
 */
function loads(id) {
  let asked = 0;
  let out = 0;
  return async (request) => {
    const mine = ++asked;
    const part = $(id);
    out++;
    part.setAttribute("aria-busy", "true");
    try {
      const value = await request;
      return { value, current: mine === asked };
    } finally {
      if (--out === 0) part.setAttribute("aria-busy", "false");
    }
  };
}

/** Runs fn at most once per delay, after the last request: bursts of events refresh once. */
function later(fn, delay) {
  let timer;
  return () => { clearTimeout(timer); timer = setTimeout(() => fn().catch(() => {}), delay); };
}

const ms = (v) => v === undefined ? "" : v < 1000 ? Math.round(v) + " ms" : (v / 1000).toFixed(1) + " s";

// ---- tabs
for (const b of document.querySelectorAll("nav button")) {
  b.onclick = () => {
    for (const o of document.querySelectorAll("nav button")) {
      o.setAttribute("aria-selected", String(o === b));
      $("tab-" + o.dataset.tab).hidden = o !== b;
    }
    if (b.dataset.tab === "metrics") loadMetrics().catch(() => {});
  };
}

// ---- diffs: unified diff lines with old and new line numbers
function looksLikeDiff(text) { return /^(--- |\+\+\+ |@@ )/m.test(text); }
// Control characters and invisible reordering marks are shown, never obeyed: the same pattern as the terminal's.
const HIDDEN = new RegExp("__TACKLE_HIDDEN__", "gu");
// Runs of blank-looking characters, as the terminal counts them.
const BLANK_RUN = new RegExp("__TACKLE_BLANK_RUN__", "g");
function visible(text) {
  return String(text).replace(HIDDEN, (run) => {
    let out = "";
    for (const ch of run) {
      const code = ch.codePointAt(0);
      const hex = code.toString(16);
      out += ch === "\r" ? "\\r" : code < 0x100 ? "\\x" + hex.padStart(2, "0") : code <= 0xffff ? "\\u" + hex.padStart(4, "0") : "\\u{" + hex + "}";
    }
    return out;
  });
}
function visibleJson(value) { return visible(JSON.stringify(value, null, 2)); }
/**
 * A call's arguments with each run of 8 or more spaces in a value counted, as the terminal's prompt
 * counts them: a run could push the rest of a command out of sight, below the fold of its box.
 */
function countedSpaces(value) {
  if (typeof value === "string") return value.replace(BLANK_RUN, (run) => " [" + [...run].length + " spaces] ");
  if (Array.isArray(value)) return value.map(countedSpaces);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, countedSpaces(v)]));
  return value;
}

/** A description written for a model, for people: `code` spans as code, the rest as text (never as HTML). */
function prose(text, cls, tag) {
  const box = el(tag || "div", undefined, cls);
  String(text).split(/(`[^`\n]+`)/).forEach((part) => {
    if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) box.append(el("code", visible(part.slice(1, -1))));
    else if (part) box.append(document.createTextNode(visible(part)));
  });
  return box;
}

function diffTable(text) {
  const table = el("table", undefined, "diff");
  let a = 0, b = 0;
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    const row = el("tr");
    let left = "", right = "";
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line);
    if (hunk) { a = Number(hunk[1]); b = Number(hunk[2]); row.className = "hunk"; }
    else if (line.startsWith("+++") || line.startsWith("---")) row.className = "file";
    else if (line.startsWith("+")) { row.className = "add"; right = b++; }
    else if (line.startsWith("-")) { row.className = "del"; left = a++; }
    else if (a > 0 || b > 0) { left = a++; right = b++; }
    row.append(el("td", left, "n"), el("td", right, "n"), el("td", visible(line)));
    table.append(row);
  }
  return table;
}

// ---- approvals
const deadlines = new Map();
let approvalIds = "";
const approvalsLoad = loads("approvals");

function countdown() {
  for (const span of document.querySelectorAll(".countdown")) {
    const left = Math.max(0, deadlines.get(span.dataset.id) - performance.now());
    const s = Math.ceil(left / 1000);
    span.textContent = (s >= 60 ? Math.floor(s / 60) + " min " + (s % 60) + " s" : s + " s") + " left";
    span.classList.toggle("low", s < 30);
  }
}
setInterval(countdown, 1000);

async function answer(id, body, card) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  try {
    await api("/api/approvals/" + encodeURIComponent(id), body);
  } catch (err) {
    card.querySelector(".problem").textContent = "Could not answer: " + err.message;
    for (const b of card.querySelectorAll("button")) b.disabled = false;
  }
  loadApprovals().catch(() => {});
}

/** Parses and checks edited arguments with the tool's own schema; the parsed object, or undefined. */
async function checkEdit(a, card) {
  const note = card.querySelector(".edit-note");
  let args;
  try { args = JSON.parse(card.querySelector("textarea").value); }
  catch (err) { note.className = "edit-note invalid"; note.textContent = "Not JSON: " + err.message; return undefined; }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    note.className = "edit-note invalid"; note.textContent = "The arguments must be a JSON object."; return undefined;
  }
  try {
    const r = await api("/api/approvals/" + encodeURIComponent(deskId(a)) + "/check", { args });
    if (!r.valid) { note.className = "edit-note invalid"; note.textContent = "Invalid: " + r.error; return undefined; }
  } catch (err) { note.className = "edit-note invalid"; note.textContent = err.message; return undefined; }
  note.className = "edit-note valid"; note.textContent = "Valid.";
  return args;
}

/** The desk's id for a waiting call (a toolCallId may repeat across the processes on one desk). */
function deskId(a) {
  return a.id || a.toolCallId;
}

/** A call whose process is gone: nothing would run it, so it can only be cleared. */
function orphanCard(a) {
  const card = el("div", undefined, "approval orphaned");
  card.dataset.id = deskId(a) + ":orphaned";
  card.dataset.call = a.toolCallId;
  const head = el("div", undefined, "head");
  head.append(el("strong", visible(a.tool)), el("span", "orphaned", "pill"), el("span", visible(a.reason)));
  card.append(head, el("p", "The process that asked (" + visible(a.instance || "?") + ") is gone: nothing will run this call.", "muted"));
  card.append(el("pre", visibleJson(countedSpaces(a.args)), "args"));
  const dismiss = el("button", "Dismiss", "reject");
  dismiss.onclick = () => answer(deskId(a), { approved: false, message: "dismissed: its process was gone" }, card);
  const actions = el("div", undefined, "actions");
  actions.append(dismiss);
  card.append(actions, el("p", "", "problem invalid"));
  return card;
}

function approvalCard(a) {
  if (a.orphaned) return orphanCard(a);
  const card = el("div", undefined, "approval");
  card.tabIndex = 0;
  card.dataset.id = deskId(a);
  card.dataset.call = a.toolCallId;
  const head = el("div", undefined, "head");
  const cd = el("span", "", "countdown");
  cd.dataset.id = deskId(a);
  deadlines.set(deskId(a), performance.now() + a.remainingMs);
  head.append(el("strong", visible(a.tool)), el("span", a.effect, "pill"), el("span", visible(a.reason)), cd);
  card.append(head);
  if (a.instance && !a.local) card.append(el("p", "Asked by another tackle process: " + visible(a.instance), "muted from"));
  if (a.context) card.append(el("p", "Agent: " + visible(a.context), "muted"));
  card.append(el("pre", visibleJson(countedSpaces(a.args)), "args"));
  if (a.preview) card.append(looksLikeDiff(a.preview) ? diffTable(a.preview) : el("pre", visible(a.preview)));

  const message = el("input");
  message.placeholder = "message for the model (sent with Reject)";
  message.className = "message";
  message.onkeydown = (e) => { if (e.key === "Enter") { e.preventDefault(); reject.click(); } };
  const approve = el("button", "Approve", "approve");
  approve.onclick = () => answer(deskId(a), { approved: true }, card);
  const reject = el("button", "Reject", "reject");
  reject.onclick = () => answer(deskId(a), message.value ? { approved: false, message: message.value } : { approved: false }, card);
  const rules = a.alwaysRules && a.alwaysRules.length ? a.alwaysRules.join(", ") : a.tool;
  const always = el("button", "Always allow " + visible(rules), "always");
  always.title = "Approve, and allow every later call matching " + visible(rules) + " for every agent on this desk";
  // Wider than the narrowest rule only on purpose: a rule typed here, kept only if it covers this call.
  const wider = el("input");
  wider.placeholder = "or a wider rule, e.g. " + visible(a.tool) + "(src/**)";
  wider.className = "wider";
  wider.setAttribute("aria-label", "a wider rule for always");
  wider.oninput = () => { always.textContent = "Always allow " + visible(wider.value.trim() || rules); };
  always.onclick = () => {
    const rule = wider.value.trim();
    answer(deskId(a), rule ? { approved: true, always: true, alwaysRule: rule } : { approved: true, always: true }, card);
  };
  const edit = el("button", "Edit", "edit");
  const actions = el("div", undefined, "actions");
  actions.append(approve, reject, message, always, wider, edit);
  card.append(actions);

  const editor = el("div", undefined, "editor");
  editor.hidden = true;
  const area = el("textarea", JSON.stringify(a.args, null, 2), "edit");
  area.setAttribute("aria-label", "arguments as JSON");
  const note = el("span", "", "edit-note");
  const sendEdited = el("button", "Approve edited", "approve-edited");
  sendEdited.onclick = async () => {
    const args = await checkEdit(a, card);
    if (args) answer(deskId(a), { approved: true, modifiedArgs: args }, card);
  };
  const check = el("button", "Check", "check");
  check.onclick = () => checkEdit(a, card);
  const row = el("div", undefined, "actions");
  row.append(sendEdited, check, note);
  editor.append(area, row);
  card.append(editor, el("p", "", "problem invalid"));
  edit.onclick = () => { editor.hidden = !editor.hidden; if (!editor.hidden) area.focus(); };

  card.addEventListener("keydown", (e) => {
    // Keys typed into a field are text, not commands.
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "a") { e.preventDefault(); approve.click(); }
    else if (e.key === "r") { e.preventDefault(); if (message.value) reject.click(); else message.focus(); }
    else if (e.key === "e") { e.preventDefault(); edit.click(); }
  });
  return card;
}

async function loadApprovals() {
  const { value: list, current } = await approvalsLoad(api("/api/approvals"));
  if (!current) return;
  const box = $("approvals");
  const ids = list.map((a) => deskId(a) + (a.orphaned ? ":orphaned" : "")).join("\n");
  const live = list.filter((a) => !a.orphaned).length;
  $("waiting-count").textContent = live ? "(" + live + ")" : "";
  // Unchanged queue: keep the cards, so a half-typed message or edit survives other events.
  if (ids === approvalIds) return;
  approvalIds = ids;
  const focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest(".approval") : null;
  const keep = new Map([...box.querySelectorAll(".approval")].map((c) => [c.dataset.id, c]));
  box.replaceChildren();
  if (list.length === 0) box.append(el("p", "Nothing is waiting.", "muted"));
  for (const a of list) box.append(keep.get(deskId(a) + (a.orphaned ? ":orphaned" : "")) || approvalCard(a));
  // A new request takes the focus only from nothing or from an answered request, never from a field in use.
  const idle = document.activeElement === document.body || (focused && !box.contains(focused));
  if (idle) { const first = box.querySelector(".approval"); if (first) first.focus(); }
  countdown();
}

// ---- history
let historyNext;
const statusCell = (s) => el("td", s, "s-" + s);

function historyQuery(before) {
  const q = new URLSearchParams();
  if ($("f-tool").value) q.set("tool", $("f-tool").value);
  if ($("f-status").value) q.set("status", $("f-status").value);
  if ($("f-text").value.trim()) q.set("q", $("f-text").value.trim());
  if (before) q.set("before", String(before));
  return "/api/history?" + q;
}

const historyLoad = loads("history");
async function loadHistory(more) {
  // A newer load (another filter, a reload on an event) makes an older one's page stale.
  const { value: page, current } = await historyLoad(api(historyQuery(more ? historyNext : undefined)));
  if (!current) return;
  const body = $("history").tBodies[0];
  if (!more) body.replaceChildren();
  for (const c of page.items) {
    const row = el("tr", undefined, "call");
    row.dataset.seq = c.seq;
    row.append(el("td", new Date(c.timestamp).toLocaleString(), "muted"), el("td", c.tool), statusCell(c.status),
      el("td", c.approvedBy || ""), el("td", ms(c.durationMs)));
    row.onclick = () => openCall(c.seq, row);
    body.append(row);
  }
  historyNext = page.next;
  $("more").hidden = !page.next;
  $("history-empty").hidden = body.childElementCount > 0;
  const select = $("f-tool");
  const known = new Set([...select.options].map((o) => o.value));
  for (const t of page.tools) if (!known.has(t)) select.append(el("option", t));
}

const detailLoad = loads("detail");
async function openCall(seq, row) {
  for (const r of document.querySelectorAll("tr.call.open")) r.classList.remove("open");
  row.classList.add("open");
  // Rows clicked in quick succession: only the last one's details are shown.
  const { value: c, current } = await detailLoad(api("/api/history/" + seq));
  if (!current) return;
  const box = $("detail");
  box.replaceChildren();
  const title = el("h2");
  const where = " " + c.toolCallId + (c.source === "log" ? " (earlier run)" : "");
  title.append(el("span", c.tool + " "), el("span", c.status, "s-" + c.status), el("span", where, "muted"));
  box.append(title);
  if (c.note) box.append(el("p", c.note, "muted"));
  if (c.args !== undefined) box.append(el("h3", "Arguments"), el("pre", visibleJson(c.args), "detail-args"));
  if (c.result !== undefined) box.append(el("h3", "Result"), el("pre", c.result, "detail-result"));
  if (c.error !== undefined) box.append(el("h3", "Error" + (c.errorCode ? " (" + c.errorCode + ")" : "")), el("pre", c.error, "detail-error"));
  if (c.events.length) {
    box.append(el("h3", "Events"));
    const t = el("table", undefined, "list");
    for (const e of c.events) {
      const r = el("tr");
      r.append(el("td", new Date(e.at).toLocaleTimeString(), "muted"), el("td", e.type), el("td", JSON.stringify(e.data).slice(0, 300)));
      t.append(r);
    }
    box.append(t);
  }
  box.hidden = false;
}

$("more").onclick = () => loadHistory(true).catch(() => {});
const refilter = later(() => loadHistory(false), 250);
$("f-tool").onchange = refilter;
$("f-status").onchange = refilter;
$("f-text").oninput = refilter;

// ---- metrics: counts, percentiles, an outcome bar and a sparkline of recent durations
// The SVG namespace, taken from an inline element: the page holds no addresses, not even that one.
const SVG = $("svg-ns").namespaceURI;
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, String(attrs[k]));
  return e;
}
function outcomeBar(m) {
  const w = 120, h = 12, s = svg("svg", { width: w, height: h, role: "img" });
  const parts = [[m.successes, "#1a7f37"], [m.errors, "#cf222e"], [m.rejections, "#bc4c00"], [m.cancellations, "#8c959f"]];
  let x = 0;
  for (const [n, colour] of parts) {
    if (!n) continue;
    const width = (n / m.calls) * w;
    s.append(svg("rect", { x, y: 0, width, height: h, fill: colour }));
    x += width;
  }
  s.append(svg("title", {}));
  s.lastChild.textContent = m.successes + " ok, " + m.errors + " errors, " + m.rejections + " rejected, " + m.cancellations + " cancelled";
  return s;
}
function sparkline(values) {
  const w = 160, h = 24, s = svg("svg", { width: w, height: h, role: "img", class: "spark" });
  s.append(svg("rect", { x: 0, y: 0, width: w, height: h, fill: "#f6f8fa" }));
  if (!values || values.length === 0) return s;
  const max = Math.max(...values, 1);
  // One bar per call, newest on the right; room for the 40 the server keeps.
  const step = w / 40;
  values.forEach((v, i) => {
    const bh = Math.max(1, (v / max) * (h - 2));
    const x = w - (values.length - i) * step;
    s.append(svg("rect", { x: x.toFixed(1), y: (h - bh).toFixed(1), width: (step - 1).toFixed(1), height: bh.toFixed(1), fill: "#0969da", class: "bar" }));
  });
  s.append(svg("title", {}));
  s.lastChild.textContent = "last " + values.length + " durations, up to " + ms(max);
  return s;
}
const metricsLoad = loads("metrics");
async function loadMetrics() {
  const { value: [metrics, recent], current } = await metricsLoad(Promise.all([api("/api/metrics"), api("/api/metrics/recent")]));
  if (!current) return;
  const body = $("metrics").tBodies[0];
  body.replaceChildren();
  for (const m of metrics.sort((x, y) => y.calls - x.calls)) {
    const row = el("tr");
    row.dataset.tool = m.tool;
    const bar = el("td"), spark = el("td");
    bar.append(outcomeBar(m));
    spark.append(sparkline(recent[m.tool]));
    row.append(el("td", m.tool), el("td", m.calls, "calls"), el("td", m.errors, "errors"), el("td", m.rejections, "rejections"),
      el("td", ms(m.p50Ms)), el("td", ms(m.p95Ms)), bar, spark);
    body.append(row);
  }
  $("metrics-empty").hidden = metrics.length > 0;
}

// ---- agent state and active calls
const stateLoad = loads("agent");
async function loadState() {
  const { value: s, current } = await stateLoad(api("/api/state"));
  if (!current) return;
  const agent = $("agent");
  // Waiting for a person is not idle: the agent is held up until someone answers.
  const waiting = s.waiting > 0;
  agent.textContent = waiting ? "waiting for you (" + s.waiting + ")" : s.state === "tool_execution" ? "running tools" : "idle";
  agent.className = "pill" + (waiting ? " waiting" : s.state === "tool_execution" ? " busy" : "");
  if (s.workspace) { $("workspace").textContent = visible(s.workspace); document.title = "tackle · " + visible(s.workspace); }
  $("active").textContent = s.active.length ? s.active.map((a) => a.tool + " (" + a.status + ")").join(", ") : "";
}

// ---- tools: description, parameters, effect and the rules naming each
const toolsLoad = loads("tools");
async function loadTools() {
  const { value: [tools, rulesOf], current } = await toolsLoad(Promise.all([api("/api/tools"), api("/api/rules")]));
  if (!current) return;
  const box = $("tools");
  box.replaceChildren();
  for (const t of tools) {
    const div = el("div", undefined, "tool");
    div.dataset.tool = t.name;
    const head = el("div");
    head.append(el("strong", t.name + " "), el("span", t.effect, "pill"));
    div.append(head, prose(t.description || "", "desc"));
    const props = (t.inputSchema && t.inputSchema.properties) || {};
    const required = new Set((t.inputSchema && t.inputSchema.required) || []);
    const names = Object.keys(props);
    if (names.length) {
      const table = el("table", undefined, "list");
      for (const n of names) {
        const p = props[n] || {};
        const r = el("tr");
        r.append(el("td", n + (required.has(n) ? "" : "?")), el("td", p.type || (p.enum ? p.enum.join(" | ") : ""), "muted"), prose(p.description || "", "", "td"));
        table.append(r);
      }
      div.append(table);
    }
    const rules = rulesOf.tools[t.name] || {};
    const said = [["allow", rules.allow], ["ask", rules.ask], ["deny", rules.deny], ["always (this session)", rules.always]]
      .filter(([, list]) => list && list.length).map(([k, list]) => k + ": " + list.join(", "));
    const none = "No rules name this tool; the approval mode (" + rulesOf.approval + ") decides.";
    div.append(el("p", said.length ? "Rules: " + said.join("; ") : none, "muted rules"));
    box.append(div);
  }
}

// ---- live events
const refreshHistory = later(async () => { if (!historyNext || $("history").tBodies[0].childElementCount <= 50) await loadHistory(false); }, 200);
const refreshMetrics = later(loadMetrics, 200);
const refreshState = later(loadState, 100);
const refreshApprovals = later(loadApprovals, 50);
const refreshTools = later(loadTools, 300);

// A process that dies says nothing: the queue is looked at again now and then, so its calls show as
// orphaned.
setInterval(() => { if (document.visibilityState !== "hidden") refreshApprovals(); }, 5000);

function connect() {
  const status = $("status");
  const source = new EventSource("/api/events" + (token ? "?token=" + encodeURIComponent(token) : ""));
  source.onopen = () => { status.textContent = "live"; status.className = "pill live"; refreshApprovals(); refreshState(); };
  source.onerror = () => { status.textContent = "disconnected (retrying)"; status.className = "pill down"; };
  const log = $("events");
  const types = [
    "tool.call", "tool.approval", "tool.progress", "tool.output", "tool.result",
    "file.changed", "agent.state", "approval.requested", "approval.resolved",
  ];
  // Not a line in the log: only a sign that the queue is worth reading again.
  source.addEventListener("desk.changed", () => refreshApprovals());
  for (const type of types) {
    source.addEventListener(type, (e) => {
      let data;
      try { data = JSON.parse(e.data); } catch { data = e.data; }
      const summary = type === "tool.result" ? data.tool + " → " + (data.outcome ? data.outcome.status : data.status)
        : type === "agent.state" ? data.state
        : type === "file.changed" ? data.operation + " " + data.path
        : type === "tool.output" ? data.tool + ": " + String(data.chunk).slice(0, 200)
        : (data.tool || "") + (data.args ? " " + JSON.stringify(data.args).slice(0, 200) : "");
      const line = el("div");
      line.append(el("span", new Date().toLocaleTimeString() + " ", "muted"), el("strong", type), el("span", " " + summary));
      log.prepend(line);
      while (log.childElementCount > 500) log.lastElementChild.remove();
      if (type.startsWith("approval.")) refreshApprovals();
      if (type === "tool.call" || type === "tool.result" || type.startsWith("approval.")) { refreshHistory(); refreshState(); }
      if (type === "agent.state") refreshState();
      if (type === "tool.result") refreshMetrics();
      if (type === "approval.resolved" && data.always) refreshTools();
    });
  }
}

loadTools().catch((err) => $("tools").append(el("p", "Could not load tools: " + err.message, "invalid")));
loadApprovals().catch(() => {});
loadHistory(false).catch((err) => $("history-empty").textContent = "Could not load the history: " + err.message);
loadMetrics().catch(() => {});
loadState().catch(() => {});
connect();
