import path from "node:path";
import type { Node, Parser, Tree } from "web-tree-sitter";
import { arithmeticInCommand, arithmeticInTree } from "./arithmetic.js";
import { bashParser } from "./bash-parser.js";
import { gitSubcommand } from "./destructive.js";
import { fileOptionValues, operandsStart, splitOptions } from "./flags.js";
import { plainCommands, type PlainVariable, type PlainWord } from "./plain-words.js";
import { expandBraces, findNested, literalWord, resolveWord, shellQuote, type KnownVariables, type Word } from "./words.js";
import { SHELLS, shellScriptArg, unwrap } from "./wrappers.js";

/** One command that will run, with quoting, paths and wrappers taken off its name. */
export interface SimpleCommand {
  /** The command's name whatever its path or quoting (`/usr/bin/rm`, `\rm`, `r''m` → `rm`). */
  name: string;
  /** Arguments after the name, resolved. */
  args: Word[];
  /** `NAME=value` words that prefix it (or that `env` sets). */
  assignments: string[];
  /** Normalized text rules match: `NAME=v name arg1 arg2`. */
  text: string;
  /** The same without the assignments (`name arg1 arg2`), so a deny rule on `name` still matches. */
  bare: string;
  /** The text as written, when the name carries a path outside the system folders (`./ls`). */
  written?: string;
  /** Some part cannot be known before it runs (a variable, a substitution, xargs' input). */
  dynamic: boolean;
  /** The name itself is unknown until run time (`$cmd args`). */
  dynamicName: boolean;
  /** The working directory it runs in, when it can be known; undefined after `cd $x`. */
  cwd: string | undefined;
  /** Wrappers and constructs it was found inside: `sudo`, `xargs`, `bash -c`, `$(...)`, `eval`. */
  via: string[];
  /** Functions whose body holds it. */
  inFunctions: string[];
}

/** A redirection and where it points. */
export interface Redirection {
  operator: string;
  fd?: string;
  /** Undefined for `2>&1`-style duplications and closes. */
  target?: Word;
  /** Opens its target for writing. */
  write: boolean;
  /** Opens its target for reading. */
  read: boolean;
  cwd: string | undefined;
}

export type AnalysisFlag =
  | "parse-error"
  | "dynamic"
  | "eval"
  | "source"
  | "function"
  | "background"
  | "cwd-unknown"
  | "too-deep"
  | "fork-bomb"
  | "sensitive-assignment"
  | "arithmetic";

/** What a command line does, statically. */
export interface CommandAnalysis {
  source: string;
  /** Parsed without error; when false, nothing may be auto-approved. */
  ok: boolean;
  commands: SimpleCommand[];
  redirections: Redirection[];
  /** Each flag with a reason a person can read. */
  flags: Map<AnalysisFlag, string>;
}

export interface AnalyzeOptions {
  /** Directory the command starts in (absolute). */
  cwd: string;
  /** What `~` and `$HOME` mean. */
  home: string;
}

/** Directories whose programs are the system's own: `/usr/bin/rm` is `rm`, `./rm` is something else. */
const SYSTEM_DIRS = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin"]);

/**
 * Variables that change which programs run or what they load. Setting them (even for one
 * command) is never judged as harmless.
 */
const SENSITIVE_VARIABLES = new RegExp(
  `^(${[
    ["PATH", "LD_[A-Z_]+", "DYLD_[A-Z_]+", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH"],
    ["GLOBIGNORE", "BASH_FUNC_.*", "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "PERL5LIB", "RUBYOPT", "GIT_[A-Z_]+"],
    ["PAGER", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "MANPAGER", "HOME"],
  ]
    .flat()
    .join("|")})$`,
);

const MAX_DEPTH = 12;

/** Options, short and long, whose value is a shell command; `within` picks the command out of a longer value. */
interface CommandOption {
  short: string;
  long: string[];
  within?: RegExp;
}

/**
 * Options of git's subcommands whose value is a shell command git runs (values glued on, after `=`,
 * or as the next word; long ones abbreviated as git allows). grep's `-O` takes its value only glued
 * on, so only its long form is here.
 */
const GIT_COMMAND_OPTIONS: Record<string, CommandOption> = {
  grep: { short: "", long: ["open-files-in-pager"] },
  rebase: { short: "x", long: ["exec"] },
  difftool: { short: "x", long: ["extcmd"] },
  "filter-branch": {
    short: "",
    long: ["env-filter", "tree-filter", "index-filter", "parent-filter", "msg-filter", "commit-filter", "tag-name-filter"],
  },
  clone: { short: "u", long: ["upload-pack"] },
  fetch: { short: "", long: ["upload-pack"] },
  pull: { short: "", long: ["upload-pack"] },
  "ls-remote": { short: "", long: ["upload-pack", "exec"] },
  archive: { short: "", long: ["exec"] },
  push: { short: "", long: ["receive-pack", "exec"] },
};

/**
 * Options whose value is a shell command the program runs, by program (values glued on, after `=`,
 * or as the next word; long ones abbreviated): tar's compressor, per-file command and checkpoint
 * action, rsync's remote shell, wget's askpass, netcat's -e/-c, tcpdump's post-rotate command.
 */
const NETCAT = [{ short: "ec", long: ["exec", "sh-exec"] }];
const COMMAND_OPTIONS: Record<string, readonly CommandOption[]> = {
  tar: [
    { short: "IF", long: ["to-command", "use-compress-program", "info-script", "new-volume-script", "rsh-command", "rmt-command"] },
    { short: "", long: ["checkpoint-action"], within: /^exec=(.*)$/s },
  ],
  rsync: [{ short: "e", long: ["rsh", "rsync-path"] }],
  wget: [{ short: "", long: ["use-askpass"] }],
  nc: NETCAT,
  ncat: NETCAT,
  netcat: NETCAT,
  tcpdump: [{ short: "z", long: [] }],
};

/** How many words each bubblewrap option takes; those not named take none. */
const BWRAP_ARITY: Record<string, number> = Object.fromEntries([
  ...["--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind", "--ro-bind-try", "--symlink", "--setenv", "--file"]
    .concat(["--bind-data", "--ro-bind-data", "--chmod", "--overlay-src-pair"])
    .map((o) => [o, 2]),
  ["--overlay", 3],
  ...["--args", "--argv0", "--unsetenv", "--lock-file", "--sync-fd", "--chdir", "--uid", "--gid", "--hostname", "--remount-ro"]
    .concat(["--exec-label", "--file-label", "--proc", "--dev", "--tmpfs", "--mqueue", "--dir", "--seccomp", "--add-seccomp-fd"])
    .concat(["--block-fd", "--userns-block-fd", "--info-fd", "--json-status-fd", "--cap-add", "--cap-drop", "--perms", "--size"])
    .concat(["--userns", "--userns2", "--pidns", "--overlay-src", "--tmp-overlay", "--ro-overlay"])
    .map((o) => [o, 1]),
]);

type TmuxCommand = { valued: string; oneScript?: boolean } | "keys" | "source";

/** tmux commands that run shell commands (their short options that take a value), with their aliases; and those that type keys or read files of commands. */
const TMUX_COMMANDS = new Map<string, TmuxCommand>(
  (
    [
      [["new-session", "new"], { valued: "cefFnstxy" }],
      [["new-window", "neww"], { valued: "ceFnt" }],
      [["split-window", "splitw"], { valued: "ceFlt" }],
      [["respawn-pane", "respawnp", "respawn-window", "respawnw"], { valued: "cet" }],
      [["display-popup", "popup"], { valued: "bcdehsStTwxy", oneScript: true }],
      [["run-shell", "run"], { valued: "cdt", oneScript: true }],
      [["pipe-pane", "pipep"], { valued: "t", oneScript: true }],
      [["if-shell", "if"], { valued: "t" }],
      [["send-keys", "send", "send-prefix", "paste-buffer", "pasteb"], "keys"],
      [["source-file", "source"], "source"],
    ] as Array<[string[], TmuxCommand]>
  ).flatMap(([names, kind]) => names.map((n) => [n, kind] as const)),
);

interface State {
  cwd: string | undefined;
  via: string[];
  inFunctions: string[];
  depth: number;
}

/** Whether `name=value` sets a variable that changes which programs run. */
export function isSensitiveAssignment(assignment: string): boolean {
  return SENSITIVE_VARIABLES.test(assignment.split("=")[0] ?? "");
}

class Analyzer {
  readonly commands: SimpleCommand[] = [];
  readonly redirections: Redirection[] = [];
  readonly flags = new Map<AnalysisFlag, string>();
  /** Each function defined, with its body's text (trees are freed before the fork-bomb check). */
  readonly #functions = new Map<string, string>();
  /** What the tree being judged needs read otherwise than the grammar built it; node ids are the tree's own. */
  #fixes = treeFixes();
  ok = true;

  /** @param parser undefined while judging plain words: text to parse in them ends that ({@link NeedsGrammar}). */
  constructor(
    readonly parser: Parser | undefined,
    readonly options: AnalyzeOptions,
  ) {}

  flag(flag: AnalysisFlag, reason: string): void {
    if (!this.flags.has(flag)) this.flags.set(flag, reason);
  }

  /**
   * tree-sitter-bash reads a `0` right before a redirection (`0</dev/null rm -rf /`, `cat 0<f`) as a
   * word of the command, where bash reads digits written against `<` or `>` as the descriptor: the
   * command would be judged as one named `0`, and `rm` as its argument. Such words are noted here
   * and given to their redirection.
   */
  descriptorsAsWords(root: Node): void {
    for (const redirect of root.descendantsOfType("file_redirect")) {
      // `&>` takes no descriptor: digits before it stay a word (`echo 2&>f` prints 2).
      if (!redirect || redirect.childForFieldName("descriptor") || redirect.text.startsWith("&")) continue;
      const start = redirect.startIndex;
      const before = start > 0 ? root.descendantForIndex(start - 1, start) : null;
      // A whole word of the command only: in `2'3'0<f` the digits are part of a longer word.
      const parent = before?.parent;
      const whole =
        parent?.type === "command" ||
        parent?.type === "command_name" ||
        (parent?.type === "file_redirect" &&
          parent.namedChildren.some(
            (c) => c !== null && c.id !== before!.id && c.endIndex <= before!.startIndex && c.type !== "file_descriptor",
          ));
      if (
        before &&
        whole &&
        before.endIndex === start &&
        /^[0-9]+$/.test(before.text) &&
        (before.type === "number" || before.type === "word")
      ) {
        this.#fixes.descriptorOf.set(redirect.id, before.text);
        this.#fixes.descriptorWords.add(before.id);
      }
    }
  }

  /** Text bash would evaluate as arithmetic anywhere in a parsed script. */
  arithmetic(root: Node): void {
    const why = arithmeticInTree(root);
    if (why) this.flag("arithmetic", why);
  }

  get vars(): KnownVariables {
    return { HOME: this.options.home };
  }

  /** The variables whose values are known where `state` is: HOME, and PWD once the folder is known. */
  varsAt(state: State): KnownVariables {
    return { ...this.vars, ...(state.cwd ? { PWD: state.cwd } : {}) };
  }

  word(node: Node, state: State): Word {
    const w = resolveWord(node, (n) => this.substitution(n, state), this.varsAt(state));
    if (w.suspicious) {
      this.ok = false;
      this.flag("parse-error", "the parser and bash would read this command differently (a line break inside a word)");
    }
    return w;
  }

  /** `$(...)`, backticks, `<(...)`, `>(...)`: their commands run too. */
  substitution(node: Node, state: State): void {
    if (node.type === "command_substitution" && node.text.startsWith("`")) {
      // Inside backticks `\`` `\$` `\\` are escapes, so nested backticks only appear once they are undone.
      this.script(node.text.slice(1, -1).replace(/\\([$`\\])/g, "$1"), state, "`...`");
      return;
    }
    const label = node.type === "process_substitution" ? node.text.slice(0, 2) + "...)" : "$(...)";
    const inner: State = { ...state, via: [...state.via, label] };
    for (const child of node.namedChildren) if (child) this.statement(child, inner);
  }

  /**
   * Before a tree is walked: flags what of it cannot be trusted (`inside` names where it was found,
   * as " inside bash -c", or is empty), and notes where it must be read otherwise than built.
   */
  prepare(parsed: Parsed, inside: string): void {
    const root = parsed.tree.rootNode;
    const unreadable = root.hasError
      ? `the command${inside} is not valid bash`
      : parsed.skips
        ? `part of the command${inside} could not be read`
        : parsed.backquotes
          ? `the backquoted commands${inside} could not be told apart; write them as $(...)`
          : undefined;
    if (unreadable) {
      this.ok = false;
      this.flag("parse-error", unreadable);
    }
    this.descriptorsAsWords(root);
    this.arithmetic(root);
  }

  /** Parses a script found inside a string (`bash -c`, `eval`, `env -S`) and judges its commands. */
  script(source: string, state: State, label: string): void {
    if (state.depth >= MAX_DEPTH) {
      this.ok = false;
      this.flag("too-deep", "commands are nested too deeply to judge");
      return;
    }
    if (!this.parser) throw new NeedsGrammar();
    const parsed = parseLikeBash(this.parser, source);
    if (!parsed) {
      this.ok = false;
      this.flag("parse-error", `the command inside ${label} could not be parsed`);
      return;
    }
    const { tree } = parsed;
    // The inner tree's node ids may repeat those of trees already deleted: it gets fixes of its own.
    const outer = this.#fixes;
    this.#fixes = treeFixes();
    try {
      this.prepare(parsed, ` inside ${label}`);
      this.statement(tree.rootNode, { ...state, via: [...state.via, label], depth: state.depth + 1 });
    } finally {
      this.#fixes = outer;
      tree.delete();
    }
  }

  statement(node: Node, state: State): void {
    if (node.isError || node.isMissing) {
      this.ok = false;
      this.flag("parse-error", "the command is not valid bash");
    }
    const redirects = this.#fixes.redirectsOf.get(node.id);
    if (redirects) {
      // Opened as this part starts, where everything before it in the list has run (a `cd` among them).
      this.#fixes.redirectsOf.delete(node.id);
      const extra = redirects.flatMap((r) => this.redirect(r, state));
      if (node.type === "command") return this.command(node, state, extra);
      for (const e of extra) this.word(e, state);
    }
    switch (node.type) {
      case "comment":
        return;
      case "command":
        return this.command(node, state, []);
      case "redirected_statement":
        return this.redirectedStatement(node, state);
      case "file_redirect":
        // `$(<.env)`: bash reads the file itself, with no command around the redirect.
        for (const e of this.redirect(node, state)) this.word(e, state);
        return;
      case "subshell": {
        const inner = { ...state };
        for (const child of node.namedChildren) if (child) this.statement(child, inner);
        return;
      }
      case "function_definition":
        return this.functionDefinition(node, state);
      case "variable_assignment":
        this.assignment(node, state);
        return;
      case "variable_assignments":
        for (const child of node.namedChildren) if (child) this.assignment(child, state);
        return;
      case "declaration_command":
      case "unset_command":
        return this.declaration(node, state);
      case "test_command":
        // `[[ ... ]]` only tests; substitutions inside still run.
        findNested(node, (n) => this.substitution(n, state));
        return;
      case "for_statement": {
        for (const v of node.childrenForFieldName("value")) if (v) this.word(v, state);
        const body = node.childForFieldName("body");
        if (body) this.statement(body, state);
        return;
      }
      case "case_statement":
        return this.caseStatement(node, state);
      case "c_style_for_statement":
      case "arithmetic_expansion":
      case "binary_expression":
      case "unary_expression":
      case "parenthesized_expression":
      case "postfix_expression":
      case "ternary_expression":
        return this.arithmeticStatement(node, state);
      default:
        // pipeline, list, program, compound_statement, do_group, if/elif/else, while, negated_command, ...
        return this.children(node, state);
    }
  }

  redirectedStatement(node: Node, state: State): void {
    const body = node.childForFieldName("body");
    const redirects = node.childrenForFieldName("redirect").filter((r): r is Node => r !== null);
    // tree-sitter-bash hangs a redirection written after a list's or a pipeline's last part on the
    // whole of it (`cd /etc && echo x > passwd`); bash gives it to that part, run after the `cd`.
    const last = body ? lastPart(body) : undefined;
    if (body && last && last.id !== body.id) {
      this.#fixes.redirectsOf.set(last.id, redirects);
      return this.statement(body, state);
    }
    const extra: Node[] = [];
    for (const r of redirects) extra.push(...this.redirect(r, state));
    if (body?.type === "command") return this.command(body, state, extra);
    if (body) this.statement(body, state);
    // Words after a redirect belong to the command; without one they are still judged, and with
    // no command at all they are one: tree-sitter-bash took its name for a descriptor (`-j2>&2`).
    else if (extra.length > 0)
      return this.simple(
        extra.map((e) => this.word(e, state)),
        [],
        false,
        state,
      );
    for (const e of extra) this.word(e, state);
  }

  functionDefinition(node: Node, state: State): void {
    const name = node.childForFieldName("name")?.text ?? "";
    this.#functions.set(name, node.childForFieldName("body")?.text ?? "");
    this.flag("function", `it defines the function "${name}"`);
    const body = node.childForFieldName("body");
    if (body) this.statement(body, { ...state, inFunctions: [...state.inFunctions, name] });
  }

  declaration(node: Node, state: State): void {
    // `export`, `declare -p`, `readonly` alone print every variable (secrets included): a command like any other.
    const keyword = node.children[0]?.text ?? node.type;
    const words: Word[] = [literalWord(keyword)];
    for (const child of node.namedChildren) {
      if (!child) continue;
      words.push(child.type === "variable_assignment" ? this.assignment(child, state) : this.word(child, state));
    }
    this.simple(words, [], false, state);
  }

  caseStatement(node: Node, state: State): void {
    const value = node.childForFieldName("value");
    if (value) this.word(value, state);
    for (const item of node.namedChildren) {
      if (item?.type !== "case_item") continue;
      for (const child of item.namedChildren) {
        if (!child) continue;
        if (item.childrenForFieldName("value").some((v) => v?.id === child.id)) this.word(child, state);
        else this.statement(child, state);
      }
    }
  }

  /** Arithmetic runs nothing itself, but `$(...)` inside it does. */
  arithmeticStatement(node: Node, state: State): void {
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "do_group" || child.type === "compound_statement") this.statement(child, state);
      else findNested(child, (n) => this.substitution(n, state));
    }
  }

  /** Any other node: its words are judged as words, its statements as statements. */
  children(node: Node, state: State): void {
    let i = 0;
    for (const child of node.children) {
      const field = node.fieldNameForChild(i++);
      if (!child) continue;
      if (!child.isNamed) {
        if (child.type === "&") this.flag("background", "it starts a process in the background");
        if (child.type === "ERROR") {
          this.ok = false;
          this.flag("parse-error", "the command is not valid bash");
        }
        continue;
      }
      if (child.type === "file_redirect" || child.type === "heredoc_redirect" || child.type === "herestring_redirect") {
        for (const e of this.redirect(child, state)) this.word(e, state);
        continue;
      }
      if (isWordNode(child) && field !== "condition") {
        this.word(child, state);
        continue;
      }
      this.statement(child, state);
    }
  }

  /** `NAME=value`: judges the value's substitutions; returns the assignment as one word. */
  assignment(node: Node, state: State): Word {
    const name = node.childForFieldName("name")?.text ?? "";
    const valueNode = node.childForFieldName("value");
    const value = valueNode ? this.word(valueNode, state) : undefined;
    if (SENSITIVE_VARIABLES.test(name)) this.flag("sensitive-assignment", `it sets ${name}, which changes which programs run`);
    const op = node.text.slice(name.length).startsWith("+=") ? "+=" : "=";
    const text = `${name}${op}${value?.text ?? ""}`;
    return { text, dynamic: value?.dynamic ?? false, staticPrefix: text, glob: false, brace: false, tilde: false, raw: node.text };
  }

  /** Records a redirection; returns words the grammar hung on it that are really arguments. */
  redirect(node: Node, state: State): Node[] {
    if (node.type === "heredoc_redirect") {
      // An unquoted delimiter lets the body expand `$(...)`.
      findNested(node, (n) => this.substitution(n, state));
      for (const child of node.namedChildren) {
        if (child?.type === "file_redirect") this.redirect(child, state);
      }
      return [];
    }
    if (node.type === "herestring_redirect") {
      for (const child of node.namedChildren) if (child) this.word(child, state);
      return [];
    }
    const descriptor = node.childForFieldName("descriptor");
    const operator = node.children.find((c) => c && !c.isNamed)?.type ?? ">";
    // Every word after the operator: the grammar names no destination after `>&-`, where bash reads
    // what follows as words of the command (`cat 2>&- a=b`), and a `0` against the next `<` is that
    // redirection's descriptor (`>/dev/null 0<in`).
    const words = node.namedChildren.filter(
      (c): c is Node => c !== null && c.id !== descriptor?.id && !this.#fixes.descriptorWords.has(c.id),
    );
    const closes = operator.endsWith("-");
    const first = closes ? undefined : words[0];
    const rest = closes ? words : words.slice(1);
    if ((operator === ">&" || operator === "<&") && first?.type === "word" && /^-./.test(first.text)) {
      // Bash closes the descriptor and reads the rest as a word of the command (`>& -x` is `>&- x`).
      this.ok = false;
      this.flag(
        "parse-error",
        `"${operator} ${first.text}" closes a descriptor and passes the rest on; write "${operator}- ${first.text.slice(1)}"`,
      );
    }
    // tree-sitter-bash reads an option ending in a digit right before `>` (`sed -i2>x`) as the
    // descriptor; bash reads digits alone so, and anything else as one more word of the command.
    const digits = descriptor && /^[0-9]+$/.test(descriptor.text);
    const fd = digits ? descriptor.text : this.#fixes.descriptorOf.get(node.id);
    this.redirection(operator, fd, first ? this.word(first, state) : undefined, state);
    return descriptor && !digits ? [descriptor, ...rest] : rest;
  }

  /** Records a redirection: what it reads or writes, or nothing when it only duplicates or closes a descriptor. */
  redirection(operator: string, fd: string | undefined, target: Word | undefined, state: State): void {
    const duplicate = (operator === ">&" || operator === "<&") && target !== undefined && /^(\d+|-)$/.test(target.text);
    const closes = operator.endsWith("-");
    const write = !duplicate && !closes && operator.includes(">");
    const read = !duplicate && !closes && operator.startsWith("<");
    this.redirections.push({
      operator,
      ...(fd ? { fd } : {}),
      ...(target && !duplicate ? { target } : {}),
      write,
      read,
      cwd: state.cwd,
    });
  }

  command(node: Node, state: State, extra: Node[]): void {
    const assignments: Word[] = [];
    const words: Word[] = [];
    let i = 0;
    for (const child of node.children) {
      const field = node.fieldNameForChild(i++);
      if (!child) continue;
      const descriptors = this.#fixes.descriptorWords;
      if (child.type === "command_name" ? descriptors.has(child.namedChildren[0]?.id ?? -1) : descriptors.has(child.id)) continue;
      if (child.type === "variable_assignment") {
        assignments.push(this.assignment(child, state));
      } else if (child.type === "file_redirect" || child.type === "heredoc_redirect" || child.type === "herestring_redirect") {
        const more = this.redirect(child, state);
        // A word the grammar took for the descriptor (`-c2>&1 x`) stays where it was written.
        if (more[0]?.type === "file_descriptor") words.push(this.word(more.shift()!, state));
        extra.push(...more);
      } else if (child.type === "command_name") {
        const inner = child.namedChildren[0];
        if (inner) words.push(this.word(inner, state));
      } else if (field === "argument" && child.isNamed) {
        words.push(this.word(child, state));
      } else if (child.type === "ERROR") {
        this.ok = false;
        this.flag("parse-error", "the command is not valid bash");
      }
    }
    for (const e of extra) words.push(this.word(e, state));
    if (words.length === 0) return;
    // `{rm,-rf,x}` is `rm -rf x` to bash: expand braces before naming the command.
    const expanded: Word[] = [];
    for (const w of words) {
      if (!w.brace || w.dynamic) {
        expanded.push(w);
        continue;
      }
      const list = expandBraces(w.text);
      if (!list) {
        expanded.push({ ...w, dynamic: true });
        this.flag("dynamic", `"${w.raw}" expands to too many words to check`);
      } else for (const t of list) expanded.push({ ...w, text: t, staticPrefix: t, brace: false, glob: w.glob || /[*?[]/.test(t) });
    }
    words.splice(0, words.length, ...expanded);
    this.simple(
      words,
      assignments.map((a) => a.text),
      assignments.some((a) => a.dynamic),
      state,
    );
  }

  /** Judges one simple command: records it, follows wrappers, `sh -c`, `eval`, `find -exec`. */
  simple(words: Word[], assignments: string[], dynamicAssignment: boolean, state: State, forceDynamic = false): void {
    const [first, ...args] = words;
    if (!first) return;
    const dynamicName = first.dynamic;
    const name = dynamicName ? first.text : commandName(first.text);
    if (name === "coproc" && !dynamicName) {
      // tree-sitter-bash reads `coproc { rm -rf /; }` (or `coproc NAME { … }`) as words of a command
      // named coproc; bash runs the group. Its first command is judged as that, and the line asks.
      const brace = args.findIndex((a) => a.raw === "{");
      if (brace === 0 || brace === 1) {
        this.ok = false;
        this.flag("parse-error", "the grammar cannot read coproc with a { ... } group; run the group without coproc");
        return this.simple(args.slice(brace + 1), assignments, dynamicAssignment, state, forceDynamic);
      }
    }
    const dir = path.posix.dirname(first.text);
    const pathQualified = !dynamicName && first.text.includes("/") && !SYSTEM_DIRS.has(dir);
    const dynamic = forceDynamic || dynamicAssignment || words.some((w) => w.dynamic);
    const body = [name, ...args.map((a) => (a.dynamic ? a.text : shellQuote(a.text)))].join(" ");
    const prefix = assignments.map((a) => shellQuote(a)).join(" ");
    const text = prefix ? `${prefix} ${body}` : body;
    const cmd: SimpleCommand = {
      name,
      args,
      assignments,
      text,
      bare: body,
      dynamic,
      dynamicName,
      cwd: state.cwd,
      via: state.via,
      inFunctions: state.inFunctions,
    };
    if (pathQualified) cmd.written = [first.text, ...args.map((a) => (a.dynamic ? a.text : shellQuote(a.text)))].join(" ");
    if (dynamicName) this.flag("dynamic", `the command name "${first.raw}" is only known when it runs`);
    else if (dynamic) this.flag("dynamic", `part of "${truncate(text)}" is only known when it runs`);
    for (const a of assignments) {
      if (SENSITIVE_VARIABLES.test(a.split("=")[0] ?? ""))
        this.flag("sensitive-assignment", `it sets ${a.split("=")[0]}, which changes which programs run`);
    }

    const unwrapped = dynamicName ? ({ kind: "none" } as const) : unwrap(name, args);
    if (unwrapped.kind === "transparent" || unwrapped.kind === "opaque") {
      return this.wrapper(cmd, unwrapped, assignments, dynamicAssignment, state, forceDynamic);
    }
    this.commands.push(cmd);
    if (dynamicName) return;
    const arithmetic = arithmeticInCommand(name, args);
    if (arithmetic) this.flag("arithmetic", arithmetic);

    this.builtin(name, args, state);
  }

  /** `env X=1 cmd`, `sudo cmd`, `xargs cmd`, `timeout 5 cmd`: the wrapped command is judged too. */
  wrapper(
    cmd: SimpleCommand,
    unwrapped: Extract<ReturnType<typeof unwrap>, { kind: "transparent" | "opaque" }>,
    assignments: string[],
    dynamicAssignment: boolean,
    state: State,
    forceDynamic: boolean,
  ): void {
    const name = cmd.name;
    const via = [...state.via, name];
    if (unwrapped.kind === "opaque") this.commands.push(cmd);
    // Written as a redirection's target is, and judged the same way.
    for (const target of unwrapped.outputs) this.redirections.push({ operator: ">", target, write: true, read: false, cwd: state.cwd });
    if (unwrapped.chdir) this.cd(unwrapped.chdir, state);
    const unreadable = unwrapped.unreadableSplit;
    if (unreadable) {
      this.flag("dynamic", `the command ${name} -S "${truncate(unreadable.raw)}" runs is only known when it runs`);
      this.commands.push({ ...cmd, dynamic: true });
      forceDynamic = true;
    }
    if (name === "parallel" || name === "sem") return this.parallelCommands(unwrapped.inner, { ...state, via });
    const innerAssignments = [...assignments, ...unwrapped.assignments.map((a) => a.text)];
    if (unwrapped.inner.length > 0) {
      this.simple(
        unwrapped.inner,
        innerAssignments,
        dynamicAssignment || unwrapped.assignments.some((a) => a.dynamic),
        { ...state, via },
        forceDynamic || unwrapped.appendsArgs,
      );
    } else if (name === "xargs") {
      // xargs alone runs echo with its input.
      this.simple([literalWord("echo")], [], false, { ...state, via }, true);
    } else if (unwrapped.kind === "transparent" || name === "sudo") {
      // `env` alone prints the environment; `exec` alone only applies redirections.
      if (unwrapped.kind === "transparent" && !unreadable) this.commands.push(cmd);
    }
  }

  /**
   * GNU parallel (and its `sem`) runs its command through the shell, its words joined, with each
   * input added (`parallel 'rm -rf {}' ::: a` runs rm); with no command, each input is a command line
   * of its own: the words after `:::`, or lines read from its input or from the files after `::::`.
   */
  parallelCommands(inner: Word[], state: State): void {
    const marker = (w: Word) => /^::::?\+?$/.test(w.text);
    const first = inner.findIndex(marker);
    const template = first < 0 ? inner : inner.slice(0, first);
    if (template.length) {
      this.flag("dynamic", "parallel adds its inputs to the command it runs");
      this.script(template.map((w) => w.text).join(" "), state, "parallel");
      return;
    }
    let fromFiles = first < 0;
    for (const w of inner.slice(first)) {
      if (marker(w)) fromFiles = w.text.startsWith("::::");
      else if (!fromFiles) this.script(w.text, state, "parallel");
    }
    if (fromFiles) this.flag("dynamic", "parallel runs the command lines it reads, which are only known when it runs");
  }

  /** Commands that run other text as commands (eval, bash -c, ssh, trap...) or change the directory. */
  builtin(name: string, args: Word[], state: State): void {
    switch (name) {
      case "eval": {
        this.flag("eval", "it uses eval, which runs text as a command");
        const joined = args.map((a) => a.text).join(" ");
        if (args.some((a) => a.dynamic)) this.flag("dynamic", "eval runs text that is only known when it runs");
        this.script(joined, state, "eval");
        return;
      }
      case "source":
      case ".":
        this.flag("source", `it runs the commands in ${args[0]?.text ?? "a file"} (${name})`);
        return;
      case "cd":
        this.cd(
          args.find((a) => !/^-[LPe@]+$/.test(a.text)),
          state,
        );
        return;
      case "pushd":
      case "popd":
        state.cwd = undefined;
        this.flag("cwd-unknown", `${name} changes the directory in ways that are not followed`);
        return;
      case "find":
        this.findExec(args, state);
        return;
      case "fd":
      case "fdfind":
        this.fdExec(name, args, state);
        return;
      case "rg": {
        // `rg --pre CMD`: CMD runs for every file searched, with the file's path.
        const pre = args.findIndex((a) => a.text === "--pre" || a.text.startsWith("--pre="));
        const command =
          pre < 0 ? undefined : args[pre]!.text === "--pre" ? args[pre + 1] : { ...args[pre]!, text: args[pre]!.text.slice(6) };
        if (command) this.runs([command], state, "rg --pre", true);
        return;
      }
      case "watch": {
        // watch joins its command's words for `sh -c`, or with -x runs them as they are.
        const options = args.slice(0, operandsStart(args, { short: "nq", long: ["interval", "equexit"] }));
        const command = args.slice(options.length);
        if (!command.length) return;
        if (options.some((o) => /^(-[a-z]*x|--exec)$/.test(o.text))) this.runs(command, state, "watch");
        else this.script(command.map((a) => a.text).join(" "), state, "watch");
        return;
      }
      case "su":
      case "runuser":
      case "script":
        // Each reads its options as getopt_long does, anywhere before `--`: `-c CMD`, `-qcCMD`, `--command=CMD`, `--comm CMD`.
        for (const s of fileOptionValues(args, "c", name === "script" ? ["command"] : ["command", "session-command"])) {
          if (s.dynamic) this.flag("dynamic", `the command ${name} -c runs is only known when it runs`);
          this.script(s.text, state, `${name} -c`);
        }
        if (name === "script") this.scriptLogs(args, state);
        return;
      case "flock":
        this.flockCommand(args, state);
        return;
      case "gdb":
        this.gdbCommands(args, state);
        return;
      case "perf":
        this.perfCommand(args, state);
        return;
      case "entr":
        this.entrCommand(args, state);
        return;
      case "sg":
        this.sgCommand(args, state);
        return;
      case "ip":
        this.ipExec(args, state);
        return;
      case "tmux":
        this.tmuxCommands(args, state);
        return;
      case "screen":
        this.screenCommand(args, state);
        return;
      case "git":
        this.gitCommands(args, state);
        return;
      case "man":
        // The pager (-P) and the HTML browser (-H) are commands man runs through the shell.
        for (const command of fileOptionValues(args, "PH", ["pager", "html"])) this.script(command.text, state, "man -P");
        return;
      case "less":
        // `+CMD` runs CMD as a less command at start: `!` runs the rest through the shell.
        for (const a of args) {
          const shell = /^\+[^!]*!(.*)$/s.exec(a.text);
          if (shell) this.script(shell[1]!, state, "less +!");
        }
        return;
      case "ssh":
      case "scp":
      case "sftp":
        return this.sshRemote(name, args, state);
      case "alias":
        // `alias ls='rm -rf x'` runs its value wherever ls is used later.
        for (const a of args) {
          const eq = a.text.indexOf("=");
          if (eq > 0) this.script(a.text.slice(eq + 1), state, "alias");
        }
        return;
      case "hash": {
        // `hash -p PROGRAM NAME` makes NAME run PROGRAM from then on: `hash -p /bin/rm ls; ls -rf x` runs rm.
        const program = fileOptionValues(args, "p", [])[0];
        if (program) {
          this.flag("dynamic", `hash -p makes a name run ${truncate(program.text)} wherever it is used later`);
          this.runs([program], state, "hash -p");
        }
        return;
      }
      case "enable":
        if (fileOptionValues(args, "f", []).length) this.flag("source", "enable -f loads a builtin from a shared library");
        return;
      case "trap":
        if (args[0] && !args[0].text.startsWith("-")) this.script(args[0].text, state, "trap");
        return;
      case "mapfile":
      case "readarray":
        if (args.some((a) => a.text === "-C")) this.flag("dynamic", `${name} -C runs a callback given as text`);
        return;
      case "socat":
        // EXEC: and SYSTEM: addresses run a command (any case, options after a comma).
        for (const a of args) {
          const address = /^(?:exec|system):(.*?)(?:,[a-z-]+(?:=[^,]*)?)*$/is.exec(a.text);
          if (address) this.script(address[1]!, state, "socat");
        }
        return;
      case "psql":
      case "mysql":
      case "mariadb":
      case "sqlite3":
        this.databaseShell(name, args, state);
        return;
      case "docker":
      case "podman":
      case "nerdctl":
      case "docker-compose":
      case "podman-compose":
        this.containerCommand(name, args, state);
        return;
      case "kubectl":
      case "oc":
      case "lxc": {
        // `kubectl exec POD -- CMD`, `kubectl run NAME --image=X -- CMD`, `lxc exec C -- CMD`.
        const sub = args.find((a) => !a.text.startsWith("-"))?.text;
        const dashes = args.findIndex((a) => a.text === "--");
        if (sub && ["exec", "run", "debug"].includes(sub) && dashes >= 0) this.runs(args.slice(dashes + 1), state, `${name} ${sub}`);
        return;
      }
      case "bwrap": {
        // bubblewrap's options take a fixed number of words each; the command follows them (or a `--`).
        let at = 0;
        while (at < args.length && args[at]!.text.startsWith("--") && args[at]!.text !== "--") at += 1 + (BWRAP_ARITY[args[at]!.text] ?? 0);
        if (args[at]?.text === "--") at++;
        this.runs(args.slice(at), state, "bwrap");
        return;
      }
      case "pee":
        // moreutils' pee pipes its input to each argument, run by the shell.
        for (const a of args) if (!a.text.startsWith("-")) this.script(a.text, state, "pee");
        return;
      case "tar": {
        // Old-style options (`tar cIf PROG x.tar dir`): each letter that takes a value takes the next word, in order.
        const cluster = args[0] && /^[A-Za-z]+$/.test(args[0].text) ? args[0].text : "";
        [...cluster.matchAll(/[bCfFgHIKLNTVX]/g)].forEach((letter, i) => {
          const value = args[i + 1];
          if (value && (letter[0] === "I" || letter[0] === "F")) this.script(value.text, state, "tar option");
        });
        this.optionScripts(args, COMMAND_OPTIONS[name]!, "tar option", state);
        return;
      }
      case "zip": {
        // `zip -T -TT CMD` tests the archive with CMD.
        const at = args.findIndex((a) => a.text === "-TT");
        const command = at >= 0 ? args[at + 1]?.text : fileOptionValues(args, "", ["unzip-command"])[0]?.text;
        if (command) this.script(command, state, "zip -TT");
        return;
      }
      default:
        if (Object.hasOwn(COMMAND_OPTIONS, name)) return this.optionScripts(args, COMMAND_OPTIONS[name]!, `${name} option`, state);
        if (SHELLS.has(name)) {
          for (const script of shellScriptArg(name, args).scripts) {
            if (script.dynamic) this.flag("dynamic", `the script ${name} -c runs is only known when it runs`);
            this.script(script.text, state, `${name} -c`);
          }
        }
    }
  }

  /**
   * The files util-linux `script` writes the session to, judged as redirection targets are: its
   * operand (`typescript` when no file is named), and the log files of -B, -I, -O, -T and --timing.
   */
  scriptLogs(args: Word[], state: State): void {
    const logs = fileOptionValues(args, "BIOT", ["log-io", "log-in", "log-out", "log-timing"]);
    for (const a of args) {
      if (a.text === "--") break;
      const timing = /^--timing=(.+)$/s.exec(a.text) ?? /^-[aefq]*t(.+)$/s.exec(a.text);
      if (timing) logs.push({ ...a, text: timing[1]! });
    }
    const valued = {
      short: "cEmoBIOT",
      long: ["command", "echo", "logging-format", "output-limit", "log-io", "log-in", "log-out", "log-timing"],
    };
    const file = splitOptions(args, valued).operands[0];
    if (file) logs.push(file);
    else if (logs.length === 0) logs.push(literalWord("typescript"));
    for (const target of logs) this.redirections.push({ operator: ">", target, write: true, read: false, cwd: state.cwd });
  }

  /**
   * The remote command of `ssh host cmd` is a shell string too; deny rules see through it like
   * `bash -c`. So are the commands ssh runs here, given with -o (ProxyCommand, LocalCommand,
   * KnownHostsCommand), as scp's and sftp's are (and the program scp -S runs instead of ssh).
   */
  sshRemote(name: string, args: Word[], state: State): void {
    const config = fileOptionValues(args, "F", [])[0];
    if (config && config.text !== "/dev/null")
      this.flag("source", `${name} -F reads ${truncate(config.text)}, whose ProxyCommand or LocalCommand it may run`);
    for (const option of fileOptionValues(args, "o", [])) {
      const local = /^\s*(?:ProxyCommand|LocalCommand|KnownHostsCommand)\s*(?:=\s*|\s)(.*)$/is.exec(option.text);
      if (local) this.script(local[1]!, state, `${name} -o`);
    }
    if (name !== "ssh") {
      for (const program of fileOptionValues(args, "S", [])) this.runs([program], state, `${name} -S`);
      return;
    }
    const start = operandsStart(args, { short: "bcDEeFIiJLlmOopQRSWw", long: [] });
    const remote = args.slice(start + 1);
    if (remote.length) this.script(remote.map((a) => a.text).join(" "), state, "ssh");
  }

  /** The shell commands given as values of the options `specs` name (see {@link COMMAND_OPTIONS}), each judged as a script. */
  optionScripts(args: Word[], specs: readonly CommandOption[], label: string, state: State): void {
    for (const { short, long, within } of specs) {
      for (const value of fileOptionValues(args, short, long)) {
        const command = within ? within.exec(value.text)?.[1] : value.text;
        if (command) this.script(command, state, label);
      }
    }
  }

  /**
   * The command a container runs: `docker run [options] IMAGE CMD...`, `exec CONTAINER CMD...`,
   * `compose run|exec SERVICE CMD...` (podman and nerdctl alike). Their options are too many, and
   * change too often, to read as they do, so every way the words could split is judged: each run of
   * words from one that is no option (`docker run -e X img rm -rf /` gives `X img rm …`, `img rm …`,
   * `rm -rf /`). The real command is among them for deny rules to find; the rest is only asked about.
   */
  containerCommand(name: string, args: Word[], state: State): void {
    let words = args.filter((a) => a.text !== "--");
    const next = () => {
      const at = words.findIndex((a) => !a.text.startsWith("-"));
      const sub = at < 0 ? undefined : words[at]!.text;
      words = at < 0 ? [] : words.slice(at + 1);
      return sub;
    };
    let sub = next();
    if (sub === "container" || (sub === "compose" && !name.endsWith("-compose"))) sub = next();
    if (name.endsWith("-compose") && sub !== "run" && sub !== "exec") return;
    if (sub !== "run" && sub !== "exec" && sub !== "create") return;
    words.forEach((w, i) => {
      // Not from an option, nor from what only an option's value or an image looks like (`X=1`, `/:/host`, `node:20`, `$PWD`).
      if (w.text.startsWith("-") || w.dynamic || /[=:]/.test(w.text) || commandName(w.text) === "") return;
      this.runs(words.slice(i), state, `${name} ${sub}`);
    });
  }

  /**
   * Database shells run shell commands their own commands ask for: psql's `\\! CMD` (in -c), mysql's
   * `system CMD` or `\\! CMD` (in -e), sqlite3's `.shell CMD` / `.system CMD` (an argument or -cmd).
   * SQL that pipes to a program (`\\o |`, `COPY ... PROGRAM`) asks.
   */
  databaseShell(name: string, args: Word[], state: State): void {
    const given =
      name === "sqlite3"
        ? args.filter((a) => !a.text.startsWith("-"))
        : fileOptionValues(args, name === "psql" ? "c" : "e", name === "psql" ? ["command"] : ["execute"]);
    for (const sql of given) {
      const shell = /(?:^|[\s;])(?:\\!|system\s|\.shell\s|\.system\s)(.*)$/is.exec(sql.text);
      if (shell) this.script(shell[1]!, state, `${name} shell escape`);
      else if (/\\[ogw]\s*\||\bprogram\b|\.(?:output|once)\s+\|/i.test(sql.text))
        this.flag("dynamic", `${name} runs a program its SQL names, which cannot be checked`);
    }
  }

  /** `inner` run by the command `label` names, judged as a command of its own. */
  runs(inner: Word[], state: State, label: string, dynamicArgs = false): void {
    if (inner.length) this.simple(inner, [], false, { ...state, via: [...state.via, label] }, dynamicArgs);
  }

  /**
   * gdb runs the program after `--args` (with its arguments), the shell commands its `-ex`
   * commands give (`shell CMD`, `!CMD`), and the commands in a file given with -x (which asks);
   * gdb reads its long options with one dash or two.
   */
  gdbCommands(args: Word[], state: State): void {
    for (let i = 0; i < args.length; i++) {
      const t = args[i]!.text;
      if (t === "--args") return this.runs(args.slice(i + 1), state, "gdb --args");
      if (/^--?(x|command|ix|init-command)(=|$)/.test(t)) this.flag("source", "gdb runs the commands in a file (-x)");
      const ex = /^--?(?:ex|iex|eval-command|init-eval-command)(?:=(.*))?$/s.exec(t);
      if (!ex) continue;
      const value = ex[1] !== undefined ? { ...args[i]!, text: ex[1] } : args[++i];
      const shell = value && /^\s*(?:shell\s|!)(.*)$/s.exec(value.text);
      if (shell) this.script(shell[1]!, state, "gdb shell");
    }
  }

  /**
   * `perf stat|record|trace|ftrace [options] CMD...` and `perf sched|mem|lock|... record CMD...`
   * run CMD; `--pre`/`--post` give shell commands run around it.
   */
  perfCommand(args: Word[], state: State): void {
    let at = operandsStart(args);
    const sub = args[at]?.text;
    if (sub && ["sched", "mem", "c2c", "lock", "kmem", "kwork", "timechart", "kvm", "trace"].includes(sub)) {
      const next = at + 1 + operandsStart(args.slice(at + 1));
      if (args[next]?.text === "record") at = next;
      else if (sub !== "trace") return;
    } else if (sub !== "stat" && sub !== "record" && sub !== "ftrace") return;
    const rest = args.slice(at + 1);
    for (const hook of fileOptionValues(rest, "", ["pre", "post"])) this.script(hook.text, state, "perf --pre");
    const valued = {
      short: "eoxrCptGMDuFcmjk",
      long: [
        ...["event", "output", "field-separator", "repeat", "interval-print", "cpu", "pid", "tid", "cgroup", "metrics"],
        ...["delay", "uid", "freq", "count", "mmap-pages", "branch-filter", "clockid", "call-graph", "filter", "log-fd"],
        ...["pre", "post", "duration", "expr", "tracer", "graph-funcs", "nograph-funcs", "func-opts", "graph-opts"],
      ],
    };
    this.runs(rest.slice(operandsStart(rest, valued)), state, `perf ${sub}`);
  }

  /** `entr [-acdnprsz] CMD...` runs CMD when files change; with -s, CMD is a script for the shell. `/_` is the changed file. */
  entrCommand(args: Word[], state: State): void {
    const start = operandsStart(args);
    const inner = args.slice(start);
    if (!inner.length) return;
    if (args.slice(0, start).some((a) => /^-[a-z]*s/.test(a.text))) this.script(inner[0]!.text, state, "entr -s");
    else
      this.runs(
        inner,
        state,
        "entr",
        inner.some((a) => a.text === "/_"),
      );
  }

  /** `sg [-] GROUP [-c] COMMAND`: the shell runs COMMAND with GROUP as the group. */
  sgCommand(args: Word[], state: State): void {
    let k = args[0]?.text === "-" ? 1 : 0;
    k++; // the group
    if (args[k]?.text === "-c") k++;
    const command = args.slice(k);
    if (command.length) this.script(command.map((a) => a.text).join(" "), state, "sg");
  }

  /** `ip netns exec NAME CMD...`, `ip vrf exec NAME CMD...` (objects and verbs as ip abbreviates them); with `-all`, no NAME. */
  ipExec(args: Word[], state: State): void {
    const all = args.some((a) => a.text.length > 1 && "-all".startsWith(a.text) && a.text !== "-");
    for (let i = 0; i + 1 < args.length; i++) {
      const object = args[i]!.text;
      const verb = args[i + 1]!.text;
      const netns = object.length >= 3 && "netns".startsWith(object);
      if (!(netns || object === "vrf") || !verb || !"exec".startsWith(verb)) continue;
      return this.runs(args.slice(i + (all && netns ? 2 : 3)), state, `ip ${object} exec`);
    }
  }

  /**
   * tmux runs shell commands: `tmux -c CMD`, and those its commands are given, `new-session CMD`,
   * `split-window CMD`, `run-shell CMD` and kin (one word is a script for the shell, more run as
   * they are). Commands are chained by `;` words. Keys sent to a pane may run anything.
   */
  tmuxCommands(args: Word[], state: State): void {
    const start = operandsStart(args, { short: "cfLST", long: [] });
    for (const c of fileOptionValues(args.slice(0, start), "c", [])) this.script(c.text, state, "tmux -c");
    const rest = args.slice(start);
    for (let from = 0; from < rest.length;) {
      let to = rest.findIndex((a, i) => i >= from && a.text === ";");
      if (to < 0) to = rest.length;
      const [command, ...options] = rest.slice(from, to);
      from = to + 1;
      const name = command?.text ?? "";
      const kind = TMUX_COMMANDS.get(name);
      if (kind === "keys") {
        this.flag("dynamic", `tmux ${name} types keys into a terminal, which may run any command`);
        continue;
      }
      if (kind === "source") {
        this.flag("source", `tmux ${name} runs the commands in a file`);
        continue;
      }
      if (!kind) continue;
      const operands = options.slice(operandsStart(options, { short: kind.valued, long: [] }));
      if (name === "if-shell" || name === "if") {
        if (operands[0]) this.script(operands[0].text, state, `tmux ${name}`);
        if (operands.length > 1) this.flag("dynamic", `tmux ${name} runs tmux commands given as text`);
      } else if (operands.length === 1 || (kind.oneScript && operands[0])) this.script(operands[0]!.text, state, `tmux ${name}`);
      else this.runs(operands, state, `tmux ${name}`);
    }
  }

  /** `screen [options] CMD...` runs CMD in a new window; `-X` sends screen commands (`stuff` types keys). */
  screenCommand(args: Word[], state: State): void {
    let i = 0;
    for (; i < args.length; i++) {
      const t = args[i]!.text;
      if (t === "--") {
        i++;
        break;
      }
      if (!t.startsWith("-") || t.length < 2) break;
      if (/^-[a-zA-Z]*X$/.test(t)) {
        this.flag("dynamic", "screen -X sends commands to a session, which may type any command");
        return;
      }
      if (t === "-Logfile" || /^-[a-zA-Z]*[cehpsStT]$/.test(t)) i++;
    }
    this.runs(args.slice(i), state, "screen");
  }

  /**
   * The commands git runs from its arguments: shell commands given as option values (`grep -O`,
   * `rebase --exec`, `difftool --extcmd`, `filter-branch`'s filters, a remote's `--upload-pack`),
   * `submodule foreach CMD` and `bisect run CMD ARGS...`.
   */
  gitCommands(args: Word[], state: State): void {
    const { sub, rest } = gitSubcommand({ args });
    if (!sub) return;
    if (sub === "bisect" && rest[0]?.text === "run") return this.runs(rest.slice(1), state, "git bisect run");
    if (sub === "submodule") {
      const foreach = rest.findIndex((a) => a.text === "foreach");
      const command = foreach < 0 ? [] : rest.slice(foreach + 1).filter((a) => a.text !== "--recursive" && a.text !== "--");
      if (command.length) this.script(command.map((a) => a.text).join(" "), state, "git submodule foreach");
      return;
    }
    // Its own entries only: `git constructor --x` is no subcommand of the table.
    if (!Object.hasOwn(GIT_COMMAND_OPTIONS, sub)) return;
    this.optionScripts(rest, [GIT_COMMAND_OPTIONS[sub]!], `git ${sub}`, state);
    if (sub === "grep") {
      // -O takes its pager only glued on (`-Oless`); alone it opens the default pager.
      for (const a of rest) {
        if (a.text === "--") break;
        const glued = /^-(?![A-Za-z]*[ABCefm][A-Za-z]*O)[A-Za-z]*O(.+)$/s.exec(a.text);
        if (glued) this.script(glued[1]!, state, "git grep -O");
      }
    }
  }

  /** `find -exec CMD {} ;` runs CMD for every file found. */
  findExec(args: Word[], state: State): void {
    for (let i = 0; i < args.length; i++) {
      const t = args[i]!.text;
      if (t !== "-exec" && t !== "-execdir" && t !== "-ok" && t !== "-okdir") continue;
      const inner: Word[] = [];
      let j = i + 1;
      for (; j < args.length; j++) {
        const a = args[j]!.text;
        if (a === ";" || a === "+") break;
        inner.push(a === "{}" ? { ...args[j]!, dynamic: true, text: "{}" } : args[j]!);
      }
      this.runs(inner, state, `find ${t}`, true);
      i = j;
    }
  }

  /**
   * `flock [options] FILE COMMAND ARGS...` or `flock [options] FILE -c COMMAND_LINE`: the command
   * runs once the lock is taken. flock reads -c only right after FILE; anywhere else it is the
   * command's own (`flock l git -c core.pager=x log` runs git).
   */
  flockCommand(args: Word[], state: State): void {
    let k = 0;
    for (; k < args.length; k++) {
      const t = args[k]!.text;
      if (t === "--") {
        k++;
        break;
      }
      if (!t.startsWith("-") || t === "-") break;
      if (/^(-w|--wait|--timeout|-E|--conflict-exit-code)$/.test(t)) k++;
    }
    const command = args.slice(k + 1);
    if (command[0]?.text === "-c" || command[0]?.text === "--command") {
      if (command[1]) this.script(command[1].text, state, "flock -c");
    } else this.runs(command, state, "flock");
  }

  /**
   * `fd PATTERN -x CMD ARGS...` (`--exec`, `-X`, `--exec-batch`): CMD runs for the files found, and
   * all that follows, up to a `;`, is its. The command may be written with the option, as its
   * parser allows: `--exec=rm`, `-xrm`, `-Hxrm`; in a cluster, an x after an option that takes a
   * value is that value (`-tx`, executables).
   */
  fdExec(name: string, args: Word[], state: State): void {
    for (let at = 0; at < args.length; at++) {
      const t = args[at]!.text;
      if (t === "--") return;
      const option = /^(--exec|--exec-batch)(?:=(.*))?$/s.exec(t) ?? /^(-[A-Za-z0-9]*?[xX])(.*)$/s.exec(t);
      if (!option || (!t.startsWith("--") && /[CEScdejot]/.test(option[1]!.slice(1, -1)))) continue;
      const end = args.findIndex((a, i) => i > at && a.text === ";");
      const inner = args.slice(at + 1, end < 0 ? undefined : end);
      if (option[2]) inner.unshift({ ...args[at]!, text: option[2] });
      this.runs(inner, state, `${name} ${option[1]}`, true);
      return;
    }
  }

  cd(target: Word | undefined, state: State): void {
    if (!target) {
      state.cwd = this.options.home;
      return;
    }
    if (target.dynamic || target.glob || target.text === "-") {
      state.cwd = undefined;
      this.flag("cwd-unknown", "it changes to a directory that is only known when it runs");
      return;
    }
    const t = expandTilde(target.text, this.options.home, state.cwd);
    state.cwd = state.cwd === undefined && !t.startsWith("/") ? undefined : path.resolve(state.cwd ?? "/", t);
  }

  /** Fork bombs: a function that calls itself in a pipeline or in the background. */
  checkForkBombs(): void {
    for (const [name, body] of this.#functions) {
      const recursive = this.commands.some((c) => c.name === name && c.inFunctions.includes(name));
      if (recursive && /[|&]/.test(body)) {
        this.flag("fork-bomb", `the function "${name}" calls itself in a pipeline or in the background (a fork bomb)`);
      }
    }
  }
}

/**
 * tree-sitter-bash reads a line that starts with a backslash (`ls<newline>\\rm x`) as more
 * arguments of the line before; bash reads a new command. A blank before the backslash means the
 * same to bash and makes the grammar agree. Quoted text gains a blank too, which changes no
 * command the analysis finds.
 */
function forParser(source: string): string {
  return source.replace(/(^|[^\\])((?:\r?\n)+)(?=\\)/g, "$1$2 ");
}

/** Nodes whose text keeps `\\<newline>` as written (or where bash does not join lines). */
const LITERAL_NODES = new Set([
  "comment",
  "heredoc_body",
  "heredoc_content",
  "raw_string",
  "string",
  "string_content",
  "ansi_c_string",
  "translated_string",
]);

/**
 * Parses as bash reads: bash removes `\\<newline>` before splitting words (`r\\<newline>m` is
 * `rm`), but the grammar treats it as a blank. Continuations outside quotes, comments and
 * here-documents are removed and the text parsed again.
 */
function parseLikeBash(parser: Parser, source: string): Parsed | null {
  const text = forParser(source);
  const tree = parser.parse(text);
  if (!tree) return null;
  if (!text.includes("\\\n")) return checked(text, tree);
  const cuts: number[] = [];
  for (let i = text.indexOf("\\\n"); i !== -1; i = text.indexOf("\\\n", i + 2)) {
    let backslashes = 0;
    for (let j = i - 1; j >= 0 && text[j] === "\\"; j--) backslashes++;
    if (backslashes % 2 === 1) continue; // `\\\\<newline>`: an escaped backslash, then a real newline
    let node: Node | null = tree.rootNode.descendantForIndex(i, i + 1);
    // The nearest enclosing context decides: `$(...)` starts a fresh one even inside quotes.
    let literal = false;
    for (; node; node = node.parent) {
      if (node.type === "command_substitution" || node.type === "process_substitution") break;
      if (LITERAL_NODES.has(node.type)) {
        literal = true;
        break;
      }
    }
    if (!literal) cuts.push(i);
  }
  if (cuts.length === 0) return checked(text, tree);
  tree.delete();
  let joined = "";
  let from = 0;
  for (const c of cuts) {
    joined += text.slice(from, c);
    from = c + 2;
  }
  const again = forParser(joined + text.slice(from));
  const reparsed = parser.parse(again);
  return reparsed ? checked(again, reparsed) : null;
}

/** `tree`, parsed from `text`, with what of it cannot be trusted. */
function checked(text: string, tree: Tree): Parsed {
  return { tree, skips: skipsText(text, tree) || splitsWords(text, tree), backquotes: pairsBackquotesWrongly(tree) };
}

/** A parse, whether the grammar left text of it out of every node or split a word, and whether it paired backquotes wrongly. */
interface Parsed {
  tree: Tree;
  skips: boolean;
  backquotes: boolean;
}

/**
 * Whether the grammar split a word at a `$` it could not read: in `x$A$B-c` it ends the word at
 * the second `$` and starts another (`x$A`, `B-c`), where bash reads one word.
 */
function splitsWords(text: string, tree: Tree): boolean {
  for (const node of tree.rootNode.descendantsOfType("concatenation")) {
    const last = node?.lastChild;
    // The word goes on right after the `$` the grammar stopped at: nothing bash would end a word with.
    if (last && !last.isNamed && last.type === "$" && /[^\s;&|()<>]/.test(text[node!.endIndex] ?? " ")) return true;
  }
  return false;
}

/**
 * Whether the grammar read two backquoted commands as one: `` echo `a` `b` `` (or with a line
 * between them) becomes one substitution of "a` `b", so `b` is never judged as a command. Inside
 * backquotes bash only nests escaped ones (`` \` ``); an unescaped one inside means they were paired
 * wrongly.
 */
function pairsBackquotesWrongly(tree: Tree): boolean {
  for (const node of tree.rootNode.descendantsOfType("command_substitution")) {
    const text = node?.text ?? "";
    if (!text.startsWith("`")) continue;
    for (let i = 1; i < text.length - 1; i++) {
      if (text[i] === "\\") i++;
      else if (text[i] === "`") return true;
    }
  }
  return false;
}

/** Nodes whose text is the body of a here-document: what their children leave out is the document's own text. */
const OPAQUE_NODES = new Set(["heredoc_body"]);

/**
 * Whether some character other than a blank or a line continuation lies outside every leaf of the
 * tree: tree-sitter-bash drops a lone `-` before a redirection (`ls - 2>&1` has no `-`, and in
 * `- 2>&1` the command itself is gone), where bash reads every such character as part of something.
 */
function skipsText(text: string, tree: Tree): boolean {
  const cursor = tree.walk();
  const blank = (from: number, to: number) => /^(?:[ \t\r\n]|\\\n)*$/.test(text.slice(from, to));
  let at = 0;
  try {
    for (;;) {
      if (!OPAQUE_NODES.has(cursor.nodeType) && cursor.gotoFirstChild()) continue;
      if (cursor.startIndex > at && !blank(at, cursor.startIndex)) return true;
      at = Math.max(at, cursor.endIndex);
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return !blank(at, text.length);
    }
  } finally {
    cursor.delete();
  }
}

function isWordNode(n: Node): boolean {
  return [
    "word",
    "string",
    "raw_string",
    "ansi_c_string",
    "concatenation",
    "simple_expansion",
    "expansion",
    "command_substitution",
    "process_substitution",
    "number",
    "translated_string",
    "arithmetic_expansion",
    "brace_expression",
  ].includes(n.type);
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** `~` and `~/x` to the home folder; `~user` stays as written (unknown). */
export function expandTilde(text: string, home: string, cwd?: string): string {
  if (text === "~") return home;
  if (text.startsWith("~/")) return path.join(home, text.slice(2));
  // `~+` is bash's $PWD: `cat ~+/.env` names .env as `cat ./.env` does.
  if (cwd !== undefined && (text === "~+" || text.startsWith("~+/"))) return path.join(cwd, text.slice(2));
  return text;
}

/** The command's name whatever path it was called by: `/usr/bin/rm` and `./rm` → `rm`. */
export function commandName(text: string): string {
  const base = text.includes("/") ? path.posix.basename(text) : text;
  return base;
}

/**
 * Where the grammar's tree and bash part ways, by node id: descriptors it read as words (`0>f`, by
 * their redirection's id, and the words' own ids), and redirections it hung on a whole list (by the
 * id of the part bash gives them to).
 */
function treeFixes() {
  return { descriptorOf: new Map<number, string>(), descriptorWords: new Set<number>(), redirectsOf: new Map<number, Node[]>() };
}

/** The part of a list or pipeline (or of a `!` before one) that runs last. */
function lastPart(node: Node): Node | undefined {
  let part: Node | undefined = node;
  while (part && (part.type === "list" || part.type === "pipeline" || part.type === "negated_command")) {
    const children: Node[] = part.namedChildren.filter((c): c is Node => c !== null && c.type !== "comment");
    part = children.at(-1);
  }
  return part;
}

/** Plain words held text to run (`bash -c ls`, `eval ls`): judging it takes the grammar after all. */
class NeedsGrammar extends Error {}

/**
 * First words the grammar reads as more than a command's name: keywords, and the builtins it gives
 * nodes of their own (`export PATH=x` is a declaration, whose assignments are judged as such).
 */
const SYNTAX_FIRST = new Set(
  (
    "if then else elif fi case esac for select while until do done in function time coproc " +
    "declare typeset export readonly local unset unsetenv"
  ).split(" "),
);

/**
 * A command line of plain commands, judged without the grammar: bash only splits it on blanks, its
 * operators (`|`, `&&`, `||`, `;`) and redirections, so its simple commands are those words and
 * redirections, as the grammar would have found them, judged in order with one state as the
 * grammar's walk does. Loading the grammar
 * and compiling its parser (the WebAssembly of a lexer for all of bash) is most of a process's
 * first shell call, and most commands a model runs are like this (`ls -la`, `git status`,
 * `grep -rn 'TODO' src | head`, `cd app && npm test`). Undefined when a command's first word is
 * syntax or a command holds a script of its own.
 */
function analyzePlain(source: string, options: AnalyzeOptions): CommandAnalysis | undefined {
  const commands = plainCommands(source);
  if (!commands || commands.some((c) => SYNTAX_FIRST.has(c.words[0]!.text))) return undefined;
  const analyzer = new Analyzer(undefined, options);
  const state: State = { cwd: options.cwd, via: [], inFunctions: [], depth: 0 };
  try {
    for (const { words, redirects } of commands) {
      // The grammar's walk records a command's redirections before judging the command.
      const vars = analyzer.varsAt(state);
      for (const r of redirects) analyzer.redirection(r.operator, r.fd, plainWord(r.target, vars), state);
      analyzer.simple(
        words.map((w) => plainWord(w, vars)),
        [],
        false,
        state,
      );
    }
  } catch (err) {
    if (err instanceof NeedsGrammar) return undefined;
    throw err;
  }
  return { source, ok: analyzer.ok, commands: analyzer.commands, redirections: analyzer.redirections, flags: analyzer.flags };
}

/** A plain word as the grammar's reading resolves it: quoted or not, it means only its text. */
function plainWord(word: PlainWord, vars: KnownVariables): Word {
  const w: Word = { ...literalWord(""), staticPrefix: "", raw: word.raw };
  for (const part of word.parts) {
    const known = typeof part === "string" ? part : Object.hasOwn(vars, part.name) ? vars[part.name as keyof KnownVariables] : undefined;
    if (known === undefined) w.dynamic = true;
    else if (!w.dynamic) w.staticPrefix += known;
    w.text += known ?? (part as PlainVariable).written;
  }
  return w;
}

/**
 * Parses a command line with the bash grammar and lists what it would run: every simple command
 * (inside `;`, `&&`, `||`, pipes, `$(...)`, backticks, process substitutions, `bash -c`, `eval`,
 * wrappers and `find -exec`), every redirection, and anything that cannot be known statically.
 * Pure: nothing runs and nothing on disk is read.
 */
export async function analyzeCommand(source: string, options: AnalyzeOptions): Promise<CommandAnalysis> {
  const plain = analyzePlain(source, options);
  if (plain) return plain;
  const parser = await bashParser();
  const analyzer = new Analyzer(parser, options);
  const root: State = { cwd: options.cwd, via: [], inFunctions: [], depth: 0 };
  if (source.includes("\0")) {
    analyzer.ok = false;
    analyzer.flag("parse-error", "the command contains a null byte");
  }
  const parsed = parseLikeBash(parser, source);
  if (!parsed) {
    analyzer.ok = false;
    analyzer.flag("parse-error", "the command could not be parsed");
  } else {
    const { tree } = parsed;
    try {
      analyzer.prepare(parsed, "");
      analyzer.statement(tree.rootNode, root);
    } catch (err) {
      // Nesting deep enough to exhaust the stack: judged as unreadable, never as harmless.
      if (!(err instanceof RangeError)) throw err;
      analyzer.ok = false;
      analyzer.flag("too-deep", "commands are nested too deeply to judge");
    } finally {
      tree.delete();
    }
  }
  analyzer.checkForkBombs();
  return { source, ok: analyzer.ok, commands: analyzer.commands, redirections: analyzer.redirections, flags: analyzer.flags };
}
