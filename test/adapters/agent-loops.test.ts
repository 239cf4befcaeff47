import { writeFileSync } from "node:fs";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAnthropicLoop } from "../../src/adapters/anthropic-loop.js";
import { runOpenAIChatLoop, runOpenAIResponsesLoop } from "../../src/adapters/openai-loop.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import type { ToolOutcome } from "../../src/core/result.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { createShellTools } from "../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../src/tools/shell/settings.js";
import { tempDir } from "../support/tools.js";
import { fakeServers } from "../tools/web/helpers.js";

const serve = fakeServers();
let ws: ReturnType<typeof tempDir>;
let runner: ToolRunner;
beforeEach(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "notes.txt"), "the answer is 42\n");
  const registry = new ToolRegistry();
  registry.registerAll([...FILE_TOOLS, ...createShellTools(shellSettingsFrom({})).tools]);
  runner = new ToolRunner({ registry, workspace: ws.dir, approval: "all", cache: false });
});
afterEach(async () => {
  await runner.close();
  ws.cleanup();
});

type Json = Record<string, unknown>;
const json = (res: import("node:http").ServerResponse, body: unknown) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

describe("agent loops through the real SDKs against local fake endpoints", () => {
  it("Anthropic Messages: tool_use → runner → tool_result → final answer", async () => {
    const server = await serve((req, res) => {
      const body = JSON.parse(req.body) as { messages: Array<{ role: string; content: unknown }>; tools: Array<{ name: string }> };
      expect(body.tools.map((t) => t.name)).toContain("read_file");
      const last = body.messages.at(-1)!;
      const result = Array.isArray(last.content) ? (last.content as Json[]).find((b) => b.type === "tool_result") : undefined;
      const base = {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      if (result)
        return json(res, { ...base, content: [{ type: "text", text: `I read: ${String(result.content)}` }], stop_reason: "end_turn" });
      json(res, {
        ...base,
        content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "notes.txt" } }],
        stop_reason: "tool_use",
      });
    });
    const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    const seen: ToolOutcome[] = [];
    const end = await runAnthropicLoop(
      client,
      runner,
      { model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "What is the answer?" }] },
      { onToolOutcome: (o) => seen.push(o) },
    );
    expect(end).toMatchObject({ stopped: "done", steps: 2 });
    const final = end.messages.at(-1)!.content as Array<{ type: string; text: string }>;
    expect(final[0]!.text).toContain("the answer is 42");
    expect(seen.map((o) => o.toolName)).toEqual(["read_file"]);
  });

  it("OpenAI Chat Completions: tool_calls → runner → tool messages; a rejection goes back as the error text", async () => {
    const server = await serve((req, res) => {
      const body = JSON.parse(req.body) as { messages: Json[] };
      const last = body.messages.at(-1)!;
      const base = {
        id: "c1",
        object: "chat.completion",
        created: 0,
        model: "gpt-test",
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
      if (last.role === "tool") {
        return json(res, {
          ...base,
          choices: [{ index: 0, message: { role: "assistant", content: `tool said: ${String(last.content)}` }, finish_reason: "stop" }],
        });
      }
      const call = { id: "call_1", type: "function", function: { name: "shell", arguments: JSON.stringify({ command: "rm -rf /" }) } };
      json(res, {
        ...base,
        choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }],
      });
    });
    const client = new OpenAI({ apiKey: "test", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const end = await runOpenAIChatLoop(client, runner, { model: "gpt-test", messages: [{ role: "user", content: "Clean up." }] });
    expect(end.stopped).toBe("done");
    expect(String(end.messages.at(-1)!.content)).toMatch(/^tool said: .*Not allowed/);
  });

  it("OpenAI Responses: function_call → runner → function_call_output → text", async () => {
    const server = await serve((req, res) => {
      const body = JSON.parse(req.body) as { input: Json[] };
      const output = body.input.find((i) => i.type === "function_call_output");
      const base = {
        id: "resp_1",
        object: "response",
        created_at: 0,
        model: "gpt-test",
        status: "completed",
        parallel_tool_calls: true,
        tools: [],
      };
      if (output) {
        const text = `file says: ${String(output.output)}`;
        return json(res, {
          ...base,
          output: [
            {
              type: "message",
              id: "m1",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text, annotations: [] }],
            },
          ],
        });
      }
      const call = {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "read_file",
        arguments: JSON.stringify({ path: "notes.txt" }),
        status: "completed",
      };
      json(res, { ...base, output: [call] });
    });
    const client = new OpenAI({ apiKey: "test", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const end = await runOpenAIResponsesLoop(client, runner, { model: "gpt-test", input: [{ role: "user", content: "Read notes.txt" }] });
    expect(end).toMatchObject({ stopped: "done", steps: 2 });
    expect(end.text).toContain("the answer is 42");
  });

  it("stops after maxSteps when the model keeps calling tools, and streams tool output", async () => {
    const server = await serve((_req, res) => {
      const call = { id: "call_x", type: "function", function: { name: "shell", arguments: JSON.stringify({ command: "echo again" }) } };
      json(res, {
        id: "c",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }],
      });
    });
    const client = new OpenAI({ apiKey: "test", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const chunks: string[] = [];
    const end = await runOpenAIChatLoop(
      client,
      runner,
      { model: "m", messages: [{ role: "user", content: "loop" }] },
      { maxSteps: 3, onToolOutput: (c) => chunks.push(c) },
    );
    expect(end).toMatchObject({ stopped: "max-steps", steps: 3 });
    expect(chunks.join("")).toContain("again");
  });
});
