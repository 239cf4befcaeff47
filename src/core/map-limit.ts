/**
 * Maps `items` with at most `limit` calls in flight, keeping the order of results. After a call
 * fails no new one starts; the ones in flight are waited for (nothing keeps running behind the
 * caller's back), then the failure of the earliest item is thrown.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = Array.from({ length: items.length });
  const failures = new Map<number, unknown>();
  let next = 0;
  const worker = async () => {
    while (next < items.length && failures.size === 0) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (err) {
        failures.set(i, err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.size) throw failures.get(Math.min(...failures.keys()));
  return results;
}
