// edit_file on a large file against doing the same by hand: read, replace one line, write.
// Goal: one line of a 9 MB file within 2x of read + replace + write (the diff covers only the
// changed region, not the whole file). Medians of interleaved rounds, in one run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Workspace } from "../src/index.js";
import { editFileTool } from "../src/tools/fs/edit-file.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-edit-bench-"));
try {
  const file = path.join(dir, "big.txt");
  const lines = Array.from({ length: 230_000 }, (_, i) => `line ${i}: ${"lorem ipsum dolor sit amet ".repeat(1)}${i % 7}`);
  writeFileSync(file, lines.join("\n") + "\n");
  const size = readFileSync(file).length;
  const workspace = Workspace.open(dir);
  let flip = 0;
  // Each edit swaps the line back and forth so every round changes exactly one line.
  const target = () => (flip % 2 === 0 ? ["line 90000: ", "LINE 90000: "] : ["LINE 90000: ", "line 90000: "]);
  const byHand = async () => {
    const [from, to] = target();
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(from!, to!));
    flip++;
  };
  const tool = async () => {
    const [from, to] = target();
    const result = await editFileTool.execute({ path: "big.txt", old: from!, new: to!, replace_all: false }, { workspace });
    if (result.isError) throw new Error(result.content);
    flip++;
  };
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round < 24; round++) {
    for (const [i, fn] of (round % 2
      ? [
          [1, tool],
          [0, byHand],
        ]
      : [
          [0, byHand],
          [1, tool],
        ]) as Array<[0 | 1, () => Promise<void>]>) {
      const start = performance.now();
      await fn();
      if (round >= 4) times[i].push(performance.now() - start);
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const hand = median(times[0]);
  const edit = median(times[1]);
  console.log(`file: ${(size / 1024 ** 2).toFixed(1)} MB, ${lines.length.toLocaleString("en-US")} lines`);
  console.log(`read + replace + write (reference): ${hand.toFixed(1)} ms`);
  console.log(`edit_file, one line:                ${edit.toFixed(1)} ms — ${(edit / hand).toFixed(2)}x (goal <= 2x)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
