import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BaseTool } from "../../src/compat/base-tool.js";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import type { ToolContext, ToolExecutionOptions } from "../../src/core/tool.js";
import { useTempWorkspace } from "../support/tools.js";

const ws = useTempWorkspace();

/** Resolves with the reason once the signal fires: an inner call that ends only when cancelled. */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (!signal) return reject(new Error("no signal"));
    signal.addEventListener("abort", () => reject(new Error("inner call cancelled")), { once: true });
  });
}

const innerDefined = defineTool({
  name: "inner_defined",
  description: "Waits until cancelled.",
  effect: "read",
  input: z.object({ label: z.string() }),
  execute: (_args, ctx) => untilAborted(ctx.signal),
});

class InnerClass extends BaseTool<{ label: string }> {
  readonly name = "inner_class";
  readonly description = "Waits until cancelled.";
  readonly schema = z.object({ label: z.string() });
  override readonly effect = "read" as const;
  async execute(_params: { label: string }, options?: ToolExecutionOptions) {
    return untilAborted(options?.signal);
  }
}

/** How the last wrapper's inner call ended. */
let innerEnded: string | undefined;

/** A tool that hands a copy of its context, with its own onOutput, to another tool. */
function wrapper(inner: { execute(args: { label: string }, ctx: ToolExecutionOptions): Promise<unknown> }, started: () => void) {
  innerEnded = undefined;
  return defineTool({
    name: "wrapper",
    description: "Runs another tool.",
    effect: "read",
    input: z.object({}),
    execute: async (_args, ctx: ToolContext) => {
      started();
      try {
        await inner.execute({ label: "x" }, { ...ctx, onOutput: () => {} });
        innerEnded = "finished";
      } catch (err) {
        innerEnded = (err as Error).message;
      }
      return innerEnded;
    },
  });
}

describe("the context the runner gives a call", () => {
  for (const [kind, inner] of [
    ["defineTool", innerDefined],
    ["BaseTool", new InnerClass()],
  ] as const) {
    it(`a copy ({ ...ctx }) handed to a ${kind} tool still carries the call's cancellation`, async () => {
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const registry = new ToolRegistry();
      registry.register(wrapper(inner, () => started()));
      const runner = ws.runner({ registry, cache: false });
      const controller = new AbortController();
      const outcome = runner.run({ name: "wrapper", args: {} }, { signal: controller.signal });
      await running;
      controller.abort();
      expect((await outcome).status).toBe("cancelled");
      // The abort reaches listeners synchronously, so the inner call has ended by now.
      expect(innerEnded).toBe("inner call cancelled");
    });

    it(`a copy handed to a ${kind} tool ends with the call's time limit`, async () => {
      const registry = new ToolRegistry();
      registry.register(wrapper(inner, () => {}));
      const runner = ws.runner({ registry, cache: false, timeoutMs: 300 });
      const outcome = await runner.run({ name: "wrapper", args: {} });
      expect(outcome.error?.code).toBe("TIMEOUT");
      expect(innerEnded).toBe("inner call cancelled");
    });
  }

  it("a copy is checked again: arguments the wrapper got wrong are refused", async () => {
    let result = "";
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: "wrapper",
        description: "Runs another tool with bad arguments.",
        effect: "read",
        input: z.object({}),
        execute: async (_args, ctx) => {
          await innerDefined.execute({ label: 5 } as never, { ...ctx }).catch((err: Error) => (result = err.message));
          return result;
        },
      }),
    );
    const runner = ws.runner({ registry, cache: false });
    const outcome = await runner.run({ name: "wrapper", args: {} });
    expect(outcome.content).toMatch(/label/);
  });
});
