import path from "node:path";
import { Workspace } from "../../../workspace/workspace.js";
import { type SimpleCommand } from "../analysis/command-analysis.js";
import type { RuleExamples } from "./examples.js";

export const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun", "npx", "pnpx"]);

/** Options that point a package manager at another package.json: another folder, a workspace member, all of them. */
export const ELSEWHERE = /^(?:--prefix|-C|--dir|--cwd|--workspace|--workspaces|-w|-ws|--filter|-F|--recursive|-r|--global|-g)(?:=|$)/;

/**
 * A package manager run against a package.json other than the workspace's own (`npm --prefix sub
 * run test`, `cd sub && npm test`, `yarn workspace x ...`): a rule like `npm run test:*` was written
 * for the scripts the person knows, not for ones an agent may have written elsewhere.
 */
export function packageScriptsElsewhere(cmd: SimpleCommand, workspace: Workspace): string | undefined {
  if (!PACKAGE_MANAGERS.has(cmd.name)) return undefined;
  const option = cmd.args.find((a) => ELSEWHERE.test(a.text));
  if (option) return `${cmd.name} ${option.text} runs scripts from another package.json than the workspace's`;
  if (cmd.name === "yarn" && cmd.args[0]?.text === "workspace") return "yarn workspace runs scripts from another package.json";
  if (cmd.cwd !== undefined && path.resolve(cmd.cwd) !== workspace.root) {
    return `${cmd.name} runs in ${path.relative(workspace.root, cmd.cwd) || cmd.cwd}, with that folder's package.json, not the workspace's`;
  }
  return undefined;
}

/** Package-manager lines that reach another package.json, and lines that stay with the workspace's. */
export const PACKAGE_MANAGER_EXAMPLES: RuleExamples = {
  says: /another package\.json|that folder's package\.json/,
  match: [
    "npm --prefix sub run test",
    "npm run test --workspace=app",
    "pnpm -r test",
    "pnpm --filter app build",
    "yarn workspace app test",
    "npm -g install x",
    "cd sub && npm test",
    "yarn --cwd sub test",
  ],
  noMatch: ["npm test", "npm run build", "pnpm install", "yarn test", "npx prettier --check ."],
};
