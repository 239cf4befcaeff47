import type { SimpleCommand } from "./command-analysis.js";
import { gitSubcommand } from "./destructive.js";
import { fileOptionValues, hasOption, optionStartsWith, splitOptions, type ValuedOptions } from "./flags.js";
import type { Word } from "./words.js";

/** The verdict on one simple command: read-only with the paths it reads, or why not. */
export type ReadOnlyVerdict =
  | {
      readOnly: true;
      paths: Word[];
      /** A search of whole trees, and what it searches. */
      recursive?: TreeSearch;
      /** Reads nothing at all, not even its working directory. */ noPaths?: boolean;
    }
  /** Not read-only; a search of whole trees still says what it searches (`rg --pre` reads as well as runs). */
  | { readOnly: false; reason: string; recursive?: TreeSearch };

/**
 * A search of whole trees: its roots (none: the working directory), whether hidden files are
 * read, and for `git grep` which files it reads: those git tracks, or also the untracked ones
 * .gitignore does not hide (`--untracked`).
 */
export interface TreeSearch {
  dot: boolean;
  roots: Word[];
  git?: "tracked" | "visible";
}

interface Spec {
  /** Operands that are not paths (grep's pattern, jq's filter). */
  patterns?: number;
  /** It reads no files at all (echo, printf, basename). */
  noPaths?: boolean;
  /** More operands than this means it writes one (`uniq in out`). */
  maxOperands?: number;
  /** A reason when an option or operand makes it write or run something. */
  unsafe?: (options: string[], operands: Word[], cmd: SimpleCommand) => string | undefined;
  /** It reads whole trees (`grep -r`, `rg`): undefined when not, else whether hidden files are read too. */
  recursive?: (options: string[], args: readonly Word[]) => { dot: boolean } | undefined;
  /** Options whose value may be the next word: never taken for a pattern or a folder to search. */
  valued?: ValuedOptions;
  /** Where a search of trees starts, when that is not its operands (find's starting points). */
  roots?: (args: readonly Word[]) => Word[];
  /** Options that give the pattern (then every operand is a path); default -e, -f, --regexp, --file at the start. */
  patternOptions?: { short: string; long: string[] };
  /** Options whose value names a file it reads (`date -f`, `diff --from-file`): judged like any path it reads. */
  files?: { short?: string; long?: readonly string[] };
  /** Options whose value names a file listing more files to read (`wc --files0-from`): those cannot be judged. */
  lists?: { short?: string; long?: readonly string[] };
}

/** grep reads trees with -r, -R, or a directories action of recurse (`-d recurse`, `--direc=rec`: GNU takes abbreviations). */
const grepRecursive = (o: string[], args: readonly Word[]) =>
  hasOption(o, "rR", ["recursive", "dereference-recursive"]) ||
  fileOptionValues(args, "d", ["directories"]).some((v) => v.dynamic || (v.text.length >= 2 && "recurse".startsWith(v.text)))
    ? { dot: true }
    : undefined;
/** diff -r compares whole trees, printing what differs (and with -N what exists on one side only). */
const diffRecursive = (o: string[]) => (hasOption(o, "r", ["recursive"]) ? { dot: true } : undefined);
const rgRecursive = (o: string[]) => ({ dot: hasOption(o, "u.", ["hidden", "no-ignore", "unrestricted"]) });

const none: Spec = {};
const grepFiles = { short: "f", long: ["file", "exclude-from"] };
// GNU grep's options that take a value (the others take none, or only as --name=value).
const GREP_VALUED: ValuedOptions = {
  short: "efmABCdDX",
  long: [
    ["regexp", "file", "max-count", "after-context", "before-context", "context", "devices", "directories"],
    ["exclude", "exclude-from", "exclude-dir", "include", "label", "binary-files", "group-separator"],
  ].flat(),
};
// ripgrep's, from `rg --help` (13) and later versions' additions.
const RG_VALUED: ValuedOptions = {
  short: "ABCEfgMmerjtTd",
  long: [
    ["after-context", "before-context", "color", "colors", "context", "context-separator", "dfa-size-limit", "encoding"],
    ["engine", "field-context-separator", "field-match-separator", "file", "glob", "iglob", "ignore-file", "max-columns"],
    ["max-count", "max-depth", "maxdepth", "max-filesize", "path-separator", "pre", "pre-glob", "regex-size-limit"],
    ["regexp", "replace", "sort", "sortr", "threads", "type", "type-add", "type-clear", "type-not", "hostname-bin"],
    ["hyperlink-format", "generate"],
  ].flat(),
};
const PATTERN_OPTIONS = { short: "ef", long: ["regexp", "file"] };
const grepSpec: Spec = { patterns: 1, recursive: grepRecursive, files: grepFiles, valued: GREP_VALUED, patternOptions: PATTERN_OPTIONS };
const AG_VALUED: ValuedOptions = {
  short: "ABCGgmpW",
  long: [
    "after",
    "before",
    "context",
    "depth",
    "file-search-regex",
    "ignore",
    "ignore-dir",
    "max-count",
    "path-to-ignore",
    "pager",
    "workers",
    "width",
  ],
};
/** `sha256sum -c SUMS` reads every file SUMS names: paths nobody sees in the command. */
const checksums: Spec = {
  unsafe: (o) => (hasOption(o, "c", ["check"]) ? "a checksum check reads the files its list names, which cannot be judged" : undefined),
};
const noPaths: Spec = { noPaths: true };

const FIND_RUNS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const FIND_UNSAFE = new Set(["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"]);

/** `git branch` options that only list branches. */
const BRANCH_LISTING = new RegExp(
  `^(${[
    ["-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--remotes", "--verbose", "--show-current", "--contains", "--no-contains"],
    ["--merged", "--no-merged", "--sort=.*", "--format=.*", "--color(=.*)?", "--no-color", "--points-at", "--column", "--no-column"],
  ]
    .flat()
    .join("|")})$`,
);

/** A sed script that only prints or substitutes, never `w` (write), `e` (execute) or `r`/`R` (read). */
const SED_ADDRESS = String.raw`(?:\d+|\$|\/(?:[^/\\]|\\.)*\/)`;
const SED_RANGE = String.raw`(?:${SED_ADDRESS}(?:\s*,\s*${SED_ADDRESS})?\s*!?\s*)?`;
const SED_SUBSTITUTE = String.raw`s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1[gpiImM0-9]*`;
const SED_TRANSLITERATE = String.raw`y(.)(?:(?!\2)[^\\]|\\.)*\2(?:(?!\2)[^\\]|\\.)*\2`;
const SED_COMMAND = new RegExp(String.raw`^\s*${SED_RANGE}(?:[pdqQ=nNgGhHxlz]|${SED_SUBSTITUTE}|${SED_TRANSLITERATE})?\s*$`);

function sedScriptSafe(script: string): boolean {
  return script.split(/[;\n]/).every((part) => SED_COMMAND.test(part));
}

/**
 * Commands that only read, each with the options that would make it write or run something
 * else. A command is read-only only when it is listed, none of those options is present, and
 * its name was not given a path of its own (`./ls` is not `ls`).
 */
const READ_ONLY: Record<string, Spec> = {
  ls: none,
  dir: none,
  vdir: none,
  pwd: noPaths,
  true: noPaths,
  false: noPaths,
  ":": noPaths,
  whoami: noPaths,
  id: noPaths,
  groups: noPaths,
  uname: noPaths,
  nproc: noPaths,
  uptime: noPaths,
  tty: noPaths,
  arch: noPaths,
  locale: noPaths,
  cal: noPaths,
  which: noPaths,
  type: noPaths,
  whereis: noPaths,
  echo: noPaths,
  // `printf -v PATH .` would decide where the next command of the line is found.
  printf: { noPaths: true, unsafe: (o) => (hasOption(o, "v", []) ? "printf -v sets a shell variable" : undefined) },
  basename: noPaths,
  dirname: noPaths,
  seq: noPaths,
  sleep: noPaths,
  test: noPaths,
  "[": noPaths,
  tr: noPaths,
  // `hostname NAME` and `hostname --file=F` set the machine's name: only the query options read.
  hostname: {
    noPaths: true,
    maxOperands: 0,
    unsafe: (o) =>
      o.every((x) => /^(-[sfdiIaAyv]+|--(short|fqdn|long|domain|ip-address|all-ip-addresses|alias|all-fqdns|yp|nis|verbose))$/.test(x))
        ? undefined
        : "hostname with these options may set the machine's name",
  },
  date: {
    noPaths: true,
    valued: { short: "dfrs", long: ["date", "file", "reference", "set"] },
    files: { short: "f", long: ["file"] },
    // An operand other than +FORMAT is a time to set (`date 010100002020`), as -s is.
    unsafe: (o, operands) =>
      hasOption(o, "s", ["set"]) || operands.some((w) => w.dynamic || !w.text.startsWith("+"))
        ? "date with these arguments sets the clock"
        : undefined,
  },
  cd: none,
  cat: none,
  tac: none,
  nl: none,
  head: none,
  tail: none,
  wc: { lists: { long: ["files0-from"] } },
  cut: none,
  paste: none,
  fold: none,
  fmt: none,
  column: none,
  expand: none,
  unexpand: none,
  rev: none,
  od: none,
  strings: none,
  stat: none,
  du: { files: { short: "X", long: ["exclude-from"] }, lists: { long: ["files0-from"] } },
  df: none,
  realpath: none,
  readlink: none,
  md5sum: checksums,
  sha1sum: checksums,
  sha224sum: checksums,
  sha256sum: checksums,
  sha384sum: checksums,
  sha512sum: checksums,
  b2sum: checksums,
  cksum: none,
  diff: {
    recursive: diffRecursive,
    files: { short: "X", long: ["from-file", "to-file", "exclude-from"] },
    unsafe: (o) => (optionStartsWith(o, ["--output"]) ? "diff --output writes a file" : undefined),
  },
  cmp: none,
  comm: none,
  join: none,
  grep: grepSpec,
  egrep: grepSpec,
  fgrep: grepSpec,
  zgrep: { ...grepSpec, recursive: undefined },
  rg: {
    patterns: 1,
    recursive: rgRecursive,
    files: { short: "f", long: ["file", "ignore-file"] },
    valued: RG_VALUED,
    patternOptions: PATTERN_OPTIONS,
    unsafe: (o) => (optionStartsWith(o, ["--pre", "--hostname-bin"]) ? "rg --pre runs a program on every file" : undefined),
  },
  ag: {
    patterns: 1,
    recursive: rgRecursive,
    files: { short: "p", long: ["path-to-ignore"] },
    valued: AG_VALUED,
    unsafe: (o) => (optionStartsWith(o, ["--pager"]) ? "ag --pager runs a program" : undefined),
  },
  file: {
    files: { short: "m", long: ["magic-file"] },
    lists: { short: "f", long: ["files-from"] },
    unsafe: (o) => (hasOption(o, "C", ["compile"]) ? "file -C writes a magic file" : undefined),
  },
  sort: {
    files: { long: ["random-source"] },
    lists: { long: ["files0-from"] },
    unsafe: (o) =>
      hasOption(o, "o", ["output"]) || optionStartsWith(o, ["-o"])
        ? "sort -o writes a file"
        : hasOption(o, "", ["compress-program"])
          ? "sort --compress-program runs a program"
          : hasOption(o, "T", ["temporary-directory"])
            ? "sort -T writes temporary files in another directory"
            : undefined,
  },
  uniq: { maxOperands: 1 },
  base64: { maxOperands: 1 },
  xxd: { maxOperands: 1, unsafe: (o) => (hasOption(o, "r", ["revert"]) ? "xxd -r writes binary data" : undefined) },
  // What --fromfile and --infofile read is printed; --gitfile is read for its patterns.
  tree: {
    files: { long: ["fromfile", "fromtabfile", "infofile", "gitfile"] },
    // -R runs tree again in each folder, through the shell, writing 00Tree.html there.
    unsafe: (o) =>
      optionStartsWith(o, ["-o"])
        ? "tree -o writes a file"
        : hasOption(o, "R", [])
          ? "tree -R runs tree again and writes files"
          : undefined,
  },
  hexdump: { files: { short: "f", long: ["format-file"] } },
  jq: {
    patterns: 1,
    files: { short: "fL", long: ["from-file", "library-path"] },
    unsafe: (o, operands) => {
      if (hasOption(o, "", ["slurpfile", "rawfile"])) return "jq --slurpfile / --rawfile read files named in their arguments";
      // `env` and `$ENV` hand jq the environment, secrets and all.
      const filter = operands[0];
      if (hasOption(o, "f", ["from-file"])) return "a jq program from a file may read the environment";
      if (filter && (filter.dynamic || /\benv\b|\$ENV\b|\$__loc__|input_filename/.test(filter.text)))
        return "the jq program reads the environment";
      if (filter && /\b(import|include)\b/.test(filter.text)) return "a jq module the program loads may read the environment";
      return undefined;
    },
  },
  find: {
    // What -exec runs reads every file find finds: a search of the trees below its starting points.
    recursive: (o) => (o.some((x) => FIND_RUNS.has(x)) ? { dot: true } : undefined),
    roots: (args) => {
      const expression = args.findIndex((a) => /^[-(!)]/.test(a.text));
      return expression < 0 ? [...args] : args.slice(0, expression);
    },
    unsafe: (_o, _ops, cmd) => {
      const bad = cmd.args.find((a) => FIND_UNSAFE.has(a.text) || a.text === "-files0-from");
      return bad ? `find ${bad.text} runs commands or writes files` : undefined;
    },
  },
  sed: {
    unsafe: (o, operands) => {
      if (hasOption(o, "i", ["in-place"]) || optionStartsWith(o, ["-i"])) return "sed -i edits files";
      if (hasOption(o, "f", ["file"])) return "sed -f runs a script file";
      if (hasOption(o, "e", ["expression"])) return "sed -e scripts are not checked";
      const script = operands[0];
      if (!script || script.dynamic || !sedScriptSafe(script.text)) return "the sed script may write or run something";
      return undefined;
    },
    patterns: 1,
  },
  command: {
    noPaths: true,
    unsafe: (o) => (o.some((x) => x === "-v" || x === "-V") ? undefined : "command runs a command"),
  },
};

/**
 * Options of git's diff family and log-like commands that write a file or run a program: any
 * abbreviation of --output (git takes one), an external diff, textconv filters.
 */
const GIT_WRITES_OR_RUNS = ["--output", "--ext-diff", "--textconv", "--open-files-in-pager"];
const gitWrites = (sub: string) => (o: string[]) =>
  // --text is an option of its own, not an abbreviation of --textconv.
  optionStartsWith(
    o.filter((x) => x !== "--text"),
    GIT_WRITES_OR_RUNS,
  )
    ? `git ${sub} with these options writes a file or runs a program`
    : undefined;

/** Git subcommands that only read, with the options that would make them write or run something. */
const GIT_READ: Record<string, (options: string[], operands: Word[]) => string | undefined> = {
  status: () => undefined,
  diff: (o) => (hasOption(o, "", ["no-index"]) ? undefined : gitWrites("diff")(o)),
  log: gitWrites("log"),
  show: gitWrites("show"),
  "rev-parse": () => undefined,
  "ls-files": () => undefined,
  "ls-tree": () => undefined,
  blame: () => undefined,
  shortlog: gitWrites("shortlog"),
  describe: () => undefined,
  "cat-file": (o) =>
    hasOption(o, "", ["batch-all-objects"]) && !o.every((x) => /^--(batch-all-objects|batch-check(=.*)?|unordered|buffer)$/.test(x))
      ? "git cat-file --batch-all-objects prints every object git holds, even ones no commit or index names"
      : gitWrites("cat-file")(o),
  "rev-list": () => undefined,
  "show-ref": () => undefined,
  "merge-base": () => undefined,
  "name-rev": () => undefined,
  "count-objects": () => undefined,
  "for-each-ref": () => undefined,
  "check-ignore": () => undefined,
  "diff-tree": gitWrites("diff-tree"),
  "diff-files": gitWrites("diff-files"),
  "diff-index": gitWrites("diff-index"),
  whatchanged: gitWrites("whatchanged"),
  version: () => undefined,
  branch: (o, operands) => {
    const listing = o.every((x) => BRANCH_LISTING.test(x));
    if (!listing) return "git branch with these options changes branches";
    if (
      operands.length > 0 &&
      !o.some(
        (x) =>
          x === "-l" ||
          x === "--list" ||
          x.startsWith("--contains") ||
          x.startsWith("--merged") ||
          x.startsWith("--no-merged") ||
          x.startsWith("--points-at"),
      )
    ) {
      return "git branch NAME creates a branch";
    }
    return undefined;
  },
  tag: (o, operands) =>
    operands.length === 0 || o.some((x) => x === "-l" || x === "--list")
      ? o.every((x) => /^(-l|--list|-n\d*|--sort=.*|--contains|--merged|--points-at|--format=.*)$/.test(x))
        ? undefined
        : "git tag with these options changes tags"
      : "git tag NAME creates a tag",
  remote: (o, operands) =>
    operands.length === 0 || ["show", "get-url"].includes(operands[0]!.text)
      ? o.every((x) => x === "-v" || x === "--verbose")
        ? undefined
        : "git remote option"
      : `git remote ${operands[0]!.text} changes remotes`,
  stash: (o, operands) =>
    operands[0] && ["list", "show"].includes(operands[0].text) ? gitWrites("stash")(o) : "git stash changes the working tree",
  // Only the repository's own config: another file (-f, --global, --system, includes) may be anything on the machine.
  config: (o) =>
    o.some((x) => /^(--get|--get-all|--get-regexp|--list|-l|--show-origin|--show-scope|--name-only|--null|-z)$/.test(x)) &&
    !o.some((x) => /^--(add|unset|replace|rename|remove|edit)|^-e$/.test(x))
      ? o.some((x) => /^(-f|--file|--blob|--global|--system|--includes|--worktree)/.test(x) || /^-[^-]*f/.test(x))
        ? "git config reading a config file other than the repository's may read anything on the machine"
        : undefined
      : "git config may change settings",
  reflog: (_o, operands) => (operands.length === 0 || operands[0]!.text === "show" ? undefined : "git reflog may delete entries"),
  help: () => undefined,
};

const GIT_GREP_VALUED: ValuedOptions = {
  short: "efABCmO",
  long: ["file", "after-context", "before-context", "context", "max-count", "max-depth", "threads", "open-files-in-pager"],
};

/**
 * `git grep` searches the files git tracks below its pathspecs, and with `--untracked` or
 * `--no-index` every file there: a search of a tree, judged like `grep -r`.
 */
function gitGrepVerdict(rest: readonly Word[]): ReadOnlyVerdict {
  const { options, operands } = splitOptions(rest, GIT_GREP_VALUED);
  const searched = operands.slice(hasOption(options, "ef", ["file"]) ? 0 : 1);
  // --no-index reads every file (.gitignore only with --exclude-standard); --untracked what .gitignore does not hide.
  const git = hasOption(options, "", ["no-index", "no-exclude-standard"])
    ? undefined
    : hasOption(options, "", ["untracked"])
      ? "visible"
      : "tracked";
  const recursive: TreeSearch = { dot: true, roots: searched, ...(git ? { git } : {}) };
  if (optionStartsWith(options, ["-O", "--open-files-in-pager"])) return { readOnly: false, reason: "git grep -O runs a pager", recursive };
  return { readOnly: true, paths: [...searched, ...fileOptionValues(rest, "f", ["file"])], recursive };
}

/** `git diff --no-index A B` compares any two files or trees, printing their content: a read of both trees. */
function gitNoIndexVerdict(rest: readonly Word[]): ReadOnlyVerdict {
  const { options, operands } = splitOptions(rest);
  const recursive: TreeSearch = { dot: true, roots: operands };
  const unsafe = gitWrites("diff")(options);
  if (unsafe) return { readOnly: false, reason: unsafe, recursive };
  return { readOnly: true, paths: operands, recursive };
}

function gitVerdict(cmd: SimpleCommand): ReadOnlyVerdict {
  const { globals, sub, rest } = gitSubcommand(cmd);
  // `-c core.pager=...`, `--exec-path`, `-C elsewhere`: anything but the harmless ones can run code.
  if (!globals.every((g) => g === "--no-pager" || g === "-P" || g === "--no-optional-locks" || g === "--literal-pathspecs")) {
    return { readOnly: false, reason: "git with global options" };
  }
  if (!sub) return { readOnly: true, paths: [] };
  if (sub === "grep") return gitGrepVerdict(rest);
  if (sub === "diff" && hasOption(splitOptions(rest).options, "", ["no-index"])) return gitNoIndexVerdict(rest);
  const check = Object.hasOwn(GIT_READ, sub) ? GIT_READ[sub] : undefined;
  if (!check) return { readOnly: false, reason: `git ${sub} is not read-only` };
  const { options, operands } = splitOptions(rest);
  const unsafe = check(options, operands);
  if (unsafe) return { readOnly: false, reason: unsafe };
  // `HEAD:path` and plain paths both name files whose content is shown.
  const paths = operands.map((o) =>
    o.text.includes(":") && !o.dynamic ? { ...o, text: o.text.slice(o.text.indexOf(":") + 1) || "." } : o,
  );
  const shown = sub === "status" || sub === "log" || sub === "diff" || sub === "show" || sub === "blame" || sub === "cat-file" ? paths : [];
  const [short, long] = (Object.hasOwn(GIT_FILE_OPTIONS, sub) ? GIT_FILE_OPTIONS[sub] : undefined) ?? ["", []];
  return { readOnly: true, paths: [...shown, ...fileOptionValues(rest, short, long)] };
}

/**
 * Files git's read-only subcommands read when an option names them, by subcommand (short options,
 * long ones): `git blame --contents=F` prints F's lines, the others read an order or exclude list.
 */
const GIT_FILE_OPTIONS: Record<string, [string, string[]]> = {
  blame: ["S", ["contents", "ignore-revs-file"]],
  diff: ["O", []],
  log: ["O", []],
  show: ["O", []],
  "ls-files": ["X", ["exclude-from"]],
};

/** Whether one simple command only reads, and which operands are paths it reads. */
export function readOnlyVerdict(cmd: SimpleCommand): ReadOnlyVerdict {
  if (cmd.dynamicName) return { readOnly: false, reason: "its name is only known when it runs" };
  if (cmd.written) return { readOnly: false, reason: `${cmd.written.split(" ")[0]} is not the system's ${cmd.name}` };
  if (cmd.assignments.some((a) => !/^(LC_[A-Z]+|LANG|LANGUAGE|TZ|NO_COLOR|FORCE_COLOR|COLUMNS|LINES|TERM)=/.test(a))) {
    return { readOnly: false, reason: "it sets environment variables that may change what runs" };
  }
  if (cmd.name === "git") return gitVerdict(cmd);
  // Own entries only: a program named `toString` or `constructor` found Object's and was judged read-only.
  const spec = Object.hasOwn(READ_ONLY, cmd.name) ? READ_ONLY[cmd.name] : undefined;
  if (!spec) return { readOnly: false, reason: `${cmd.name} is not on the read-only list` };
  const { options, operands } = splitOptions(cmd.args, spec.valued);
  // With -e / -f the pattern is an option's value, so every operand is a path.
  const patternInOption = spec.patternOptions
    ? hasOption(options, spec.patternOptions.short, spec.patternOptions.long)
    : options.some((o) => /^(-e|-f|--regexp|--file)/.test(o));
  const searched = operands.slice(patternInOption ? 0 : (spec.patterns ?? 0));
  const tree = spec.recursive?.(options, cmd.args);
  // The roots are the operands alone: a file an option names (`--exclude-from=F`) is read, not searched.
  const recursive = tree ? { ...tree, roots: spec.roots ? spec.roots(cmd.args) : searched } : undefined;
  const unsafe = spec.unsafe?.(options, operands, cmd);
  if (unsafe) return { readOnly: false, reason: unsafe, ...(recursive ? { recursive } : {}) };
  if (spec.lists && fileOptionValues(cmd.args, spec.lists.short ?? "", spec.lists.long ?? []).length > 0) {
    return { readOnly: false, reason: `${cmd.name} reads the files a list names, which cannot be judged` };
  }
  const named = spec.files ? fileOptionValues(cmd.args, spec.files.short ?? "", spec.files.long ?? []) : [];
  if (spec.maxOperands !== undefined && operands.length > spec.maxOperands)
    return { readOnly: false, reason: `${cmd.name} with ${operands.length} operands writes a file` };
  if (spec.noPaths) return named.length ? { readOnly: true, paths: named } : { readOnly: true, paths: [], noPaths: true };
  const paths = [...new Set([...searched, ...named])];
  return { readOnly: true, paths, ...(recursive ? { recursive } : {}) };
}

/** Whether a command name is on the read-only list at all (for messages and tests). */
export function isListedReadOnly(name: string): boolean {
  return name === "git" || name in READ_ONLY;
}
