import { splitLikeEnv } from "./env-split.js";
import { abbreviates, fileOptionValues } from "./flags.js";
import type { Word } from "./words.js";

/**
 * Commands that run another command given in their arguments. `transparent` ones change only
 * how it runs (priority, time limit, environment), so the inner command stands for the whole;
 * `opaque` ones (sudo, xargs) change what it can do, so both the wrapper and the inner command
 * are judged.
 */
interface WrapperSpec {
  kind: "transparent" | "opaque";
  /** Options that take a value as the next word (short `-u` or long `--user`). */
  valued?: readonly string[];
  /** Options whose value is optional, so only one written with them is theirs (`-iX`, `--eof=X`): `xargs -i rm {}` runs rm. */
  optionalValue?: readonly string[];
  /** Positional words before the command (timeout's duration, chroot's directory). */
  skip?: number;
  /** The positional words skipped are files the wrapper writes (logsave's log). */
  skipWrites?: true;
  /** Options that stand in for the positional words of `skip`: given any, none is skipped (runcon's `-t TYPE` for its CONTEXT). */
  skipUnless?: readonly string[];
  /** A word one of which it needs to run a command given after its options (runuser without -u is su: `runuser bob -c CMD`). */
  onlyWith?: RegExp;
  /** The inner command gets arguments at run time (xargs). */
  appendsArgs?: boolean;
  /** With these options the wrapper runs no command at all (`command -v`). */
  lookupOnly?: readonly string[];
  /** Options whose value is a file the wrapper itself writes (GNU time's `-o`). */
  writes?: readonly string[];
}

const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    kind: "transparent",
    valued: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"],
    optionalValue: ["--default-signal", "--ignore-signal", "--block-signal"],
  },
  command: { kind: "transparent", lookupOnly: ["-v", "-V"] },
  builtin: { kind: "transparent" },
  exec: { kind: "transparent", valued: ["-a"] },
  timeout: { kind: "transparent", valued: ["-s", "--signal", "-k", "--kill-after"], skip: 1 },
  nice: { kind: "transparent", valued: ["-n", "--adjustment"] },
  nohup: { kind: "transparent" },
  // GNU time (/usr/bin/time, `command time`); bash's own `time` takes no -o.
  time: { kind: "transparent", valued: ["-f", "--format", "-o", "--output"], writes: ["-o", "--output"] },
  stdbuf: { kind: "transparent", valued: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  ionice: { kind: "transparent", valued: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"] },
  setsid: { kind: "transparent" },
  chrt: { kind: "transparent", valued: ["-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"], skip: 1 },
  taskset: { kind: "transparent", skip: 1 },
  unbuffer: { kind: "transparent" },
  nocorrect: { kind: "transparent" },
  noglob: { kind: "transparent" },
  caffeinate: { kind: "transparent", valued: ["-t", "-w"] },
  "dbus-run-session": { kind: "transparent" },
  "dbus-launch": { kind: "transparent" },
  // moreutils, libeatmydata, run-one: they run the command as it is.
  chronic: { kind: "transparent" },
  ifne: { kind: "transparent" },
  eatmydata: { kind: "transparent" },
  "run-one": { kind: "transparent" },
  "run-this-one": { kind: "transparent" },
  "keep-one-running": { kind: "transparent" },
  toybox: { kind: "transparent" },
  // Compiler caches run the command given them, compiler or not.
  ccache: { kind: "transparent" },
  sccache: { kind: "transparent" },
  distcc: { kind: "transparent" },
  icecc: { kind: "transparent" },
  cpulimit: { kind: "transparent", valued: ["-l", "--limit", "-p", "--pid", "-e", "--exe", "-m", "--monitor-forks"] },
  lckdo: { kind: "transparent", valued: ["-w", "-W"], skip: 1 },
  logsave: { kind: "transparent", skip: 1, skipWrites: true },
  faketime: { kind: "transparent", valued: ["--date-prog"], skip: 1 },
  catchsegv: { kind: "transparent" },
  busybox: { kind: "transparent" },
  coproc: { kind: "transparent" },
  // util-linux prlimit: a resource's short option takes its limit only glued on, so `prlimit -n 10 CMD` runs 10.
  prlimit: {
    kind: "transparent",
    valued: ["-p", "--pid", "-o", "--output"],
    optionalValue: [
      ...["-c", "-d", "-e", "-f", "-i", "-l", "-m", "-n", "-q", "-r", "-s", "-t", "-u", "-v", "-x", "-y"],
      ...["--core", "--data", "--nice", "--fsize", "--sigpending", "--memlock", "--rss", "--nofile", "--msgqueue"],
      ...["--rtprio", "--stack", "--cpu", "--nproc", "--as", "--locks", "--rttime"],
    ],
  },
  numactl: {
    kind: "transparent",
    valued: [
      ...["-m", "--membind", "-i", "--interleave", "-p", "--preferred", "-P", "--preferred-many", "-w", "--weighted-interleave"],
      ...["-C", "--physcpubind", "-N", "--cpunodebind", "-c", "--cpubind", "-M", "--shmmode", "-S", "--shm", "-f", "--file"],
      ...["-o", "--offset", "-L", "--length", "-n"],
    ],
  },
  fakeroot: { kind: "transparent", valued: ["-l", "--lib", "-f", "--faked", "-i", "-s", "-b", "--fd-base"], writes: ["-s"] },
  // Starts an X server for the command: more than how it runs.
  "xvfb-run": {
    kind: "opaque",
    valued: [
      ...["-e", "--error-file", "-f", "--auth-file", "-n", "--server-num", "-p", "--xauth-protocol"],
      ...["-s", "--server-args", "-w", "--wait"],
    ],
    writes: ["-e", "--error-file", "-f", "--auth-file"],
  },
  sudo: {
    kind: "opaque",
    valued: [
      "-u",
      "--user",
      "-g",
      "--group",
      "-C",
      "--close-from",
      "-D",
      "--chdir",
      "--host",
      "-p",
      "--prompt",
      "-r",
      "--role",
      "-t",
      "--type",
      "-U",
      "--other-user",
      "-T",
      "--command-timeout",
      // BSD authentication and login class, and sudo 1.9's chroot: where they are not options, sudo runs nothing.
      "-a",
      "--auth-type",
      "-c",
      "--login-class",
      "-R",
      "--chroot",
    ],
    // `sudo -h` alone asks for help.
    optionalValue: ["-h"],
  },
  doas: { kind: "opaque", valued: ["-u", "-C", "-a"] },
  pkexec: { kind: "opaque", valued: ["--user"] },
  runuser: { kind: "opaque", valued: ["-u", "--user", "-g", "--group", "-G", "--supp-group"], onlyWith: /^(-[A-Za-z]*u|--us)/ },
  chroot: { kind: "opaque", valued: ["--userspec", "--groups"], skip: 1 },
  nsenter: {
    kind: "opaque",
    valued: ["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-W"],
    optionalValue: [
      ...["-m", "-u", "-i", "-n", "-p", "-C", "-U", "-T", "-r", "-w"],
      ...["--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup", "--user", "--time", "--root", "--wd", "--wdns"],
    ],
  },
  setpriv: {
    kind: "opaque",
    valued: [
      ...["--ruid", "--euid", "--rgid", "--egid", "--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps"],
      ...["--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile"],
      ...["--landlock-access", "--landlock-rule", "--seccomp-filter"],
    ],
  },
  runcon: {
    kind: "opaque",
    valued: ["-u", "--user", "-r", "--role", "-t", "--type", "-l", "--range"],
    skip: 1,
    skipUnless: ["-u", "--user", "-r", "--role", "-t", "--type", "-l", "--range"],
  },
  "systemd-run": {
    kind: "opaque",
    valued: [
      ...["-H", "--host", "-M", "--machine", "-u", "--unit", "-p", "--property", "--description", "--slice"],
      ...["--service-type", "--uid", "--gid", "--nice", "--working-directory", "-E", "--setenv", "--path-property"],
      ...["--socket-property", "--timer-property", "--on-active", "--on-boot", "--on-startup", "--on-unit-active"],
      ...["--on-unit-inactive", "--on-calendar", "--json", "-C", "--capsule", "--expand-environment"],
    ],
  },
  // runit's chpst.
  chpst: {
    kind: "opaque",
    valued: ["-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t"],
  },
  unshare: {
    kind: "opaque",
    valued: [
      ...["-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "-l", "--load-interp", "--propagation"],
      ...["--setgroups", "--map-user", "--map-group", "--map-users", "--map-groups", "--monotonic", "--boottime"],
    ],
    optionalValue: [
      ...["-m", "-u", "-i", "-n", "-p", "-U", "-C", "-T", "--mount", "--uts", "--ipc", "--net", "--pid", "--user"],
      ...["--cgroup", "--time", "--kill-child", "--mount-proc", "--mount-binfmt"],
    ],
  },
  firejail: { kind: "opaque" },
  proxychains: { kind: "opaque", valued: ["-f"] },
  proxychains4: { kind: "opaque", valued: ["-f"] },
  torsocks: { kind: "opaque" },
  sshpass: { kind: "opaque", valued: ["-p", "-f", "-d", "-P"] },
  strace: {
    kind: "opaque",
    valued: ["-o", "--output", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-b", "-O", "-S", "-X"],
    writes: ["-o", "--output"],
  },
  ltrace: {
    kind: "opaque",
    valued: ["-o", "--output", "-e", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-E", "-F", "-l", "-x"],
    writes: ["-o", "--output"],
  },
  valgrind: { kind: "opaque" },
  xargs: {
    kind: "opaque",
    appendsArgs: true,
    valued: [
      "-a",
      "--arg-file",
      "-d",
      "--delimiter",
      "-E",
      "-I",
      "-L",
      "-n",
      "--max-args",
      "-P",
      "--max-procs",
      "-s",
      "--max-chars",
      "--process-slot-var",
    ],
    optionalValue: ["-e", "--eof", "-i", "--replace", "-l", "--max-lines"],
  },
  parallel: { kind: "opaque", appendsArgs: true, valued: ["-j", "--jobs", "-a", "--arg-file", "-d", "--delimiter", "-S", "--sshlogin"] },
  sem: { kind: "opaque", valued: ["-j", "--jobs", "--id", "--semaphorename", "--st", "--semaphoretimeout"] },
};

/** Options of `-c`-taking shells: the string after `-c` is itself a script. */
export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "rbash", "yash", "posh"]);

export type Unwrapped =
  | { kind: "none" }
  | { kind: "lookup" }
  | {
      kind: "transparent" | "opaque";
      inner: Word[];
      /** `env NAME=value`: assignments the inner command runs with. */
      assignments: Word[];
      /** `env -S "..."`: each string env split into arguments, in place, before reading on (they are in `inner`). */
      split: Word[];
      /** An `env -S` string tackle cannot split as env would (it depends on run time, or env rejects it): the command is unknown. */
      unreadableSplit?: Word;
      /** `env -C dir`, `sudo -D dir`. */
      chdir?: Word;
      /** Files the wrapper itself writes (`time -o FILE`). */
      outputs: Word[];
      appendsArgs: boolean;
    };

function isOption(text: string): boolean {
  return text.length > 1 && text.startsWith("-");
}

/**
 * The long option `written` stands for: itself, or the one option that takes a value it is a prefix
 * of, as getopt_long reads `--un` for `--unset` (`env --un X rm` runs rm).
 */
function longOption(written: string, valued: ReadonlySet<string>, optional: ReadonlySet<string>): string {
  if (valued.has(written) || optional.has(written)) return written;
  const candidates = [...valued, ...optional].filter((o) => o.startsWith("--") && abbreviates(written, o.slice(2)));
  return candidates.length === 1 ? candidates[0]! : written;
}

/** More `env -S` strings than this in one command (each may hold another) are not followed. */
const MAX_SPLITS = 16;

/** Splits a wrapper's own options off its arguments and returns the command it runs. */
export function unwrap(name: string, given: readonly Word[]): Unwrapped {
  const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (!spec || (spec.onlyWith && !given.some((w) => spec.onlyWith!.test(w.text)))) return { kind: "none" };
  const valued = new Set(spec.valued ?? []);
  const optional = new Set(spec.optionalValue ?? []);
  const assignments: Word[] = [];
  // env puts the words of each -S string in its place and reads on from the first of them, options
  // and all: `env -S "rm -rf x" -S "echo hi"` runs rm, with "-S" and "echo hi" as arguments.
  const args = [...given];
  const split: Word[] = [];
  let unreadableSplit: Word | undefined;
  let chdir: Word | undefined;
  const outputs: Word[] = [];
  let skip = spec.skip ?? 0;
  let i = 0;
  let optionsDone = false;
  let dashSeen = false;
  const seen = new Set<string>();
  for (; i < args.length; i++) {
    const w = args[i]!;
    const t = w.text;
    if (!optionsDone && t === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && isOption(t)) {
      if (spec.lookupOnly?.includes(t)) return { kind: "lookup" };
      const long = t.startsWith("--");
      let key = long ? longOption(t.split("=")[0]!, valued, optional) : t.slice(0, 2);
      let attached = long ? t.includes("=") : t.length > 2;
      let valueText = long ? t.slice(t.indexOf("=") + 1) : t.slice(2);
      if (!long) {
        // A cluster (`-iu root`, `-Eu0`): the first option that takes a value takes the rest, or the next word.
        for (let c = 1; c < t.length; c++) {
          if (valued.has(`-${t[c]}`) || optional.has(`-${t[c]}`)) {
            key = `-${t[c]}`;
            attached = c < t.length - 1;
            valueText = t.slice(c + 1);
            break;
          }
        }
      }
      seen.add(key);
      const value = valued.has(key)
        ? attached
          ? { ...w, text: valueText }
          : args[++i]
        : optional.has(key) && attached
          ? { ...w, text: valueText }
          : undefined;
      if (name === "env" && (key === "-S" || key === "--split-string") && value) {
        split.push(value);
        const words = value.dynamic || split.length > MAX_SPLITS ? undefined : splitLikeEnv(value.text);
        if (!words) {
          unreadableSplit = value;
          i++;
          break;
        }
        args.splice(i + 1, 0, ...words);
        continue;
      }
      if (value && spec.writes?.includes(key)) outputs.push(value);
      if ((name === "env" && (key === "-C" || key === "--chdir")) || (name === "sudo" && (key === "-D" || key === "--chdir")))
        chdir = value;
      // `sudo -s` / `sudo -i` with no command start a shell: the rest is the shell's command.
      continue;
    }
    // A lone "-" after env's options is -i: `env - rm x` runs rm.
    if (name === "env" && t === "-" && !dashSeen && assignments.length === 0) {
      dashSeen = true;
      continue;
    }
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
      assignments.push(w);
      continue;
    }
    if (skip > 0 && !spec.skipUnless?.some((o) => seen.has(o))) {
      if (spec.skipWrites) outputs.push(w);
      skip--;
      continue;
    }
    break;
  }
  return {
    kind: spec.kind,
    inner: args.slice(i),
    assignments,
    split,
    ...(unreadableSplit ? { unreadableSplit } : {}),
    ...(chdir ? { chdir } : {}),
    outputs,
    appendsArgs: spec.appendsArgs ?? false,
  };
}

/**
 * The scripts a shell runs from its arguments. bash and its kin: the first operand after a `-c`
 * option (`-c`, `-lc`, `-ec`), `--` included (`sh -c -- SCRIPT`). fish: the value of `-c` /
 * `--command` and of `-C` / `--init-command`, which run before anything else.
 */
export function shellScriptArg(name: string, args: readonly Word[]): { hasC: boolean; scripts: Word[] } {
  if (!SHELLS.has(name)) return { hasC: false, scripts: [] };
  if (name === "fish") {
    const scripts = fileOptionValues(args, "c", ["command"]);
    return { hasC: scripts.length > 0, scripts: [...scripts, ...fileOptionValues(args, "C", ["init-command"])] };
  }
  let hasC = false;
  const found = (script: Word | undefined) => ({ hasC, scripts: hasC && script ? [script] : [] });
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (t === "--") return found(args[i + 1]);
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(t) && !t.startsWith("--")) {
      hasC = true;
      continue;
    }
    // Options whose value is the next word: `bash --rcfile /dev/null -c CMD` still runs CMD.
    if (t === "-o" || t === "+o" || t === "-O" || t === "+O" || t === "--rcfile" || t === "--init-file") {
      i++;
      continue;
    }
    if (isOption(t) || t.startsWith("+")) continue;
    return found(args[i]);
  }
  return found(undefined);
}
