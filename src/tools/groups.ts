import type { ToolGroup } from "./group.js";
import { fileTools } from "./fs/index.js";
import { searchTools } from "./search/index.js";
import { shellTools } from "./shell/index.js";
import { codeTools } from "./code/index.js";
import { webTools } from "./web/index.js";
import { linkedinTools } from "./linkedin/index.js";
import { googleTools } from "./google/index.js";
import { anthropicTools } from "./anthropic/index.js";
import { gitTools } from "./git/index.js";
import { lspTools } from "./lsp/index.js";

/** The built-in groups, in listing order. */
export const BUILTIN_GROUPS: readonly ToolGroup[] = [
  fileTools,
  searchTools,
  shellTools,
  codeTools,
  webTools,
  linkedinTools,
  googleTools,
  anthropicTools,
  gitTools,
  lspTools,
];
