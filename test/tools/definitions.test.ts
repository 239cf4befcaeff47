import { describe, expect, it } from "vitest";
import { createRegistry } from "../../src/tools/builtin.js";
import type { Toolset } from "../../src/tools/toolsets.js";
import { tempDir } from "../support/tools.js";

// Every credential present and a language server configured, so every group contributes its tools.
const env = {
  GOOGLE_CLIENT_ID: "id.apps.example.test",
  GOOGLE_CLIENT_SECRET: "secret",
  ANTHROPIC_ADMIN_API_KEY: "sk-ant-admin-test",
  BRAVE_API_KEY: "brave-test",
};
const config = { lsp: { servers: { fake: { command: "fake-language-server", extensions: [".fake"] } } } };

/**
 * What the model sees of each tool, for every toolset: any change to a description, a parameter or
 * an effect shows in review as a change to these files. Update them on purpose with `-u`.
 */
describe("tool definitions as the model sees them", () => {
  const toolsets: Toolset[] = ["default", "coding", "assistant", "editor", "workspace"];
  for (const toolset of toolsets) {
    it(`${toolset} toolset`, async () => {
      const ws = tempDir();
      try {
        const registry = await createRegistry({ config, env, workspace: ws.dir }, { toolset });
        const definitions = registry.list().map((tool) => ({
          name: tool.name,
          effect: tool.effect,
          description: tool.description,
          inputSchema: tool.inputSchema,
        }));
        await expect(JSON.stringify(definitions, null, 2) + "\n").toMatchFileSnapshot(`__snapshots__/definitions-${toolset}.json`);
      } finally {
        ws.cleanup();
      }
    });
  }
});
