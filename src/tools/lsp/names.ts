/** Spec 002's names for the language-server tools. */
export const TOOL_LSP = {
  diagnostics: "diagnostics",
  symbols: "symbols",
  hover: "hover",
  definition: "definition",
  references: "references",
} as const;
