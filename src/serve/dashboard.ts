/**
 * The dashboard page served at `/`: tools, live events and the approval queue. Self-contained
 * (no external scripts, styles or fonts: it must work offline), and every piece of text from the
 * server goes in through textContent, never as HTML. Embedded as a string so the build need not
 * copy it.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tackle</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 1em 2em; color: #222; }
  h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.5em; }
  pre { background: #f4f4f4; padding: .5em; overflow: auto; max-height: 20em; white-space: pre-wrap; }
  .approval { border: 1px solid #c90; border-radius: 4px; padding: .5em 1em; margin: .5em 0; }
  .muted { color: #777; }
  #events { font-family: monospace; font-size: 12px; max-height: 30em; overflow: auto; }
  #events div { border-bottom: 1px solid #eee; padding: 2px 0; }
  table { border-collapse: collapse; } td { padding: 2px 8px; vertical-align: top; }
  button { margin-right: .5em; }
  #status { float: right; }
</style>
</head>
<body>
<span id="status" class="muted">connecting…</span>
<h1>tackle</h1>
<h2>Waiting for approval</h2>
<div id="approvals"><p class="muted">Nothing is waiting.</p></div>
<h2>Events</h2>
<div id="events"></div>
<h2>Tools</h2>
<table id="tools"></table>
<script>
"use strict";
// The token may arrive once in the address; it stays in memory and leaves the address bar.
const params = new URLSearchParams(location.search);
const token = params.get("token");
if (token) history.replaceState(null, "", location.pathname);
const headers = token ? { Authorization: "Bearer " + token } : {};

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
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

async function loadTools() {
  const table = document.getElementById("tools");
  table.replaceChildren();
  for (const t of await api("/api/tools")) {
    const row = el("tr");
    row.append(el("td", t.name), el("td", t.effect, "muted"), el("td", (t.description || "").split("\\n")[0]));
    table.append(row);
  }
}

async function answer(id, body) {
  try {
    await api("/api/approvals/" + encodeURIComponent(id), body);
  } catch (err) {
    alert("Could not answer: " + err.message);
  }
  loadApprovals();
}

async function loadApprovals() {
  const box = document.getElementById("approvals");
  const list = await api("/api/approvals");
  box.replaceChildren();
  if (list.length === 0) box.append(el("p", "Nothing is waiting.", "muted"));
  for (const a of list) {
    const div = el("div", undefined, "approval");
    const title = el("p");
    title.append(el("strong", a.tool), el("span", " (" + a.effect + ") — " + a.reason));
    div.append(title, el("pre", JSON.stringify(a.args, null, 2)));
    if (a.preview) div.append(el("pre", a.preview));
    const message = el("input");
    message.placeholder = "message for the model (with Reject)";
    message.size = 40;
    const approve = el("button", "Approve");
    approve.onclick = () => answer(a.toolCallId, { approved: true });
    const reject = el("button", "Reject");
    reject.onclick = () => answer(a.toolCallId, message.value ? { approved: false, message: message.value } : { approved: false });
    const always = el("button", "Always");
    always.onclick = () => answer(a.toolCallId, { approved: true, always: true });
    const actions = el("p");
    actions.append(approve, reject, always, message);
    div.append(actions);
    box.append(div);
  }
}

function connect() {
  const status = document.getElementById("status");
  const source = new EventSource("/api/events" + (token ? "?token=" + encodeURIComponent(token) : ""));
  source.onopen = () => { status.textContent = "live"; };
  source.onerror = () => { status.textContent = "disconnected (retrying)"; };
  const log = document.getElementById("events");
  const types = [
    "tool.call", "tool.approval", "tool.progress", "tool.output", "tool.result",
    "file.changed", "agent.state", "approval.requested", "approval.resolved",
  ];
  for (const type of types) {
    source.addEventListener(type, (e) => {
      let data;
      try { data = JSON.parse(e.data); } catch { data = e.data; }
      const summary = type === "tool.result" ? data.tool + " → " + data.outcome.status
        : type === "agent.state" ? data.state
        : type === "file.changed" ? data.operation + " " + data.path
        : type === "tool.output" ? data.tool + ": " + String(data.chunk).slice(0, 200)
        : (data.tool || "") + (data.args ? " " + JSON.stringify(data.args).slice(0, 200) : "");
      const line = el("div");
      line.append(el("span", new Date().toLocaleTimeString() + " ", "muted"), el("strong", type), el("span", " " + summary));
      log.prepend(line);
      while (log.childElementCount > 500) log.lastElementChild.remove();
      if (type.startsWith("approval.")) loadApprovals().catch(() => {});
    });
  }
}

loadTools().catch((err) => document.getElementById("tools").append(el("tr", "Could not load tools: " + err.message)));
loadApprovals().catch(() => {});
connect();
</script>
</body>
</html>
`;
