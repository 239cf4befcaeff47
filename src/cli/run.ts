// The command line's entry, bundled with everything it uses into dist/cli/tackle.cjs, which
// main.ts runs (scripts/bundle-cli.mjs).
import { main } from "./program.js";
import { useJsonSchemaStore } from "../core/schema.js";
import { fileJsonSchemaStore } from "./schema-store.js";
import { dropRelativePathEntries } from "../process/safe-path.js";

// Before anything is started (see process/safe-path.ts).
dropRelativePathEntries();

// Once per process: the store writes what it learned when the process exits.
useJsonSchemaStore(fileJsonSchemaStore());

// A reader that stops early (`tackle tools | head`) is not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

// Ended by a signal, node skips its "exit" handlers, which remove tackle's temporary folders.
// Leaving through process.exit runs them. Commands with their own handling (call, the servers) keep it.
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const) {
  process.on(signal, () => {
    if (process.listenerCount(signal) === 1) process.exit(code);
  });
}

void main(process.argv).then((code) => {
  process.exitCode = code;
});
