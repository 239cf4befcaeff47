import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    globalSetup: ["./test/support/global-setup.ts"],
    // Every structured result a runner returns in the tests is checked against its tool's output schema.
    env: { TACKLE_CHECK_OUTPUT: "1" },
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
