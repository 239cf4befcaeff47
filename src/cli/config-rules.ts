import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { applyEdits, findNodeAtLocation, modify, parse as parseJsonc, parseTree, type Edit, type FormattingOptions } from "jsonc-parser";
import { CONFIG_FILES, findConfigFile, warnPassedOver, type LoadedConfig } from "../config/config.js";
import { parseRule } from "../runtime/rules.js";

export const RULE_LISTS = ["allow", "ask", "deny"] as const;
export type RuleList = (typeof RULE_LISTS)[number];

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: "\n" };

/** The configuration file rules are written to: the one loaded, else tackle.config.json in the workspace. */
export function configFileFor(loaded: Pick<LoadedConfig, "file" | "workspace">): string {
  return loaded.file ?? path.join(loaded.workspace, CONFIG_FILES[0]);
}

/** The file to use for a workspace and an optional --config, as the loader would find it. */
export function configFileIn(workspace: string, configFile?: string): string {
  if (configFile) return path.resolve(configFile);
  const dir = path.resolve(workspace);
  const found = findConfigFile(dir);
  // As loading it would: a config.json here that was perhaps meant for tackle is named.
  warnPassedOver(path.join(dir, CONFIG_FILES[1]), found);
  return found ?? path.join(dir, CONFIG_FILES[0]);
}

function read(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : "{}\n";
}

function rawList(file: string, list: RuleList): unknown[] {
  const raw = parseJsonc(read(file), [], { allowTrailingComma: true }) as { permissions?: Partial<Record<RuleList, unknown>> } | undefined;
  const value = raw?.permissions?.[list];
  return Array.isArray(value) ? value : [];
}

/** The permission rules in a configuration file, list by list. */
export function readRules(file: string): Record<RuleList, string[]> {
  const strings = (list: RuleList) => rawList(file, list).filter((x): x is string => typeof x === "string");
  return { allow: strings("allow"), ask: strings("ask"), deny: strings("deny") };
}

/**
 * Adds a rule to one list, editing the text in place (jsonc-parser) so the person's comments and
 * layout stay. Returns false when the list already has it.
 */
export function addRule(file: string, list: RuleList, rule: string): boolean {
  parseRule(rule);
  if (readRules(file)[list].includes(rule)) return false;
  const text = read(file);
  writeFileSync(
    file,
    withCommaBeforeComments(
      applyEdits(text, modify(text, ["permissions", list, -1], rule, { formattingOptions: FORMAT, isArrayInsertion: true })),
      list,
    ),
  );
  return true;
}

/**
 * A comma after the list's last element when commented-out examples follow it (`tackle init`
 * writes some): a person who uncomments one then still has valid JSON. Trailing commas are allowed.
 */
function withCommaBeforeComments(text: string, list: RuleList): string {
  const array = findNodeAtLocation(parseTree(text)!, ["permissions", list]);
  const last = array?.children?.at(-1);
  if (!array || !last) return text;
  const end = last.offset + last.length;
  const rest = text.slice(end, array.offset + array.length - 1);
  if (!/^\s*\/\//.test(rest) || rest.trimStart().startsWith(",")) return text;
  return `${text.slice(0, end)},${text.slice(end)}`;
}

/**
 * The edit that removes one array element with its separating comma. Written here because
 * jsonc-parser's `modify` cuts the last element one character short (3.3: `["a", "b"]` → `["a""]`).
 */
function removal(text: string, list: RuleList, index: number): Edit {
  const array = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true })!, ["permissions", list])!;
  const items = array.children!;
  const item = items[index]!;
  const end = item.offset + item.length;
  const next = items[index + 1];
  if (next) return { offset: item.offset, length: next.offset - item.offset, content: "" };
  const previous = items[index - 1];
  if (!previous) {
    // The only element: a trailing comma after it goes too.
    const trailing = /^\s*,/.exec(text.slice(end))?.[0].length ?? 0;
    return { offset: item.offset, length: end + trailing - item.offset, content: "" };
  }
  const comma = text.indexOf(",", previous.offset + previous.length);
  return { offset: comma, length: end - comma, content: "" };
}

/** Removes a rule from every list that has it (or only from `list`); returns the lists it left. */
export function removeRule(file: string, rule: string, list?: RuleList): RuleList[] {
  const removed: RuleList[] = [];
  for (const name of list ? [list] : RULE_LISTS) {
    for (;;) {
      const index = rawList(file, name).indexOf(rule);
      if (index < 0) break;
      const text = read(file);
      writeFileSync(file, applyEdits(text, [removal(text, name, index)]));
      if (!removed.includes(name)) removed.push(name);
    }
  }
  return removed;
}
