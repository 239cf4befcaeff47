import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { EXIT } from "./exit-codes.js";

/** A starting configuration a person reads and edits: every line says what it does. */
const STARTER = `{
  // What runs without asking a person: "ask" (nothing), "safe" (reads; the default) or "all".
  "approval": "safe",

  // Rules are tool or tool(pattern): a path glob for file tools, a command pattern for the shell
  // (every part of a compound command must match), a domain for web tools. deny beats ask beats allow.
  "permissions": {
    "allow": [
      // "shell(git status*)",
      // "shell(npm run test:*)",
      // "write_file(src/**)"
    ],
    "ask": [
      // "web_fetch"
    ],
    "deny": [
      // "shell(curl *)",
      // "read_file(secrets/**)"
    ]
  },

  // MCP servers whose tools join tackle's, as {server}__{tool}. For example:
  // "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] }
  "mcpServers": {}
}
`;

/** `tackle init`: writes a commented tackle.config.json, never over one that exists. */
export function initCommand(): Command {
  return new Command("init")
    .description("write a commented starting configuration (tackle.config.json) in the workspace")
    .option("-w, --workspace <dir>", "the folder to write it in (default: the current one)")
    .addHelpText("after", "\nExamples:\n  tackle init\n  tackle init --workspace ../project")
    .action((flags: { workspace?: string }) => {
      const dir = path.resolve(flags.workspace ?? process.cwd());
      const existing = ["tackle.config.json", "config.json"].map((f) => path.join(dir, f)).find((f) => existsSync(f));
      if (existing) {
        process.stderr.write(`tackle: ${existing} already exists; nothing was written. Edit it, or remove it first.\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const file = path.join(dir, "tackle.config.json");
      try {
        writeFileSync(file, STARTER, { flag: "wx" });
      } catch (err) {
        process.stderr.write(`tackle: cannot write ${file}: ${(err as Error).message}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      process.stdout.write(`Wrote ${file}. Uncomment the rules you want; \`tackle tools\` shows what is available.\n`);
    });
}
