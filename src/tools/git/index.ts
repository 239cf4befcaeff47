import type { ToolGroup } from "../group.js";
import { gitBranch } from "./git-branch.js";
import { gitCommit } from "./git-commit.js";
import { gitDiff } from "./git-diff.js";
import { gitLog } from "./git-log.js";
import { gitPush } from "./git-push.js";
import { gitStatus } from "./git-status.js";

/** Spec 002's git tools; they report clearly when git or a repository is missing. */
export const gitTools: ToolGroup = () => [gitStatus, gitDiff, gitLog, gitCommit, gitBranch, gitPush];
