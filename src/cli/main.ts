#!/usr/bin/env node
import { main } from "./program.js";

// A reader that stops early (`tackle tools | head`) is not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

process.exitCode = await main(process.argv);
