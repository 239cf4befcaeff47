import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { analyzeCommand } from "../../../src/tools/shell/analysis/command-analysis.js";
import { seeded } from "./helpers.js";

/**
 * The programs themselves as the reference for commands that run other commands: each line is run
 * for real with a probe as the inner command, and whenever the probe ran, the analysis must have
 * found it, with the arguments it got. A wrapper whose options are misread (a value taken for the
 * command, or the command for a value) hides the command it runs from deny rules.
 */
const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-runners-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = path.join(dir, "ran");
const probe = path.join(dir, "probe");
writeFileSync(probe, `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done >> '${log}'\nprintf '\\n' >> '${log}'\n`);
chmodSync(probe, 0o755);

/** The argument lists the probe ran with when bash ran `line`. */
function probeRuns(line: string): string[][] {
  rmSync(log, { force: true });
  spawnSync("/bin/bash", ["--norc", "--noprofile", "-c", line], {
    cwd: dir,
    stdio: "ignore",
    timeout: 10_000,
    env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", HOME: dir },
  });
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .slice(0, -1)
    .map((run) => run.split("\0").slice(0, -1));
}

/** Lines on which the probe ran (so a check could fail): counted, as a reference that runs nothing proves nothing. */
let ran = 0;

/** Every probe run bash made that the analysis did not find, as a message. */
async function missed(line: string): Promise<string[]> {
  const runs = probeRuns(line);
  if (runs.length === 0) return [];
  ran++;
  const a = await analyzeCommand(line, { cwd: dir, home: dir });
  const found = a.commands.filter((c) => c.name === "probe").map((c) => JSON.stringify(c.args.map((w) => w.text)));
  return runs.filter((args) => !found.includes(JSON.stringify(args))).map((args) => `${line}: probe ran with ${JSON.stringify(args)}`);
}

const P = `${probe} one two`;
const have = (program: string) => ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].some((d) => existsSync(path.join(d, program)));

const HAND = [
  `prlimit --nofile=64 ${P}`,
  `prlimit -n64 ${P}`,
  `prlimit --nof=64 ${P}`,
  `prlimit -- ${P}`,
  `nsenter ${P}`,
  `nsenter -F -- ${P}`,
  `nsenter -W /tmp ${P}`,
  `setpriv --nnp ${P}`,
  `setpriv --pdeathsig keep ${P}`,
  `setpriv --pdeathsig=clear --reset-env ${P}`,
  `script -qc '${P}' /dev/null`,
  `script -q --command='${P}' /dev/null`,
  `script -q --comm '${P}' /dev/null`,
  `script -qc'${P}' /dev/null`,
  `sh -c -- '${P}'`,
  `bash -ec -- '${P}'`,
  `bash -O extglob -c '${P}'`,
  `dash -c '${P}'`,
  `fakeroot ${P}`,
  `fakeroot -- ${P}`,
  `sg root '${P}'`,
  `sg root -c '${P}'`,
  `runuser root -c '${P}'`,
  `runuser -l root -c '${P}'`,
  `runuser -u root -- ${P}`,
  `runuser -u root ${P}`,
  `tar -cf x.tar -I '${P}' probe`,
  `tar cIf '${P}' x.tar probe`,
  `tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='${P}' probe`,
  `tar -cf y.tar probe && tar -xf y.tar --to-command='${P}'`,
  `bwrap --bind / / --dev /dev --setenv A B ${P}`,
  `bwrap --bind / / --chmod 0755 /tmp --unshare-pid -- ${P}`,
  `sqlite3 :memory: '.shell ${P}'`,
  `sqlite3 -cmd '.system ${P}' :memory: .quit`,
  // zip adds the archive's temporary name: a comment keeps it off the probe's arguments.
  `zip -q z.zip probe -T -TT '${P} #'`,
];

/** Lines whose program refuses to run anything for a user other than root (sg asks for a password, runuser is root's). */
const rootOnly = (line: string) => /^(sg|runuser|unshare) /.test(line);

describe("commands run by command runners are found as the runners run them", () => {
  it.each(HAND.filter((line) => have(line.split(" ")[0]!)).map((line) => [line]))("%s", async (line) => {
    const before = ran;
    expect(await missed(line)).toEqual([]);
    if (!rootOnly(line) || process.getuid?.() === 0) expect(ran).toBe(before + 1);
  });

  // Option words drawn at random (values that look like commands, `--`, abbreviations), then the probe.
  const POOLS: Record<string, string[]> = {
    prlimit: [
      "--nofile=64",
      "-n64",
      "--nof=64",
      "-n",
      "--nofile",
      "--raw",
      "--verbose",
      "-o",
      "RESOURCE",
      "--output=SOFT",
      "-c0",
      "--",
      "64",
    ],
    nsenter: ["-F", "--no-fork", "-W", "/tmp", "--wdns=/tmp", "--wd", "-w/tmp", "--", "-t"],
    setpriv: ["--nnp", "--no-new-privs", "--reset-env", "--pdeathsig", "keep", "--pdeathsig=clear", "--", "-d"],
    unshare: ["-m", "--mount", "-f", "--fork", "--propagation", "private", "--kill-child", "--setgroups", "allow", "--", "-u"],
    bash: ["-e", "-x", "-c", "-ec", "-o", "errexit", "+o", "nounset", "--", "-O", "extglob", "--norc"],
  };
  const next = seeded(47);
  const generated: string[] = [];
  for (const [program, pool] of Object.entries(POOLS)) {
    if (!have(program) || (rootOnly(`${program} `) && process.getuid?.() !== 0)) continue;
    for (let i = 0; i < 60; i++) {
      const words = Array.from({ length: 1 + next(4) }, () => pool[next(pool.length)]!);
      generated.push(`${program} ${words.join(" ")} ${program === "bash" ? `'${P}'` : P}`);
    }
  }

  it(`on ${generated.length} generated lines`, async () => {
    const all: string[] = [];
    const before = ran;
    for (const line of generated) all.push(...(await missed(line)));
    expect(all).toEqual([]);
    expect(ran - before).toBeGreaterThan(generated.length / 4);
  }, 120_000);
});
