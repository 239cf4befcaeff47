// The runner's added cost per call over a direct execute, for a tool that does nothing.
// Spec 001 asks < 10 ms; the aim is < 50 µs.
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { defineTool, ToolRegistry, ToolRunner } from "../src/index.js";

const noop = defineTool({
  name: "noop",
  description: "Does nothing.",
  effect: "read",
  input: z.object({ value: z.string().optional() }),
  execute: async () => "",
});
const registry = new ToolRegistry();
registry.register(noop);
const uncached = new ToolRunner({ registry, cache: false });
const cached = new ToolRunner({ registry });

async function measure(label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2_000; i++) await fn(i);
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  const perCall = ((performance.now() - start) / n) * 1000;
  console.log(`${label.padEnd(42)} ${perCall.toFixed(2).padStart(8)} µs/call`);
  return perCall;
}

const N = 50_000;
const direct = await measure("direct tool.execute (reference)", N, (i) => noop.execute({ value: String(i) }));
const run = await measure("runner.run, cache off", N, (i) => uncached.run({ id: "c", name: "noop", args: { value: String(i) } }));
const runJson = await measure("runner.run, JSON text arguments", N, (i) =>
  uncached.run({ id: "c", name: "noop", args: `{"value":"${i}"}` }),
);
const hit = await measure("runner.run, cache hit", N, () => cached.run({ id: "c", name: "noop", args: { value: "same" } }));

console.log(
  `\nrunner overhead: ${(run - direct).toFixed(2)} µs/call (ratio ${(run / direct).toFixed(2)}x direct); goal < 50 µs, spec 001 < 10 ms`,
);
console.log(`with JSON parsing: ${(runJson - direct).toFixed(2)} µs/call; cache hit: ${hit.toFixed(2)} µs/call`);

// Per-call cost must not grow with the registry: the same call with 10 and with 10,000 tools.
async function withTools(count: number): Promise<{ perCall: number; registerMs: number }> {
  const big = new ToolRegistry();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    big.register(
      defineTool({ name: `tool_${i}`, description: "Does nothing.", effect: "read", input: z.object({}), execute: async () => "" }),
    );
  }
  const registerMs = performance.now() - t0;
  const r = new ToolRunner({ registry: big, cache: false });
  const perCall = await measure(`runner.run with ${count.toLocaleString("en-US")} tools`, 20_000, () =>
    r.run({ name: "tool_5", args: {} }),
  );
  await r.close();
  return { perCall, registerMs };
}
const small = await withTools(10);
const large = await withTools(10_000);
console.log(
  `per-call cost at 10,000 tools / at 10: ${(large.perCall / small.perCall).toFixed(2)}x (goal <= ` +
    `1.2x); registering 10,000 defineTool tools: ${large.registerMs.toFixed(0)} ms (goal < 200 ms)`,
);
await uncached.close();
await cached.close();
