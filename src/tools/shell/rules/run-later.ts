import type { SimpleCommand } from "../analysis/command-analysis.js";
import type { RuleExamples } from "./examples.js";

/** Options with which at and crontab only show or remove what is queued. */
const AT_LOOKS = /^-[lcrdV]/;
const CRONTAB_LOOKS = /^-[lrV]$/;

/**
 * Commands that hand a command to a service to run later, outside this call: at and batch (from
 * their input or a file), crontab installing a table, systemd-run (a unit of the user's or the
 * system's service manager). What runs there outlives the call and escapes its sandbox and time
 * limit, and nothing judges it when it runs: the person decides, whatever the mode.
 */
export function runsLater(cmd: SimpleCommand): string | undefined {
  const options = cmd.args.filter((a) => a.text.startsWith("-"));
  switch (cmd.name) {
    case "at":
    case "batch":
      return options.some((a) => AT_LOOKS.test(a.text)) ? undefined : `${cmd.name} queues commands that run later, outside this call`;
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
    "batch < job.sh",
    "crontab jobs.cron",
    "crontab -e",
    "crontab -u bob jobs.cron",
    "echo '* * * * * id' | crontab -",
    "systemd-run --user make",
    "systemd-run --on-active=60 touch x",
  ],
  noMatch: ["at -l", "at -c 3", "crontab -l", "crontab -u bob -l", "atq", "make"],
};
