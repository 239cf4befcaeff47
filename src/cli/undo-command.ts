import { Command } from "commander";
import { configOf, configOption, workspaceOption, type SessionFlags } from "./options.js";
import { EXIT } from "./exit-codes.js";
import { palette } from "./colour.js";
import { ToolError } from "../core/errors.js";
import { oneLine, terminalSafe } from "../core/visible.js";
import type { ChangeJournal, UndoResult } from "../workspace/change-journal.js";

/** The workspace's journal; its code loads only for these commands. */
async function journalFor(flags: SessionFlags): Promise<ChangeJournal> {
  const loaded = configOf(flags);
  const bounds = typeof loaded.config.checkpoints === "object" ? loaded.config.checkpoints : {};
  const [{ ChangeJournal }, { Workspace }] = await Promise.all([
    import("../workspace/change-journal.js"),
    import("../workspace/workspace.js"),
  ]);
  return new ChangeJournal(Workspace.open(loaded.workspace), bounds);
}

const when = (t: number) => new Date(t).toLocaleString("en-GB", { hour12: false });

function fail(err: unknown): void {
  process.stderr.write(`tackle: ${terminalSafe((err as Error).message)}\n`);
  process.exitCode = err instanceof ToolError && err.code === "INVALID_ARGS" ? EXIT.usage : EXIT.toolError;
}

function report(result: UndoResult, dryRun: boolean): void {
  const colour = palette(process.stdout);
  const calls = result.undone.map((u) => `${oneLine(u.tool)} (${when(u.t)})`).join(", ");
  process.stdout.write(`${dryRun ? "Would undo" : colour.success("Undid")} ${calls}:\n`);
  // File names are the workspace's, which a model may have chosen: shown, never obeyed by the terminal.
  for (const f of result.files) process.stdout.write(`  ${f.restored === "removed" ? "removed " : "restored"} ${oneLine(f.path)}\n`);
}

/** `tackle undo`, `tackle checkpoints` and `tackle checkpoint`: rewinding what tools changed. */
export function undoCommands(): Command[] {
  const undo = new Command("undo")
    .description("rewind the files the last tool calls changed (or everything since a checkpoint)")
    .argument("[count]", "how many calls to undo", "1")
    .option("--to <checkpoint>", "undo every call after this checkpoint")
    .option("--dry-run", "say what would be restored, changing nothing")
    .option("--json", "print the result as JSON")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText(
      "after",
      `
Each file goes back to what it was before the first undone call touched it. Nothing is changed
when a file differs from what the last of them left (someone changed it since).

Examples:
  tackle undo
  tackle undo 3 --dry-run
  tackle undo --to before-refactor`,
    )
    .action(async (count: string, flags: SessionFlags & { to?: string; dryRun?: boolean; json?: boolean }) => {
      const n = Number(count);
      if (!Number.isInteger(n) || n < 1) {
        process.stderr.write(`tackle: the count is a whole number of calls, 1 or more (got "${count}").\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      try {
        const result = await (
          await journalFor(flags)
        ).undo({
          count: n,
          ...(flags.to !== undefined ? { to: flags.to } : {}),
          dryRun: Boolean(flags.dryRun),
        });
        if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        else report(result, Boolean(flags.dryRun));
      } catch (err) {
        fail(err);
      }
    });

  const list = new Command("checkpoints")
    .description("list the tool calls that changed files, and the named checkpoints, newest first")
    .option("--json", "print the list as JSON")
    .option("-n, --limit <n>", "how many to show", "30")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText("after", "\nExamples:\n  tackle checkpoints\n  tackle checkpoints --json")
    .action(async (flags: SessionFlags & { json?: boolean; limit: string }) => {
      try {
        const items = (await journalFor(flags)).list().slice(0, Math.max(1, Number(flags.limit) || 30));
        if (flags.json) {
          process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
          return;
        }
        const colour = palette(process.stdout);
        if (!items.length) process.stdout.write("No tool call has changed files in this workspace yet.\n");
        for (const item of items) {
          if (item.kind === "checkpoint") {
            process.stdout.write(`${colour.strong(`— checkpoint ${oneLine(item.name)}`)} ${colour.dim(when(item.t))}\n`);
            continue;
          }
          const names = item.files.slice(0, 3).map(oneLine).join(", ");
          const files = item.files.length > 3 ? `${names} and ${item.files.length - 3} more` : names;
          const state = item.undone
            ? colour.dim(" (undone)")
            : item.undoable
              ? ""
              : colour.warning(" (cannot be undone: not all of it was kept)");
          process.stdout.write(`${colour.dim(when(item.t))}  ${oneLine(item.tool)}  ${files}${state}\n`);
        }
      } catch (err) {
        fail(err);
      }
    });

  const mark = new Command("checkpoint")
    .description("name the present, so tackle undo --to NAME can come back to it")
    .argument("<name>", "the checkpoint's name")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText("after", "\nExamples:\n  tackle checkpoint before-refactor")
    .action(async (name: string, flags: SessionFlags) => {
      try {
        (await journalFor(flags)).checkpoint(name);
        process.stdout.write(`Checkpoint "${oneLine(name)}" made; tackle undo --to ${oneLine(name)} rewinds the calls after it.\n`);
      } catch (err) {
        fail(err);
      }
    });
  return [undo, list, mark];
}
