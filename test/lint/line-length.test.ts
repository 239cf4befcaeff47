import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAX = 160;

describe("source lines", () => {
  it(`are at most ${MAX} characters in src, test and bench`, () => {
    const long: string[] = [];
    for (const dir of ["src", "test", "bench"]) {
      const files = readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
      for (const file of files) {
        readFileSync(path.join(ROOT, dir, file), "utf8")
          .split("\n")
          .forEach((line, i) => {
            if (line.length > MAX) long.push(`${dir}/${file}:${i + 1} (${line.length})`);
          });
      }
    }
    expect(long).toEqual([]);
  });
});
