#!/usr/bin/env node
// `tackle`: runs the bundled command line (dist/cli/tackle.cjs, built by scripts/bundle-cli.mjs)
// with V8's code cache. Start-up is spent loading code, so one file compiled once beats hundreds
// of ES modules parsed on every run. Without the bundle (tsc's output alone) it runs the modules.
// The installed command is this file bundled as CommonJS (dist/cli/main.cjs): an ES module entry
// point sets up Node's ES module loader first, some 5 ms of every start.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { baselineWasmForProcess } from "../process/baseline-wasm.js";
import { runWithCodeCache } from "./code-cache.js";

baselineWasmForProcess();
// A start makes some 30 MB of objects that mostly live on (schemas, tools, the SDK's tables): V8's
// young generation, grown twofold at each collection, was collected nine times over them. Grown
// eightfold it reaches its usual ceiling after one: 4-6 ms less of `tackle mcp`'s start (measured
// interleaved), for about 10 MB more resident until V8 gives it back after some 15 s idle. Set
// before any code is compiled, as the code cache requires (see baselineWasmForProcess).
v8.setFlagsFromString("--semi-space-growth-factor=8");
const bundle = fileURLToPath(new URL("./tackle.cjs", import.meta.url));
if (existsSync(bundle)) runWithCodeCache(bundle, process.argv.slice(2));
else void import("./run.js");
