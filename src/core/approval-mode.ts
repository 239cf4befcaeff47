/**
 * What is approved without asking: `ask` nothing (every call asks a person; `none` is its older
 * name, kept), `safe` reads (the default), `all` everything no rule denies or asks about. Files
 * that are code, secrets and leaving the sandbox still need a person in every mode.
 */
export type ApprovalMode = "ask" | "none" | "safe" | "all";
export const APPROVAL_MODES: readonly ApprovalMode[] = ["ask", "none", "safe", "all"];
