/**
 * Converts an amount in cents, as the Admin API sends it (a decimal string such as "123.45",
 * meaning $1.2345), to dollars. The decimal point is moved in the string, not by dividing a
 * float, so "0.1" cents is exactly 0.001 rather than 0.0010000000000000002.
 * Returns undefined for anything that is not a plain decimal number.
 */
export function centsToUsd(cents: string | number): number | undefined {
  const text = typeof cents === "number" ? (Number.isFinite(cents) ? String(cents) : "") : cents.trim();
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[2] === "" && (match[3] ?? "") === "")) return undefined;
  const [, sign, whole = "", frac = ""] = match;
  const padded = whole.padStart(3, "0");
  const dollars = `${sign}${padded.slice(0, -2)}.${padded.slice(-2)}${frac}`;
  const value = Number(dollars);
  return Number.isFinite(value) ? value : undefined;
}
