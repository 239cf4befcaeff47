import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import type { ToolContext } from "../../core/tool.js";
import { TOOL } from "../names.js";
import { assertNotOption, hooksRefusal, runGit } from "./run-git.js";

const input = z.object({
  remote: z.string().default("origin").describe("Remote name"),
  branch: z.string().optional().describe("Branch to push (default: the current one)"),
  force: z.boolean().default(false).describe("Overwrite the remote branch if it moved (uses --force-with-lease)"),
});
type Args = z.output<typeof input>;

const PREVIEW_COMMITS = 30;

async function targetBranch(branch: string | undefined, ctx: ToolContext): Promise<string> {
  return branch ?? (await runGit(["rev-parse", "--abbrev-ref", "HEAD"], ctx)).trim();
}

/** A remote URL as a person may see it: credentials in it are not shown. */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, "$1***@");
}

/**
 * What the push would send, for the person approving it: the remote and its URL, the branch, and
 * the commits the remote does not have yet.
 */
async function pushPreview({ remote, branch, force }: Args, ctx: ToolContext): Promise<string> {
  assertNotOption(remote, "Remote");
  assertNotOption(branch, "Branch");
  const target = await targetBranch(branch, ctx);
  const url = (await runGit(["remote", "get-url", "--", remote], ctx).catch(() => "")).trim();
  const tracked = (await runGit(["rev-parse", "--verify", "--quiet", `refs/remotes/${remote}/${target}`], ctx, { okCodes: [1] })).trim();
  const range = tracked ? [`refs/remotes/${remote}/${target}..${target}`] : [target, "--not", `--remotes=${remote}`];
  const commits = (await runGit(["log", "--oneline", "--no-decorate", `-n${PREVIEW_COMMITS + 1}`, ...range, "--"], ctx)).trim().split("\n");
  const listed = commits.filter(Boolean);
  const lines = [
    `git push ${force ? "--force-with-lease " : ""}${remote} ${target}`,
    `remote: ${remote}${url ? ` (${withoutCredentials(url)})` : " (no such remote configured)"}`,
    `branch: ${target}${tracked ? ` → ${remote}/${target}` : ` (new on ${remote})`}`,
    listed.length === 0
      ? "commits: none the remote lacks"
      : `commits the remote lacks${listed.length > PREVIEW_COMMITS ? ` (first ${PREVIEW_COMMITS})` : ""}:`,
    ...listed.slice(0, PREVIEW_COMMITS).map((c) => `  ${c}`),
  ];
  if (force) lines.push("force: the remote branch is overwritten if nobody else moved it since the last fetch");
  return lines.join("\n");
}

/** Pushes a branch; the approval shows what would be pushed, and where. */
export const gitPush = defineTool({
  name: TOOL.gitPush,
  description: loadDescription(import.meta.url, "git-push.txt"),
  effect: "destructive",
  input,
  timeoutMs: () => 180_000,
  preview: (args, ctx) => pushPreview(args, ctx).catch((e: Error) => `Could not work out what would be pushed: ${e.message}`),
  execute: async ({ remote, branch, force }, ctx) => {
    assertNotOption(remote, "Remote");
    assertNotOption(branch, "Branch");
    const target = await targetBranch(branch, ctx);
    const refusal = await hooksRefusal(ctx);
    const out = await runGit(["push", "--porcelain", ...(force ? ["--force-with-lease"] : []), remote, target], ctx, {
      timeoutMs: 170_000,
      hooks: refusal === undefined,
    });
    const pushed = out.trim() || `Pushed ${target} to ${remote}.`;
    return refusal ? `${pushed}\n[${refusal}]` : pushed;
  },
});
