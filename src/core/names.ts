/** Names every model API accepts: OpenAI, Anthropic, Gemini and MCP all take this set. */
const VALID_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether `name` is a valid tool name. */
export function isToolName(name: string): boolean {
  return VALID_NAME.test(name);
}

/** Throws with a precise reason when `name` is not a valid tool name. */
export function assertToolName(name: string): void {
  if (isToolName(name)) return;
  if (name.length === 0) throw new Error("Tool name is empty.");
  if (name.length > 64) throw new Error(`Tool name "${name.slice(0, 80)}" is ${name.length} characters; the limit is 64.`);
  const bad = [...new Set(name.replace(/[A-Za-z0-9_-]/g, ""))].join("");
  throw new Error(`Tool name "${name}" contains ${JSON.stringify(bad)}; use only letters, digits, "_" and "-".`);
}

/** Edit distance, for "did you mean ...?" suggestions. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** Up to `max` names closest to `name`, nearest first; only plausible ones. */
export function nearestNames(name: string, candidates: Iterable<string>, max = 3): string[] {
  const lower = name.toLowerCase();
  const scored: Array<[string, number]> = [];
  for (const c of candidates) {
    const cl = c.toLowerCase();
    let d = distance(lower, cl);
    if (cl.includes(lower) || lower.includes(cl)) d = Math.min(d, 1);
    if (d <= Math.max(2, Math.floor(c.length / 3))) scored.push([c, d]);
  }
  return scored
    .sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]))
    .slice(0, max)
    .map(([c]) => c);
}
