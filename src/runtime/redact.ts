/** Argument names whose values are secrets. */
const SECRET_KEY = /(pass(word|wd|phrase)?|secret|token|api[-_]?key|apikey|authorization|auth|cookie|credential|private[-_]?key|session)/i;
/** Values that look like keys whatever their field is called. */
const SECRET_VALUE =
  /\b(sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})\b/g;
/** `Bearer xyz`, `password=xyz` inside free text such as a shell command. */
const INLINE_SECRET = /((?:bearer|basic)\s+|(?:password|passwd|token|secret|api[-_]?key)\s*[=:]\s*)([^\s'"&]+)/gi;

export const REDACTED = "[REDACTED]";

/** A copy of `value` with secrets replaced, for logs. Large strings are shortened. */
export function redact(value: unknown, maxString = 2_000): unknown {
  return walk(value, maxString, 0);
}

function walk(value: unknown, maxString: number, depth: number): unknown {
  if (typeof value === "string") {
    const cleaned = value.replace(SECRET_VALUE, REDACTED).replace(INLINE_SECRET, `$1${REDACTED}`);
    return cleaned.length > maxString ? `${cleaned.slice(0, maxString)}… [${cleaned.length - maxString} more characters]` : cleaned;
  }
  if (value === null || typeof value !== "object" || depth > 20) return value;
  if (Array.isArray(value)) return value.map((v) => walk(v, maxString, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined && typeof v !== "boolean" ? REDACTED : walk(v, maxString, depth + 1);
  }
  return out;
}
