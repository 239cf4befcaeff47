import type { SimpleCommand } from "../analysis/command-analysis.js";
import type { RuleExamples } from "./examples.js";

/** Options with which crontab only shows or removes its table. */
const CRONTAB_LOOKS = /^-[lrV]$/;

/**
 * Whether at's options make it list, show or remove jobs (-l, -c, -r, -d) rather than queue one,
 * read as its getopt reads them, anywhere in the line: -f, -q and -t take a value, glued on or the
 * next word (`at -f -lx now` queues the file -lx). -V prints the version and goes on.
 */
function atOnlyLooks(args: SimpleCommand["args"]): boolean {
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (t === "--") return false;
    if (!t.startsWith("-") || t.length < 2) continue;
    for (let c = 1; c < t.length; c++) {
      if ("fqt".includes(t[c]!)) {
        if (c === t.length - 1) i++;
        break;
      }
      if ("lcrd".includes(t[c]!)) return true;
    }
  }
  return false;
}

/**
 * Commands that hand a command to a service to run later, outside this call: at and batch (from
 * their input or a file), crontab installing a table, systemd-run (a unit of the user's or the
 * system's service manager). What runs there outlives the call and escapes its sandbox and time
 * limit, and nothing judges it when it runs: the person decides, whatever the mode.
 */
export function runsLater(cmd: SimpleCommand): string | undefined {
  switch (cmd.name) {
    case "at":
    case "batch":
      return atOnlyLooks(cmd.args) ? undefined : `${cmd.name} queues commands that run later, outside this call`;
    case "crontab":
      return cmd.args.length > 0 &&
        cmd.args.every((a, i) => CRONTAB_LOOKS.test(a.text) || cmd.args[i - 1]?.text === "-u" || a.text === "-u")
        ? undefined
        : "crontab installs commands that run on a schedule, outside this call";
    case "systemd-run":
      return "systemd-run hands the command to the service manager, which runs it outside this call";
    default:
      return undefined;
  }
}

/** Lines that queue commands to run later, and lines that only look at the queue. */
export const RUN_LATER_EXAMPLES: RuleExamples = {
  says: /outside this call/,
  match: [
    "echo 'rm -rf build' | at now + 1 minute",
    "at -f job.sh midnight",
    "at -f -lx now",
    "at -fcron.sh now",
    "at -V now",
    "batch < job.sh",
    "crontab jobs.cron",
    "crontab -e",
    "crontab -u bob jobs.cron",
    "echo '* * * * * id' | crontab -",
    "systemd-run --user make",
    "systemd-run --on-active=60 touch x",
  ],
  noMatch: ["at -l", "at -c 3", "at -d 4", "at -q b -l", "crontab -l", "crontab -u bob -l", "atq", "make"],
};
