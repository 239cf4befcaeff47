import { z } from "zod";
import { JsonSchemaTool } from "../../compat/json-schema-tool.js";
import { ToolError } from "../../core/errors.js";
import { EFFECTS, type Effect } from "../../core/effect.js";
import type { AnyTool, JsonSchema, ToolContext } from "../../core/tool.js";
import { runCommand } from "../shell/run-command.js";
import { shellQuote } from "../shell/analysis/words.js";
import { PLACEHOLDER, placeholderInCode, takesVariables, WHOLE_PLACEHOLDER } from "./placeholder-in-code.js";
import { launchEnv, launchFor, type Launch, type LaunchSettings } from "../shell/sandbox-launcher.js";
import { settleLaunch } from "../shell/shell.js";
import { forgetTackleFolders } from "../../workspace/own-folders.js";

/** One tool declared in configuration: `tools: { name: { description, parameters, command, effect, timeout } }`. */
export const CommandToolSchema = z
  .object({
    description: z.string().min(1),
    /** JSON Schema of the arguments (an object schema). */
    parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
    /** The program and its arguments; "{name}" is replaced by that argument, always inside one argv entry. */
    command: z
      .array(z.string())
      .min(1)
      .superRefine((template, ctx) => {
        const refusal = placeholderInCode(template);
        if (refusal) ctx.addIssue({ code: "custom", message: refusal });
      }),
    /** What it does, for approval: default "execute" (asked about in safe mode). */
    effect: z.enum(EFFECTS as [Effect, ...Effect[]]).default("execute"),
    /** Time limit in milliseconds (default 60 s). */
    timeout: z.number().int().positive().max(3_600_000).default(60_000),
    /**
     * Parameters that are paths in the workspace: each is resolved and judged as read_file's path
     * is (inside the workspace, no secrets without a rule naming them) and passed as that path.
     */
    paths: z.array(z.string()).default([]),
    /** Parameters whose values may start with "-": every other value that does is refused. */
    options: z.array(z.string()).default([]),
    /**
     * Spec 002's word on approval: true asks a person for every call in mode safe (whatever the
     * effect), false lets a non-destructive tool run without asking.
     */
    requires_approval: z.boolean().optional(),
    /** Spec 002's grouping ("custom"): shown with the tool, nothing else. */
    category: z.string().max(64).optional(),
    /**
     * Run it as the shell runs a command (default true): in the sandbox, where what it loads of the
     * workspace's (a linter's config, a test's fixtures) cannot reach the network or a secret, nor
     * change a file that is code, unless a person or a rule approved the call. `false` runs it on
     * the host, for a program that must fetch or write elsewhere.
     */
    sandbox: z.boolean().default(true),
  })
  .strict();

export type CommandToolConfig = z.output<typeof CommandToolSchema>;

/**
 * The argv for one call. Arguments never pass through a shell: an entry that is exactly
 * "{name}" becomes the argument's value (each item of an array its own entry; dropped when the
 * argument is absent), and a placeholder inside a longer entry is replaced within that entry.
 * A whole-entry value that starts with "-" would be read by the program as an option
 * (`--output=/x`, `--pre=sh`), and one with "=" given to make as a variable its recipes run
 * (`CC=touch x; cc`), so each is refused unless `options` names the parameter.
 */
export function commandArgv(template: readonly string[], args: Record<string, unknown>, options: readonly string[] = []): string[] {
  const out: string[] = [];
  const operand = (name: string, value: string, index: number) => {
    if (options.includes(name)) return value;
    if (value.startsWith("-")) {
      throw new ToolError(
        "INVALID_ARGS",
        `${name} "${value.slice(0, 80)}" starts with "-", so the program would take it as an option; ` +
          `give a value that does not (for a file, write "./${value.slice(0, 40)}").`,
      );
    }
    if (value.includes("=") && takesVariables(template, index)) {
      throw new ToolError(
        "INVALID_ARGS",
        `${name} "${value.slice(0, 80)}" has "=", so make would take it as a variable, which its recipes run as shell text; give a target name.`,
      );
    }
    return value;
  };
  for (const [index, entry] of template.entries()) {
    const whole = WHOLE_PLACEHOLDER.exec(entry);
    if (whole) {
      const name = whole[1]!;
      const value = args[name];
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) out.push(operand(name, text(item), index));
      continue;
    }
    out.push(
      entry.replace(PLACEHOLDER, (_, name: string) => {
        const value = args[name];
        if (value === undefined || value === null) {
          throw new ToolError("INVALID_ARGS", `This tool needs "${name}" (it is part of the command "${entry}").`);
        }
        return text(value);
      }),
    );
  }
  return out;
}

/** The values of the path parameters of one call, as given. */
function pathValues(config: CommandToolConfig, args: Record<string, unknown>): string[] {
  return config.paths.flatMap((name) => {
    const value = args[name];
    if (value === undefined || value === null) return [];
    return (Array.isArray(value) ? value : [value]).map(text);
  });
}

/** The call's arguments with each path parameter resolved in the workspace (refused when outside it). */
async function withResolvedPaths(
  config: CommandToolConfig,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<Record<string, unknown>> {
  const out = { ...args };
  for (const name of config.paths) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    const resolve = async (v: unknown) => {
      const relative = (await ctx.workspace.resolve(text(v))).relative;
      // A file named like an option still reaches the program as a file.
      return relative.startsWith("-") ? `./${relative}` : relative;
    };
    out[name] = Array.isArray(value) ? await Promise.all(value.map(resolve)) : await resolve(value);
  }
  return out;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * A tool that runs a configured program with the call's arguments as argv entries, in the workspace:
 * in the shell's sandbox (`settings`) unless its `sandbox` is false.
 */
export function commandTool(name: string, config: CommandToolConfig, settings: LaunchSettings): AnyTool {
  const tool = new JsonSchemaTool({
    name,
    ...(config.category ? { title: `${name} (${config.category})` } : {}),
    description: config.description,
    inputSchema: config.parameters as JsonSchema,
    effect: config.effect,
    timeoutMs: config.timeout + 5_000,
    // Path parameters are judged as file tools' paths are: rules match them, secrets need a rule.
    ...(config.paths.length
      ? {
          scope: {
            kind: "path" as const,
            subjects: async (args: Record<string, unknown>, ctx: ToolContext) =>
              Promise.all(pathValues(config, args).map(async (p) => (await ctx.workspace.resolve(p)).relative)),
          },
        }
      : {}),
    execute: async (args, ctx) => {
      const argv = commandArgv(config.command, await withResolvedPaths(config, args, ctx), [...config.options, ...config.paths]);
      // Each entry quoted whole: the sandbox runs it through bash, which must see the same argv.
      const command = argv.map((word) => shellQuote(word, true)).join(" ");
      const root = ctx.workspace.root;
      const launch: Launch = config.sandbox
        ? await launchFor(command, undefined, root, ctx, settings, { timeoutMs: config.timeout })
        : { confinement: "none" };
      const raw = await runCommand({
        command,
        cwd: root,
        env: launchEnv(launch),
        timeoutMs: config.timeout,
        signal: ctx.signal,
        onOutput: (chunk) => ctx.onOutput(chunk),
        outputName: `${name}-${ctx.toolCallId}`,
        ...(launch.argv ? { argv: () => launch.argv! } : { argv: () => ({ file: argv[0]!, args: argv.slice(1) }), direct: true }),
      }).finally(() => forgetTackleFolders());
      const remedy = `If ${name} needs more, the person can set "sandbox": false in its entry under "tools" in tackle.config.json.`;
      const { result, notes } = await settleLaunch(launch, raw, remedy);
      const told = notes.map((n) => `\n${n}`).join("");
      if (result.ended === "aborted") throw new ToolError("CANCELLED", `${name} was cancelled; its processes were stopped.${told}`);
      const output = result.output.trim() || "(no output)";
      if (result.ended === "timeout") {
        throw new ToolError(
          "TIMEOUT",
          `${name} did not finish within ${config.timeout / 1000} s and was stopped. Output so far:\n${output}${told}`,
        );
      }
      if (result.exitCode === 127 && /command not found/.test(result.stderr)) {
        throw new ToolError(
          "UNAVAILABLE",
          `${name} cannot run: the program "${argv[0]}" was not found. Check "command" in tackle.config.json.`,
          {
            recoverable: false,
          },
        );
      }
      const ended = result.exitCode === 0 ? "" : `\n[exit code ${result.exitCode ?? result.signal}]`;
      return {
        content: output + ended + told,
        ...(result.exitCode === 0 ? {} : { isError: true }),
        metadata: {
          exitCode: result.exitCode,
          durationMs: Math.round(result.durationMs),
          sandbox: launch.confinement,
          ...(notes.length ? { notes } : {}),
        },
      };
    },
  });
  if (config.requires_approval !== undefined) {
    const required = config.requires_approval;
    Object.defineProperty(tool, "needsApproval", { value: () => required, enumerable: true });
  }
  return tool;
}
