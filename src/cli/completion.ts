import type { Command } from "commander";

/** What a completion script knows: the commands, their flags, and the tools with their parameters. */
export interface CompletionSpec {
  commands: Array<{ name: string; description: string; flags: FlagSpec[]; subcommands: string[] }>;
  /** Tool name → parameter names, for `call` and `tools`. */
  tools: Record<string, string[]>;
}

export interface FlagSpec {
  names: string[];
  description: string;
  /** Takes a value; `choices` when the value is one of a list, `kind` when it is a path. */
  takesValue: boolean;
  choices?: string[];
  kind?: "dir" | "file";
}

/** Commands whose first argument is a tool name. */
const TOOL_COMMANDS = ["call", "tools"];

/** Reads the commands and flags from the program itself, so the scripts never drift from it. */
export function completionSpec(root: Command, tools: Record<string, string[]>): CompletionSpec {
  const commands = root.commands.map((cmd) => ({
    name: cmd.name(),
    description: cmd.description(),
    subcommands: cmd.commands.map((c) => c.name()),
    // A command with subcommands (rules) takes its flags from them.
    flags: [
      ...[...cmd.options, ...cmd.commands.flatMap((c) => c.options)].map((o): FlagSpec => {
        const takesValue = o.required || o.optional;
        const kind = /workspace/.test(o.long ?? "") ? "dir" : /config|file/.test(o.long ?? "") ? "file" : undefined;
        return {
          names: [o.short, o.long].filter((n): n is string => typeof n === "string"),
          description: o.description,
          takesValue,
          ...(o.argChoices ? { choices: [...o.argChoices] } : {}),
          ...(takesValue && kind ? { kind } : {}),
        };
      }),
      { names: ["-h", "--help"], description: "show help", takesValue: false },
    ],
  }));
  return { commands, tools };
}

const words = (list: readonly string[]) => list.join(" ");
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A bash completion function, `_tackle`, registered with `complete -F`. */
export function bashCompletion(spec: CompletionSpec): string {
  const valueFlags = [...new Set(spec.commands.flatMap((c) => c.flags.filter((f) => f.takesValue).flatMap((f) => f.names)))];
  const valueCases = new Map<string, string>();
  for (const f of spec.commands.flatMap((c) => c.flags)) {
    if (!f.takesValue) continue;
    const action = f.choices
      ? `COMPREPLY=($(compgen -W ${quote(words(f.choices))} -- "$cur"))`
      : f.kind === "dir"
        ? `COMPREPLY=($(compgen -d -- "$cur"))`
        : f.kind === "file"
          ? `COMPREPLY=($(compgen -f -- "$cur"))`
          : "COMPREPLY=()";
    const pattern = f.names.join("|");
    if (!valueCases.has(pattern)) valueCases.set(pattern, action);
  }
  const toolCases = Object.entries(spec.tools)
    .map(([tool, params]) => `        ${tool}) params=${quote(words(params.map((p) => `${p}=`)))} ;;`)
    .join("\n");
  return `# bash completion for tackle. Load it with: source <(tackle completion bash)
_tackle() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" tool="" i word skip=0 params=""
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  case "$prev" in
${[...valueCases].map(([flag, action]) => `    ${flag}) ${action}; return 0 ;;`).join("\n")}
  esac
  # The command and, for call and tools, the tool: the first words that are not flags or flag values.
  for (( i = 1; i < COMP_CWORD; i++ )); do
    word="\${COMP_WORDS[i]}"
    if (( skip )); then skip=0; continue; fi
    case " ${words(valueFlags)} " in *" $word "*) skip=1; continue ;; esac
    case "$word" in
      -*) ;;
      *) if [[ -z "$cmd" ]]; then cmd="$word"; elif [[ -z "$tool" ]]; then tool="$word"; fi ;;
    esac
  done
  case "$cmd" in
    "") COMPREPLY=($(compgen -W ${quote(words([...spec.commands.map((c) => c.name), "--help", "--version"]))} -- "$cur")) ;;
${spec.commands
  .map((c) => {
    const flags = words([...new Set(c.flags.flatMap((f) => f.names))]);
    if (c.subcommands.length > 0) {
      return `    ${c.name})
      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W ${quote(flags)} -- "$cur"))
      elif [[ -z "$tool" ]]; then COMPREPLY=($(compgen -W ${quote(words(c.subcommands))} -- "$cur"))
      fi ;;`;
    }
    if (!TOOL_COMMANDS.includes(c.name)) return `    ${c.name}) COMPREPLY=($(compgen -W ${quote(flags)} -- "$cur")) ;;`;
    return `    ${c.name})
      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W ${quote(flags)} -- "$cur"))
      elif [[ -z "$tool" ]]; then COMPREPLY=($(compgen -W ${quote(words(Object.keys(spec.tools)))} -- "$cur"))
${
  c.name !== "call"
    ? ""
    : `      else
        case "$tool" in
${toolCases}
        esac
        COMPREPLY=($(compgen -W "$params" -- "$cur"))
        # A parameter name is followed by its value, not a space.
        [[ \${#COMPREPLY[@]} -gt 0 ]] && compopt -o nospace 2>/dev/null
`
}      fi ;;`;
  })
  .join("\n")}
  esac
  return 0
}
complete -o default -F _tackle tackle
`;
}

/** zsh runs the bash function through bashcompinit, so both shells complete the same words. */
export function zshCompletion(spec: CompletionSpec): string {
  return `#compdef tackle
# zsh completion for tackle. Load it with: source <(tackle completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(spec).replace(/^# bash completion.*\n/, "")}`;
}

/** fish completions: commands, each command's flags, tool names and parameters for call. */
export function fishCompletion(spec: CompletionSpec): string {
  const lines = ["# fish completion for tackle. Load it with: tackle completion fish | source", "complete -c tackle -f"];
  const names = words(spec.commands.map((c) => c.name));
  for (const c of spec.commands) {
    lines.push(`complete -c tackle -n "not __fish_seen_subcommand_from ${names}" -a ${c.name} -d ${quote(c.description)}`);
    if (c.subcommands.length > 0) {
      lines.push(
        `complete -c tackle -n "__fish_seen_subcommand_from ${c.name}; and not ` +
          `__fish_seen_subcommand_from ${words(c.subcommands)}" -a ${quote(words(c.subcommands))}`,
      );
    }
    for (const f of c.flags) {
      const parts = [`complete -c tackle -n "__fish_seen_subcommand_from ${c.name}"`];
      for (const n of f.names) parts.push(n.startsWith("--") ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`);
      if (f.takesValue) parts.push("-r");
      if (f.choices) parts.push(`-a ${quote(words(f.choices))}`);
      if (f.kind) parts.push("-F");
      parts.push(`-d ${quote(f.description)}`);
      lines.push(parts.join(" "));
    }
  }
  const toolNames = words(Object.keys(spec.tools));
  for (const c of TOOL_COMMANDS) {
    lines.push(
      `complete -c tackle -n "__fish_seen_subcommand_from ${c}; and not __fish_seen_subcommand_from ${toolNames}" -a ${quote(toolNames)}`,
    );
  }
  for (const [tool, params] of Object.entries(spec.tools)) {
    if (params.length === 0) continue;
    lines.push(
      `complete -c tackle -n "__fish_seen_subcommand_from call; and __fish_seen_subcommand_from ${tool}" -a ${quote(words(params.map((p) => `${p}=`)))}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
