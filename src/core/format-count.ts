/**
 * A count with thousands separators ("12,345"), as `toLocaleString("en-US")` writes it, without
 * its cost: the first locale-aware call loads ICU's number formatting (about 14 ms), which a
 * short `tackle call` would otherwise pay for one notice.
 */
export function formatCount(n: number): string {
  const text = String(n);
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = ""] = match;
  return `${sign}${whole!.replace(/\B(?=(\d{3})+$)/g, ",")}${fraction}`;
}
