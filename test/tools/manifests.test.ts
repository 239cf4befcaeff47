import { describe, expect, it } from "vitest";
import { BUILTIN_GROUPS } from "../../src/tools/builtin-tools.js";
import { MANIFESTS, namesOf } from "../../src/tools/manifests.js";
import { createLogger } from "../../src/core/logger.js";
import { tempDir } from "../support/tools.js";

/** Each group's manifest is the one list of its names: what the group registers must match it. */
describe("the groups' manifests", () => {
  it("load the same groups, in the same order, as the eager list", async () => {
    const loaded = await Promise.all(MANIFESTS.map((m) => m.load()));
    expect(loaded).toEqual([...BUILTIN_GROUPS]);
  });

  it("never give one name to two groups", () => {
    const all = MANIFESTS.flatMap(namesOf);
    expect(all.filter((n, i) => all.indexOf(n) !== i)).toEqual([]);
  });

  it("name every tool a group registers, and a group registers every tool its manifest names", async () => {
    const ws = tempDir();
    try {
      // Credentials for the groups that register only with them.
      const env = { BRAVE_API_KEY: "k", ANTHROPIC_ADMIN_API_KEY: "sk-ant-admin01-x", GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s" };
      for (const manifest of MANIFESTS) {
        const group = await manifest.load();
        const tools = await group({ config: {}, env, workspace: ws.dir, logger: createLogger("error") });
        const registered = tools.map((t) => t.name);
        expect(
          registered.filter((n) => !namesOf(manifest).includes(n)),
          `unnamed in ${Object.keys(manifest.names)}`,
        ).toEqual([]);
        expect(Object.values(manifest.names).filter((n) => !registered.includes(n))).toEqual([]);
      }
    } finally {
      ws.cleanup();
    }
  });
});
