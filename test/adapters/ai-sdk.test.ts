import { writeFileSync } from "node:fs";
import path from "node:path";
import { generateText, stepCountIs, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toAiSdkTools } from "../../src/adapters/ai-sdk.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
let runner: ToolRunner;
beforeEach(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "notes.txt"), "the secret word is tackle\n");
});
afterEach(async () => {
  await runner?.close();
  ws.cleanup();
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that calls `toolName` with `input` once, then answers with what the tool said. */
function scriptedModel(toolName: string, input: Record<string, unknown>) {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const last = options.prompt.at(-1);
      if (last?.role === "tool") {
        const part = last.content[0] as { output: { type: string; value: unknown } };
        return {
          content: [{ type: "text", text: `tool said (${part.output.type}): ${JSON.stringify(part.output.value)}` }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "tool-call", toolCallId: "call_1", toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    },
  });
}

function runnerOver(approval: "safe" | "all", approved = true) {
  const registry = new ToolRegistry();
  registry.registerAll(FILE_TOOLS);
  runner = new ToolRunner({ registry, workspace: ws.dir, approval, approver: async () => ({ approved, message: "not that file" }) });
  return runner;
}

describe("toAiSdkTools: tackle's tools in the AI SDK's generateText", () => {
  it("offers each tool with its JSON Schema and runs the model's call through the runner", async () => {
    const tools: ToolSet = toAiSdkTools(runnerOver("safe"));
    const model = scriptedModel("read_file", { path: "notes.txt" });
    const result = await generateText({ model, tools, prompt: "What is the secret word?", stopWhen: stepCountIs(3) });
    const offered = model.doGenerateCalls[0]!.tools!.find((t) => t.name === "read_file") as { inputSchema: { properties: object } };
    expect(Object.keys(offered.inputSchema.properties)).toContain("path");
    expect(result.text).toContain("the secret word is tackle");
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ toolName: "read_file" });
  });

  it("a rejection reaches the model as a tool error, not as a result", async () => {
    const tools: ToolSet = toAiSdkTools(runnerOver("safe", false));
    const model = scriptedModel("write_file", { path: "notes.txt", content: "overwritten" });
    const result = await generateText({ model, tools, prompt: "Overwrite it.", stopWhen: stepCountIs(3) });
    expect(result.text).toMatch(/^tool said \(error-text\):/);
    expect(result.text).toContain("not approved");
    expect(result.text).toContain("not that file");
    expect(result.steps[0]!.content.some((p) => p.type === "tool-error")).toBe(true);
  });

  it("invalid arguments come back as the runner's error, naming the field", async () => {
    const tools: ToolSet = toAiSdkTools(runnerOver("all"), { tools: ["read_file"] });
    expect(Object.keys(tools)).toEqual(["read_file"]);
    const model = scriptedModel("read_file", { path: 42 });
    const result = await generateText({ model, tools, prompt: "Read.", stopWhen: stepCountIs(3) });
    expect(result.text).toContain("path");
    expect(result.steps[0]!.content.some((p) => p.type === "tool-error")).toBe(true);
  });
});
