import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { tempDir } from "../support/tools.js";

/** A fresh workspace folder for each test, with `files` written into it. */
export function useWorkspace(files: Record<string, string> = {}): { readonly dir: string } {
  let ws: ReturnType<typeof tempDir>;
  beforeEach(() => {
    ws = tempDir("tackle-spec-");
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(ws.dir, name), text);
  });
  afterEach(() => ws.cleanup());
  return {
    get dir() {
      return ws.dir;
    },
  };
}
