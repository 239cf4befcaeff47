/** Resolves when `promise` settles or `ms` have passed, whichever is first (at once for `ms` <= 0). */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  if (ms <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
