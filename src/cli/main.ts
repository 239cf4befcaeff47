#!/usr/bin/env node
// `tackle`: runs the bundled command line (dist/cli/tackle.cjs, built by scripts/bundle-cli.mjs)
// with V8's code cache. Start-up is spent loading code, so one file compiled once beats hundreds
// of ES modules parsed on every run. Without the bundle (tsc's output alone) it runs the modules.
// The installed command is this file bundled as CommonJS (dist/cli/main.cjs): an ES module entry
// point sets up Node's ES module loader first, some 5 ms of every start.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { baselineWasmForProcess } from "../process/baseline-wasm.js";
import { runWithCodeCache } from "./code-cache.js";

baselineWasmForProcess();
// V8's young generation keeps its default growth: grown eightfold per collection it touched some
// 1,700 more fresh pages at start, and where a page's first touch costs ~11 µs (virtual machines
// that shadow the guest's page tables) that made `tackle mcp`'s start 16 ms longer, not 5 ms shorter.
const bundle = fileURLToPath(new URL("./tackle.cjs", import.meta.url));
if (existsSync(bundle)) runWithCodeCache(bundle, process.argv.slice(2));
else void import("./run.js");
