/** Stands for "everything": a call whose effect on files is unknown (a shell command). */
export const EVERYTHING = "*";

/** Two workspace-relative paths overlap when equal or one contains the other. */
export function pathsOverlap(a: string, b: string): boolean {
  if (a === EVERYTHING || b === EVERYTHING || a === "." || b === ".") return true;
  const x = a.replace(/\/+$/, "");
  const y = b.replace(/\/+$/, "");
  return x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
}

export function anyOverlap(as: readonly string[], bs: readonly string[]): boolean {
  return as.some((a) => bs.some((b) => pathsOverlap(a, b)));
}
