import path from "node:path";
import { Command, Option } from "commander";
import { configOption, workspaceOption, type SessionFlags } from "./options.js";
import { EXIT } from "./exit-codes.js";
import { palette } from "./colour.js";
import { unknownToolIn } from "./rule-tool-check.js";
import { whyNotAllowed } from "./narrowest-rule.js";
import { parseRule } from "../runtime/rules.js";
import { terminalSafe } from "../core/visible.js";
import { addRule, configFileIn, readRules, removeRule, RULE_LISTS, type RuleList } from "./config-rules.js";

const listOption = (fallback?: RuleList) => {
  const option = new Option("--list <list>", "which list: allow, ask or deny").choices(RULE_LISTS as unknown as string[]);
  return fallback ? option.default(fallback) : option;
};

function fileOf(flags: SessionFlags): string {
  return configFileIn(flags.workspace ?? process.cwd(), flags.config);
}

/**
 * For an allow rule naming one exact command (`shell(rm notes.txt)`), why it can never let that
 * command run unasked, judged by the policy itself; undefined when it can, or when the rule is a
 * pattern (`shell(npm run test:*)`) or not about commands.
 */
async function commandNeverAllowed(rule: string, file: string, flags: SessionFlags): Promise<string | undefined> {
  const { tool: name, pattern } = parseRule(rule);
  if (!pattern || pattern.includes("*")) return undefined;
  const { openSession } = await import("../session.js");
  const session = await openSession({
    ...(flags.workspace ? { workspace: flags.workspace } : {}),
    configFile: file,
    only: [name],
    mcp: false,
  });
  try {
    const tool = session.registry.get(name);
    if (!tool || tool.scope?.kind !== "command") return undefined;
    const why = await whyNotAllowed(
      tool,
      session.registry.namesOf(name),
      { command: pattern },
      session.runner,
      session.loaded.config.permissions,
    );
    return why ? `${rule} can never let "${pattern}" run unasked: ${why}` : undefined;
  } catch {
    return undefined;
  } finally {
    await session.close();
  }
}

/** `tackle rules list | add | remove`: the permission rules in the configuration file, kept with its comments. */
export function rulesCommand(): Command {
  const rules = new Command("rules").description("list, add or remove permission rules in tackle.config.json").addHelpText(
    "after",
    `
Rules are tool or tool(pattern): a path glob for file tools, a command pattern for the shell, a
domain for web tools. deny beats ask beats allow.

Examples:
  tackle rules list
  tackle rules add 'shell(npm run test:*)'
  tackle rules add 'shell(curl *)' --list deny
  tackle rules remove 'shell(npm run test:*)'`,
  );

  rules
    .command("list")
    .description("show the rules, list by list")
    .option("--json", "print { allow, ask, deny }")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText("after", "\nExamples:\n  tackle rules list\n  tackle rules list --json")
    .action((flags: SessionFlags & { json?: boolean }) => {
      const file = fileOf(flags);
      const found = readRules(file);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
        return;
      }
      const colour = palette(process.stdout);
      process.stdout.write(`${colour.dim(path.relative(process.cwd(), file) || file)}\n`);
      for (const list of RULE_LISTS) {
        process.stdout.write(`${colour.strong(list)}\n`);
        if (found[list].length === 0) process.stdout.write(colour.dim("  (none)\n"));
        for (const rule of found[list]) process.stdout.write(`  ${rule}\n`);
      }
    });

  rules
    .command("add")
    .description("add a rule (to allow unless --list says otherwise)")
    .argument("<rule>", "tool or tool(pattern)")
    .addOption(listOption("allow"))
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText("after", "\nExamples:\n  tackle rules add 'shell(git status*)'\n  tackle rules add web_fetch --list ask")
    .action(async (rule: string, flags: SessionFlags & { list: RuleList }) => {
      const file = fileOf(flags);
      try {
        const added = addRule(file, flags.list, rule);
        process.stdout.write(
          added ? `Added ${rule} to permissions.${flags.list} in ${file}\n` : `${rule} is already in permissions.${flags.list}\n`,
        );
        const unknown = unknownToolIn(rule, file);
        const never = unknown || flags.list !== "allow" ? undefined : await commandNeverAllowed(rule, file, flags);
        const problem = unknown ?? never;
        if (problem) {
          const colour = palette(process.stderr);
          process.stderr.write(`${colour.warning("tackle: warning:")} ${problem}. The rule was added; tackle rules remove takes it out.\n`);
        }
      } catch (err) {
        process.stderr.write(`tackle: ${terminalSafe((err as Error).message)}\n`);
        process.exitCode = EXIT.usage;
      }
    });

  rules
    .command("remove")
    .description("remove a rule from the lists that have it")
    .argument("<rule>", "the rule exactly as listed")
    .addOption(listOption())
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText("after", "\nExamples:\n  tackle rules remove 'shell(git status*)'\n  tackle rules remove web_fetch --list ask")
    .action((rule: string, flags: SessionFlags & { list?: RuleList }) => {
      const file = fileOf(flags);
      const removed = removeRule(file, rule, flags.list);
      if (removed.length === 0) {
        process.stderr.write(`tackle: no rule ${rule} in ${file}; tackle rules list shows them.\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      process.stdout.write(`Removed ${rule} from permissions.${removed.join(", permissions.")} in ${file}\n`);
    });
  return rules;
}
