/** A time limit as people write it: "30 s", or "1500 ms" when it is not whole seconds. */
export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
