import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os"; import path from "node:path"; import { performance } from "node:perf_hooks";
import { applyAllOrNone } from "../src/workspace/file-transaction.js";
const dir = mkdtempSync(path.join(os.tmpdir(), "t-"));
const body = (f: number) => Array.from({ length: 200 }, (_, i) => `line ${i} of file ${f}`).join("\n") + "\n";
for (let f = 0; f < 100; f++) { mkdirSync(path.join(dir, `p${f%10}`), { recursive: true }); writeFileSync(path.join(dir, `p${f%10}`, `f${f}.ts`), body(f)); }
const T: Record<string, number[]> = {};
const t = async (k: string, fn: () => unknown) => { const s = performance.now(); await fn(); (T[k] ??= []).push(performance.now() - s); };
const changes = Array.from({length:100},(_, f)=>({kind:"write" as const, absolute: path.join(dir, `p${f%10}`, `f${f}.ts`), bytes: Buffer.from(body(f))}));
for (let i = 0; i < 20; i++) await t("txn", () => applyAllOrNone(changes));
for (const [k, v] of Object.entries(T)) { v.sort((a,b)=>a-b); console.log(k, v[Math.floor(v.length/2)]!.toFixed(1)); }
rmSync(dir, { recursive: true });
