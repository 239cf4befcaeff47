import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { judgeCommand, type CommandJudgement } from "../../../src/tools/shell/command-policy.js";
import type { RuleExamples } from "../../../src/tools/shell/rules/examples.js";
import { INLINE_CODE_EXAMPLES } from "../../../src/tools/shell/rules/inline-code.js";
import { PACKAGE_MANAGER_EXAMPLES } from "../../../src/tools/shell/rules/package-managers.js";
import { RUN_LATER_EXAMPLES } from "../../../src/tools/shell/rules/run-later.js";
import { FILE_WRITER_EXAMPLES } from "../../../src/tools/shell/rules/file-writers.js";
import { CRITICAL_PATH_EXAMPLES } from "../../../src/tools/shell/rules/critical-paths.js";
import { makeWorkspace } from "./helpers.js";

/*
 * Every command rule kept as data under src/tools/shell/rules/ carries lines it must catch and
 * lines it must let be; each is judged here as the policy would judge it.
 */

let ws: ReturnType<typeof makeWorkspace>;
beforeAll(() => {
  ws = makeWorkspace();
  mkdirSync(path.join(ws.root, "sub"));
  writeFileSync(path.join(ws.root, "Makefile"), "all:\n\ttrue\n");
  writeFileSync(path.join(ws.root, "notes.txt"), "notes\n");
});
afterAll(() => ws.cleanup());

/** What a rule's `says` is looked for in: the refusal, the questions, and the files the line writes. */
const said = (j: CommandJudgement) => [j.deny ?? "", j.ask ?? "", ...(j.writes ?? [])].join("\n");

const RULES: Array<[string, RuleExamples]> = [
  ["inline code", INLINE_CODE_EXAMPLES],
  ["package managers elsewhere", PACKAGE_MANAGER_EXAMPLES],
  ["commands run later", RUN_LATER_EXAMPLES],
  ["file writers", FILE_WRITER_EXAMPLES],
  ["critical paths", CRITICAL_PATH_EXAMPLES],
];

describe.each(RULES)("the %s rule", (_name, rule) => {
  it.each(rule.match)("catches %s", async (line) => {
    expect(said(await judgeCommand(line, ws.root, ws.workspace))).toMatch(rule.says);
  });
  it.each(rule.noMatch)("lets %s be", async (line) => {
    expect(said(await judgeCommand(line, ws.root, ws.workspace))).not.toMatch(rule.says);
  });
});
