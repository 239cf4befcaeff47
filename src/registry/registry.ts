import type { AnyTool, ToolDefinition } from "../core/tool.js";
import { isPlainTool, JsonSchemaTool, type PlainTool } from "../compat/json-schema-tool.js";
import { assertToolName, isToolName, nearestNames } from "../core/names.js";
import { fromResultTool, isResultTool, type ResultTool } from "../compat/result-tool.js";
import { FromInterfaceTool, isInterfaceTool, type InterfaceTool } from "../compat/interface-tool.js";
import { toolView } from "../core/tool-view.js";
import { isZod3, ZOD3_HELP } from "../core/zod-version.js";

/** Anything the registry accepts: a defined or class tool, a plain object with a JSON Schema, or one with a zod schema and an `{ ok }` result. */
export type ToolLike = AnyTool | PlainTool | ResultTool | InterfaceTool;

const SUPPORTED_FORMS =
  "defineTool({ name, description, input: z.object(...), effect, execute }), a BaseTool subclass, " +
  "{ definition: { name, description, parameters: <JSON Schema> }, validate, execute } (spec 001's Tool), " +
  "{ name, description, inputSchema: <JSON Schema>, execute }, or { name, description, inputSchema: <zod schema>, execute → { ok, value } }";

export interface RegisterOptions {
  /** More names for the same tool (`edit` for `edit_file`). */
  aliases?: string[];
  /** Whether aliases appear in listings and definitions; hidden aliases still resolve. Default true. */
  listAliases?: boolean;
  /** Whether the tool's own name is listed; a hidden tool still resolves when called. Default true. */
  listed?: boolean;
}

interface Entry {
  tool: AnyTool;
  /** The canonical name this entry points at. */
  target: string;
  listed: boolean;
}

export type RegistryChange = { type: "registered" | "unregistered"; name: string };

/** Turns any ToolLike into a Tool. */
export function toTool(value: ToolLike): AnyTool {
  const v = value as unknown as Record<string, unknown> | null;
  const named = v?.name ?? (v?.definition as { name?: unknown } | undefined)?.name;
  const name = typeof named === "string" ? `"${named}"` : "This tool";
  // A tool of tackle's own (it has `validate`) builds its JSON Schema when `inputSchema` is first read: not here.
  if (v && (isZod3(v.schema) || (!("validate" in v) && isZod3(v.inputSchema)))) throw new Error(`${name}: its schema ${ZOD3_HELP}`);
  if (isResultTool(value)) return fromResultTool(value);
  if (isPlainTool(value)) return new JsonSchemaTool(value);
  if (isInterfaceTool(value)) return new FromInterfaceTool(value);
  if (!v || typeof v.name !== "string" || typeof v.execute !== "function" || typeof v.validate !== "function") {
    throw new Error(`${name} is not a tool tackle can register. Use one of: ${SUPPORTED_FORMS}.`);
  }
  return value as AnyTool;
}

/**
 * Central catalogue of tools by name. Names are unique across tools and aliases:
 * a duplicate throws rather than silently replacing.
 */
export class ToolRegistry {
  readonly #entries = new Map<string, Entry>();
  #namesByTarget: Map<string, string[]> | undefined;
  #families: Map<string, string[]> | undefined;
  readonly #listeners = new Set<(change: RegistryChange) => void>();
  readonly #views = new Map<string, AnyTool>();

  /** Registers a tool under its name (and aliases). Throws on an invalid or taken name, or on something that is no tool. */
  register(value: AnyTool | PlainTool, options?: RegisterOptions): AnyTool;
  register(value: ResultTool, options?: RegisterOptions): AnyTool;
  register(value: InterfaceTool, options?: RegisterOptions): AnyTool;
  register(value: ToolLike, options?: RegisterOptions): AnyTool;
  register(value: ToolLike, options: RegisterOptions = {}): AnyTool {
    return this.#add(value, options);
  }

  registerAll(tools: Iterable<ToolLike>): void {
    for (const tool of tools) this.#add(tool, {});
  }

  #add(value: ToolLike, options: RegisterOptions): AnyTool {
    const tool = toTool(value);
    const names = [tool.name, ...(options.aliases ?? [])];
    for (const name of names) {
      assertToolName(name);
      if (this.#entries.has(name)) {
        const existing = this.#entries.get(name)!;
        throw new Error(
          `A tool named "${name}" is already registered${existing.target !== name ? ` (as an alias of "${existing.target}")` : ""}; tool names must be unique.`,
        );
      }
    }
    if (new Set(names).size !== names.length) throw new Error(`Tool "${tool.name}" lists the same alias twice.`);
    this.#entries.set(tool.name, { tool, target: tool.name, listed: options.listed ?? true });
    for (const alias of options.aliases ?? []) {
      this.#entries.set(alias, { tool, target: tool.name, listed: options.listAliases ?? true });
    }
    // The names a tool says it answers to resolve too, unlisted, where nothing else has them.
    const own = (tool.aliases ?? []).filter((a) => !this.#entries.has(a) && isToolName(a));
    for (const alias of own) this.#entries.set(alias, { tool, target: tool.name, listed: false });
    for (const name of [...names, ...own]) this.#emit({ type: "registered", name });
    return tool;
  }

  /** Adds another name for an already registered tool (again for the same tool: only whether it is listed changes). */
  alias(alias: string, target: string, options: { listed?: boolean } = {}): void {
    const entry = this.#entries.get(target);
    if (!entry) throw new Error(`Cannot alias "${alias}" to "${target}": no such tool.`);
    assertToolName(alias);
    const existing = this.#entries.get(alias);
    if (existing && existing.target === entry.target && alias !== entry.target) {
      existing.listed = options.listed ?? true;
      return;
    }
    if (existing) throw new Error(`A tool named "${alias}" is already registered; tool names must be unique.`);
    this.#entries.set(alias, { tool: entry.tool, target: entry.target, listed: options.listed ?? true });
    this.#emit({ type: "registered", name: alias });
  }

  /** The tool under `name` (alias or canonical), presented under that name. */
  get(name: string): AnyTool | undefined {
    const entry = this.#entries.get(name);
    if (!entry) return undefined;
    return entry.target === name ? entry.tool : this.#view(name, entry.tool);
  }

  getTool(name: string): AnyTool | undefined {
    return this.get(name);
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** The canonical name behind `name`, or undefined. */
  canonicalName(name: string): string | undefined {
    return this.#entries.get(name)?.target;
  }

  /** Every name (canonical or alias) that leads to the same tool as `name`. */
  namesOf(name: string): string[] {
    const target = this.canonicalName(name);
    if (!target) return [];
    // Built once per change of the registry, not per call: the runner asks on every call.
    if (!this.#namesByTarget) {
      this.#namesByTarget = new Map();
      for (const [n, e] of this.#entries) {
        const list = this.#namesByTarget.get(e.target);
        if (list) list.push(n);
        else this.#namesByTarget.set(e.target, [n]);
      }
    }
    return [...(this.#namesByTarget.get(target) ?? [])];
  }

  /**
   * Every name a deny or ask rule may use to cover a call of `name`: the tool's own names and those
   * of the tools that do the same thing to the same kind of subject. A rule against running `rm`
   * written for `shell` covers `bash` and `shell_background`; one against reading a file covers
   * every file tool (editing reads it too); one against writing it, every tool that writes files.
   * A tool without a scope has only its own names. Allow rules stay with the tool they name, and
   * so do deny and ask rules that name a file or web tool alone (see `restrictionCovers`).
   */
  familyOf(name: string): readonly string[] {
    const tool = this.#entries.get(name)?.tool;
    const kind = tool?.scope?.kind;
    if (!tool || !kind) return this.namesOf(name);
    const family = kind === "path" ? (tool.effect === "read" ? "path-read" : "path") : kind;
    return this.#familyNames(family);
  }

  /** The names a deny or ask rule may use to cover writing a file, whatever tool writes it: every file tool's. */
  writeFamily(): readonly string[] {
    return this.#familyNames("path");
  }

  #familyNames(family: string): readonly string[] {
    let names = this.#families?.get(family);
    if (!names) {
      names = [];
      for (const [n, e] of this.#entries) {
        const kind = e.tool.scope?.kind;
        if (!kind) continue;
        // A write's family takes in the readers: a rule that stops reading a file stops changing it.
        if (kind === family || (family === "path-read" && kind === "path" && e.tool.effect === "read")) names.push(n);
      }
      (this.#families ??= new Map()).set(family, names);
    }
    // Shared, not copied: the runner asks on every call.
    return names;
  }

  /** Removes a tool, or only an alias when `name` is one. Returns whether anything was removed. */
  unregister(name: string): boolean {
    const entry = this.#entries.get(name);
    if (!entry) return false;
    const removed = entry.target === name ? this.namesOf(name) : [name];
    for (const n of removed) {
      this.#entries.delete(n);
      this.#views.delete(n);
      this.#emit({ type: "unregistered", name: n });
    }
    return true;
  }

  /** Listed names, in registration order. */
  names(): string[] {
    return [...this.#entries].filter(([, e]) => e.listed).map(([n]) => n);
  }

  /** Every name that resolves, listed or not. */
  allNames(): string[] {
    return [...this.#entries.keys()];
  }

  /** Listed tools, each presented under its listed name. */
  list(): AnyTool[] {
    return this.names().map((n) => this.get(n)!);
  }

  getAllTools(): AnyTool[] {
    return this.list();
  }

  getAllDefinitions(): ToolDefinition[] {
    return this.list().map((t) => t.definition);
  }

  /** Every listed tool as OpenAI's function definitions (`{ name, description, parameters }`), as spec 003 names it. */
  toOpenAIFunctions(): Array<{ name: string; description: string; parameters: ToolDefinition["parameters"] }> {
    return this.getAllDefinitions().map(({ name, description, parameters }) => ({ name, description, parameters }));
  }

  /** Names close to `name`, for "did you mean ...?". */
  suggest(name: string): string[] {
    return nearestNames(name, this.names());
  }

  /** Subscribes to registrations and removals (MCP servers change their tool lists). */
  onChange(listener: (change: RegistryChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get size(): number {
    return this.names().length;
  }

  #emit(change: RegistryChange): void {
    this.#namesByTarget = undefined;
    this.#families = undefined;
    for (const l of this.#listeners) l(change);
  }

  /** The same tool under another name: everything delegates to the tool itself except the name. */
  #view(name: string, tool: AnyTool): AnyTool {
    let view = this.#views.get(name);
    if (!view) {
      view = toolView(tool, { name, definition: { ...tool.definition, name } });
      this.#views.set(name, view);
    }
    return view;
  }
}
