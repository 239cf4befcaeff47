import { fileURLToPath } from "node:url";
import type { Diagnostic, DocumentSymbol, Hover, Location, SymbolInformation } from "vscode-languageserver-protocol/node";
import { protocol } from "./protocol.js";
import type { Workspace } from "../../workspace/workspace.js";

const SEVERITY = ["", "error", "warning", "info", "hint"];
let kindNames: Map<number, string> | undefined;
/** Symbol kinds by number, built from the protocol library the first time a symbol is shown. */
function kindName(kind: number): string | undefined {
  kindNames ??= new Map(
    Object.entries(protocol().SymbolKind)
      .filter(([, v]) => typeof v === "number")
      .map(([k, v]) => [v as number, k.toLowerCase()]),
  );
  return kindNames.get(kind);
}

export function formatDiagnostics(relative: string, items: readonly Diagnostic[]): string {
  if (items.length === 0) return `No problems found in ${relative}.`;
  const lines = [...items]
    .sort((a, b) => (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line)
    .map((d) => {
      const where = `${relative}:${d.range.start.line + 1}:${d.range.start.character + 1}`;
      const code = d.code !== undefined ? ` ${d.source ?? ""}(${String(d.code)})` : d.source ? ` (${d.source})` : "";
      return `${where}: ${SEVERITY[d.severity ?? 1]}: ${(typeof d.message === "string" ? d.message : d.message.value).replace(/\n/g, " ")}${code}`;
    });
  const errors = items.filter((d) => (d.severity ?? 1) === 1).length;
  return `${items.length} problem(s) in ${relative} (${errors} error(s)):\n${lines.join("\n")}`;
}

function isDocumentSymbol(s: DocumentSymbol | SymbolInformation): s is DocumentSymbol {
  return "range" in s && "selectionRange" in s;
}

export function formatSymbols(relative: string, symbols: ReadonlyArray<DocumentSymbol | SymbolInformation>): string {
  if (symbols.length === 0) return `No symbols in ${relative}.`;
  const out: string[] = [];
  const walk = (list: readonly DocumentSymbol[], depth: number) => {
    for (const s of list) {
      out.push(`${"  ".repeat(depth)}${kindName(s.kind) ?? "symbol"} ${s.name} (line ${s.selectionRange.start.line + 1})`);
      if (s.children?.length) walk(s.children, depth + 1);
    }
  };
  if (symbols.every(isDocumentSymbol)) walk(symbols as DocumentSymbol[], 0);
  else
    for (const s of symbols as SymbolInformation[]) {
      out.push(
        `${kindName(s.kind) ?? "symbol"} ${s.containerName ? `${s.containerName}.` : ""}${s.name} (line ${s.location.range.start.line + 1})`,
      );
    }
  return out.join("\n");
}

export function formatHover(hover: Hover | null): string {
  if (!hover) return "No information at that position.";
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
  const text = parts
    .map((c) => (typeof c === "string" ? c : "kind" in c ? c.value : "```" + c.language + "\n" + c.value + "\n```"))
    .join("\n\n")
    .trim();
  return text || "No information at that position.";
}

/** Locations as `path:line:col: text`, paths relative to the workspace when inside it. */
export function formatLocations(
  locations: readonly Location[],
  workspace: Workspace,
  lineText: (file: string, line: number) => string | undefined,
  empty: string,
): string {
  if (locations.length === 0) return empty;
  return locations
    .map((l) => {
      const file = l.uri.startsWith("file:") ? fileURLToPath(l.uri) : l.uri;
      const shown = workspace.relative(file);
      const text = lineText(file, l.range.start.line)?.trim();
      return `${shown}:${l.range.start.line + 1}:${l.range.start.character + 1}${text ? `: ${text}` : ""}`;
    })
    .join("\n");
}
