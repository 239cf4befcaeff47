import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { terminalApprover } from "../../src/cli/terminal-approver.js";
import type { ApprovalRequest } from "../../src/runtime/approver.js";

const request: ApprovalRequest = {
  toolCallId: "c1",
  tool: "write_file",
  args: { path: "a.txt", content: "x".repeat(500) },
  effect: "write",
  reason: "changes to files need approval",
  preview: "--- a.txt\n+++ a.txt\n+x",
  description: "Writes a file.",
};

function setup(...lines: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (d) => (shown += String(d)));
  const approver = terminalApprover({ input, output });
  input.write(lines.map((l) => `${l}\n`).join(""));
  return { approver, shown: () => shown, input };
}

const signal = () => new AbortController().signal;

describe("terminal approver", () => {
  it("names the rule always keeps, and takes a wider one only when typed on purpose", async () => {
    const narrow = { ...request, alwaysRules: ["write_file(a.txt)"] };
    const a = setup("a");
    expect(await a.approver(narrow, signal())).toEqual({ approved: true, always: true });
    expect(a.shown()).toContain("[a]lways (write_file(a.txt)), this session");
    const w = setup("w", "write_file(src/**)");
    expect(await w.approver(narrow, signal())).toEqual({ approved: true, always: true, alwaysRule: "write_file(src/**)" });
  });

  it("approves with y and shows the call and its preview", async () => {
    const t = setup("y");
    expect(await t.approver(request, signal())).toEqual({ approved: true });
    expect(t.shown()).toMatch(/write_file wants to run \(write\): changes to files need approval/);
    expect(t.shown()).toMatch(/content: x{200}… \(300 more characters; \? shows all\)/);
    expect(t.shown()).toContain("+++ a.txt");
    t.approver.close();
  });

  it("rejects with n and passes on the person's message", async () => {
    const t = setup("n", "wrong file");
    expect(await t.approver(request, signal())).toEqual({ approved: false, message: "wrong file" });
    t.approver.close();
  });

  it("approves always with a, edits arguments with e, and explains with ?", async () => {
    const t = setup("?", "a", "e", "not json", "e", '{"path":"b.txt","content":"y"}', "what", "y");
    expect(await t.approver(request, signal())).toEqual({ approved: true, always: true });
    expect(t.shown()).toContain('"path": "a.txt"');
    expect(t.shown()).toContain("Writes a file.");
    expect(await t.approver(request, signal())).toEqual({ approved: true, modifiedArgs: { path: "b.txt", content: "y" } });
    expect(t.shown()).toMatch(/not valid JSON/);
    expect(await t.approver(request, signal())).toEqual({ approved: true });
    expect(t.shown()).toMatch(/Answer y, n, a, w, e or \?/);
    t.approver.close();
  });

  it("shows the new diff of edited arguments and runs them only on y; invalid ones are said and can be edited again", async () => {
    const t = setup("e", '{"path":"b.txt","content":1}', "e", '{"path":"b.txt","content":"z"}', "y");
    const withPreview: ApprovalRequest = { ...request };
    Object.defineProperty(withPreview, "previewFor", {
      value: async (args: Record<string, unknown>) => {
        if (typeof args.content !== "string") throw new Error("content: expected a string.");
        return `--- a/b.txt\n+++ b/b.txt\n@@ -0,0 +1 @@\n+${args.content}\n`;
      },
    });
    expect(await t.approver(withPreview, signal())).toEqual({ approved: true, modifiedArgs: { path: "b.txt", content: "z" } });
    expect(t.shown()).toMatch(/Not used: content: expected a string\. e edits them again\./);
    expect(t.shown()).toMatch(/New arguments:\n.*b\.txt[\s\S]*\+z/);
    t.approver.close();
    // Any yes runs the arguments as edited, and ? shows them and their preview, not the request's.
    const again = setup("e", '{"path":"c.txt","content":"w"}', "?", "a");
    expect(await again.approver(withPreview, signal())).toEqual({
      approved: true,
      always: true,
      modifiedArgs: { path: "c.txt", content: "w" },
    });
    expect(again.shown()).toMatch(/Arguments:\n\{\n {2}"path": "c\.txt"[\s\S]*Preview:\n[\s\S]*\+w/);
    again.approver.close();
  });

  it("asks one question at a time when calls run in parallel", async () => {
    const t = setup("y", "n", "");
    const [a, b] = await Promise.all([t.approver(request, signal()), t.approver({ ...request, toolCallId: "c2" }, signal())]);
    expect(a).toEqual({ approved: true });
    expect(b).toEqual({ approved: false });
    t.approver.close();
  });

  it("rejects when the terminal closes or the call is cancelled", async () => {
    const t = setup();
    t.input.end();
    expect(await t.approver(request, signal())).toMatchObject({ approved: false, automatic: true });
    const u = setup();
    const controller = new AbortController();
    const pending = u.approver(request, controller.signal);
    controller.abort();
    expect(await pending).toMatchObject({ approved: false });
    u.approver.close();
  });
});
