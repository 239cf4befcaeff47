import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import { TOOL } from "../names.js";
import { assertNotOption, runGit } from "./run-git.js";

/** Lists branches, or creates one (and switches to it). */
export const gitBranch = defineTool({
  name: TOOL.gitBranch,
  description: loadDescription(import.meta.url, "git-branch.txt"),
  effect: "write",
  input: z.object({
    name: z.string().optional().describe("Branch to create"),
    create: z.boolean().default(false).describe("Create the branch named by name"),
    checkout: z.boolean().default(false).describe("Switch to the new branch"),
  }),
  assess: ({ create }) => (create ? undefined : { effect: "read" }),
  execute: async ({ name, create, checkout }, ctx) => {
    if (!create) return runGit(["branch", "--list", "--no-color"], ctx);
    if (!name) throw new ToolError("INVALID_ARGS", "create: true needs a branch name in name.");
    assertNotOption(name, "Branch name");
    await runGit(checkout ? ["switch", "-c", name] : ["branch", name], ctx);
    return checkout ? `Created and switched to branch ${name}.` : `Created branch ${name}.`;
  },
});
