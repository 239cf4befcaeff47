import picomatch from "picomatch";

/** One compiled line of an ignore file. */
interface IgnoreRule {
  match: (path: string) => boolean;
  /** A line without a slash matches a name at any depth: it is tested against the last segment only. */
  byName: boolean;
  /** `!pattern`: re-includes what an earlier line excluded. */
  whitelist: boolean;
  /** `pattern/`: applies to directories only. */
  onlyDir: boolean;
}

const GLOB_OPTIONS: picomatch.PicomatchOptions = {
  dot: true,
  // gitignore (and ripgrep's globset) know nothing of extglobs or leading-! negation here.
  noextglob: true,
  nonegate: true,
};

/**
 * The rules of one ignore file (.gitignore, .ignore, .rgignore), compiled the way ripgrep's
 * `ignore` crate compiles them: a line without an inner slash matches a name at any depth, a
 * leading or inner slash anchors it to the file's directory, a trailing slash limits it to
 * directories, `dir/**` matches what is inside, and the last matching line wins. Globs are
 * picomatch's; paths are tested one at a time, without looking at their parents (a
 * walker prunes ignored directories itself, and a directory searched explicitly must not be
 * ignored because an ancestor is).
 */
export class IgnoreFile {
  readonly #rules: IgnoreRule[] = [];

  constructor(text: string) {
    for (const raw of text.split(/\r?\n/)) {
      const rule = compileLine(raw);
      if (rule) this.#rules.push(rule);
    }
  }

  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /**
   * `true` ignored, `false` re-included (by a `!` line), `undefined` no line matched. The path is
   * `place + name`, "/"-separated and relative to the ignore file's directory: `place` is the
   * folder holding `name` ("" or ending in "/"), joined only when a line needs the whole path.
   */
  decide(name: string, place: string, isDir: boolean): boolean | undefined {
    let relative: string | undefined;
    for (let i = this.#rules.length - 1; i >= 0; i--) {
      const rule = this.#rules[i]!;
      if (rule.onlyDir && !isDir) continue;
      if (rule.match(rule.byName ? name : (relative ??= place + name))) return !rule.whitelist;
    }
    return undefined;
  }
}

function compileLine(raw: string): IgnoreRule | undefined {
  let line = raw;
  if (line.startsWith("#")) return undefined;
  // Trailing spaces are dropped unless escaped with a backslash.
  line = line.replace(/(?<!\\) +$/, "");
  if (line === "") return undefined;
  let whitelist = false;
  let anchored = false;
  if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1);
  } else {
    if (line.startsWith("!")) {
      whitelist = true;
      line = line.slice(1);
    }
    if (line.startsWith("/")) {
      anchored = true;
      line = line.slice(1);
    }
  }
  let onlyDir = false;
  if (line.endsWith("/")) {
    onlyDir = true;
    line = line.slice(0, -1);
    if (line.endsWith("\\")) line = line.slice(0, -1);
  }
  if (line === "") return undefined;
  let glob = line;
  // Matching `**∕name` against a whole path is what testing `name` against its last segment
  // does, at a fraction of the cost: picomatch's `**` expression looks at every character.
  const byName = !anchored && !line.includes("/") && !line.startsWith("**");
  if (glob.endsWith("/**")) glob = `${glob}/*`;
  let match: (path: string) => boolean;
  try {
    match = picomatch(glob, GLOB_OPTIONS);
  } catch {
    // ripgrep skips a line it cannot parse; so do we.
    return undefined;
  }
  return { match, byName, whitelist, onlyDir };
}

export const IGNORE_FILE_NAMES = [".rgignore", ".ignore", ".gitignore"] as const;

/** The name of one of the ignore files a folder may hold. */
export type IgnoreFileName = (typeof IGNORE_FILE_NAMES)[number];

/** Compiled ignore files by their text: every search reads them again, most have not changed. */
const compiled = new Map<string, IgnoreFile>();
const COMPILED_KEPT = 64;
/** Longer texts are compiled each time rather than kept. */
const COMPILED_MAX_CHARS = 64 * 1024;

function compile(text: string): IgnoreFile {
  let file = compiled.get(text);
  if (file) return file;
  file = new IgnoreFile(text);
  if (text.length <= COMPILED_MAX_CHARS) {
    // Oldest first out: a Map iterates in insertion order.
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(text, file);
  }
  return file;
}

/** What a level is built from: plain data, so it can be sent to another thread and built again there. */
export interface LevelSource {
  dir: string;
  texts: Partial<Record<IgnoreFileName, string>>;
  hasGit: boolean;
}

/** The ignore files a directory holds, in ripgrep's order of precedence. */
export interface IgnoreLevel {
  /** Absolute directory the files are in. */
  dir: string;
  /** `dir` with a trailing "/", to cut relative paths quickly. */
  prefix: string;
  rgignore?: IgnoreFile;
  ignore?: IgnoreFile;
  gitignore?: IgnoreFile;
  /** The directory holds `.git`: .gitignore files above it do not apply below it. */
  hasGit: boolean;
  source: LevelSource;
}

/** Builds a level from the texts of the ignore files found in `dir`; `undefined` when it adds nothing. */
export function makeLevel(dir: string, texts: LevelSource["texts"], hasGit: boolean): IgnoreLevel | undefined {
  const level: IgnoreLevel = { dir, prefix: dir.endsWith("/") ? dir : `${dir}/`, hasGit, source: { dir, texts, hasGit } };
  const add = (key: "rgignore" | "ignore" | "gitignore", text: string | undefined) => {
    if (text === undefined) return;
    const file = compile(text);
    if (!file.empty) level[key] = file;
  };
  add("rgignore", texts[".rgignore"]);
  add("ignore", texts[".ignore"]);
  add("gitignore", texts[".gitignore"]);
  return level.rgignore || level.ignore || level.gitignore || hasGit ? level : undefined;
}

/**
 * What decides whether an entry of folder `dir` (absolute) is ignored, given the levels that apply
 * there, deepest first: .rgignore beats .ignore beats .gitignore, each decided by the deepest file
 * with a matching line; .gitignore files above the nearest directory holding `.git` are not
 * consulted. Where the folder sits below each level is worked out once, so an entry costs only
 * the rules it meets. Undefined when no rule could ignore anything.
 */
export function folderRules(levels: readonly IgnoreLevel[], dir: string): ((name: string, isDir: boolean) => boolean) | undefined {
  if (!hasRules(levels)) return undefined;
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  const places = levels.map((level) => (prefix.startsWith(level.prefix) ? prefix.slice(level.prefix.length) : undefined));
  return (name, isDir) => {
    let rg: boolean | undefined;
    let dot: boolean | undefined;
    let git: boolean | undefined;
    let sawGit = false;
    for (let i = 0; i < levels.length; i++) {
      const place = places[i];
      if (place === undefined) continue;
      const level = levels[i]!;
      if (rg === undefined && level.rgignore) rg = level.rgignore.decide(name, place, isDir);
      if (dot === undefined && level.ignore) dot = level.ignore.decide(name, place, isDir);
      if (!sawGit && git === undefined && level.gitignore) git = level.gitignore.decide(name, place, isDir);
      sawGit ||= level.hasGit;
    }
    return rg ?? dot ?? git ?? false;
  };
}

/**
 * Whether any rule would be consulted for a path below these levels. A level that
 * only marks a repository, or .gitignore rules above the nearest one, ignore nothing.
 */
function hasRules(levels: readonly IgnoreLevel[]): boolean {
  let sawGit = false;
  for (const level of levels) {
    if (level.rgignore || level.ignore || (!sawGit && level.gitignore)) return true;
    sawGit ||= level.hasGit;
  }
  return false;
}
