export const REDACTED = "[REDACTED]";

/** Words that make a field, flag or variable a secret wherever they stand in its name. */
const SECRET_WORDS = [
  "pass",
  "password",
  "passwd",
  "passphrase",
  "pwd",
  "secret",
  "token",
  "apikey",
  "api_key",
  "access_key",
  "private_key",
  "client_secret",
  "authorization",
  "auth",
  "cookie",
  "credential",
  "credentials",
  "session",
];

/** Long enough not to end ordinary words ("bypass" ends in "pass"; nothing ordinary ends in "password"). */
const SECRET_SUFFIXES = ["password", "passwd", "passphrase", "secret", "apikey", "token", "credentials"];

/**
 * A field name, split into words (camelCase, snake_case, kebab-case), is a secret when one of its
 * words or word pairs is: `apiKey`, `DB_PASSWORD`, `x-auth-token` are; `author`, `passage` are not.
 */
export function isSecretKey(key: string): boolean {
  if (key.length > KEPT_KEY_CHARS) return judgeKey(key);
  let known = secretKeys.get(key);
  if (known === undefined) {
    known = judgeKey(key);
    // Field names repeat from call to call (path, command, content); a name seen is not split again.
    if (secretKeys.size >= SECRET_KEYS_KEPT) secretKeys.clear();
    secretKeys.set(key, known);
  }
  return known;
}

const secretKeys = new Map<string, boolean>();
const SECRET_KEYS_KEPT = 1024;
const KEPT_KEY_CHARS = 64;

function judgeKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    if (SECRET_WORDS.includes(words[i]!)) return true;
    // Run-together names such as PGPASSWORD or dbsecret.
    if (SECRET_SUFFIXES.some((suffix) => words[i]!.endsWith(suffix))) return true;
    if (i + 1 < words.length && SECRET_WORDS.includes(`${words[i]}_${words[i + 1]}`)) return true;
  }
  return false;
}

/** Known token formats, recognised whatever field or text they stand in. */
const TOKEN_FORMATS = [
  /sk-ant-[A-Za-z0-9_-]{16,}/, // Anthropic
  /sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{16,}/, // OpenAI project, service account, admin keys
  /sk-[A-Za-z0-9]{20,}/, // OpenAI legacy
  /gh[pousr]_[A-Za-z0-9]{20,}/, // GitHub
  /github_pat_[A-Za-z0-9_]{20,}/,
  /gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|oas|soat)-[A-Za-z0-9_-]{16,}/, // GitLab
  /xox[abposre]-[A-Za-z0-9-]{10,}/, // Slack
  /xapp-\d-[A-Za-z0-9-]{10,}/,
  /hooks\.slack\.com\/services\/[A-Za-z0-9/]+/,
  /(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/, // Stripe
  /whsec_[A-Za-z0-9]{16,}/,
  /(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}/, // AWS key ids
  /AIza[0-9A-Za-z_-]{30,}/, // Google API key
  /ya29\.[0-9A-Za-z_-]{20,}/, // Google OAuth access token
  /1\/\/0[0-9A-Za-z_-]{30,}/, // Google OAuth refresh token
  /GOCSPX-[A-Za-z0-9_-]{20,}/, // Google OAuth client secret
  /npm_[A-Za-z0-9]{30,}/, // npm
  /pypi-[A-Za-z0-9_-]{50,}/, // PyPI
  /hf_[A-Za-z0-9]{30,}/, // Hugging Face
  /dop_v1_[a-f0-9]{64}/, // DigitalOcean
  /SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/, // SendGrid
  /shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}/, // Shopify
  /key-[0-9a-zA-Z]{32}/, // Mailgun
  /sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}/, // Square
  /AC[0-9a-f]{32}|SK[0-9a-f]{32}/, // Twilio
  /\d{8,10}:AA[0-9A-Za-z_-]{33}/, // Telegram bot
  /[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,38}/, // Discord bot
  /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, // JWT
];
const TOKEN = new RegExp(`\\b(?:${TOKEN_FORMATS.map((r) => r.source).join("|")})\\b`, "g");

/**
 * Secrets inside free text (a shell command, a config file, a URL), each with the part to keep
 * before the secret in group 1 and the secret in group 2. Every run a pattern scans is bounded in
 * length (a scheme, a user, a password, a name): unbounded, each position of a long word (minified
 * code, base64) would be scanned to its end, and cleaning 40 KB of one took seconds.
 */
const INLINE_SECRETS: ReadonlyArray<{ pattern: RegExp; needs: RegExp }> = [
  // -----BEGIN ... PRIVATE KEY----- blocks, whole
  { pattern: /(-----BEGIN [A-Z ]*PRIVATE KEY-----)([\s\S]*?-----END [A-Z ]*PRIVATE KEY-----|[\s\S]*$)/g, needs: /PRIVATE KEY-----/ },
  // credentials in URLs: scheme://user:PASSWORD@host, also with JSON's escaped slashes (https:\/\/)
  { pattern: /([a-z][a-z0-9+.-]{0,31}:(?:\/\/|\\\/\\\/)[^\s:/@'"\\]{0,256}:)([^\s@/'"\\]{1,512})(?=@)/gi, needs: /:(?:\/\/|\\\/)/ },
  // ... and percent-encoded, as a URL inside another URL's query is: https%3A%2F%2Fuser%3APASSWORD%40host
  {
    pattern: /([a-z][a-z0-9+.-]{0,31}%3A%2F%2F(?:(?!%3A|%40|%2F)[^\s&'"]){0,256}%3A)((?:(?!%40)[^\s&'"]){1,512})(?=%40)/gi,
    needs: /%3A%2F%2F/i,
  },
  // a token given as the user alone: https://TOKEN@host (long enough not to be a user name)
  { pattern: /([a-z][a-z0-9+.-]{0,31}:\/\/)([A-Za-z0-9_-]{24,1024})(?=@)/gi, needs: /:\/\// },
  // Authorization headers and the like: Bearer x, Basic x
  { pattern: /(\b(?:bearer|basic|digest)\s+)([A-Za-z0-9._~+/=-]{8,})/gi, needs: /bearer|basic|digest/i },
  { pattern: /(\bauthorization\s*[:=]\s*(?:token\s+)?)([^\s'",;]+)/gi, needs: /authorization/i },
  { pattern: /(\b(?:set-)?cookie\s*:\s*)([^\r\n'"]+)/gi, needs: /cookie/i },
  // mysql -pPASS, mysqldump -pPASS (the password glued to -p)
  {
    pattern: /(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport|mysqlshow)\b[^\n;|&]{0,512}?\s-p)([^\s'"]+)/g,
    needs: /mysql|mariadb/,
  },
  // sshpass -p PASS, curl -u user:PASS
  { pattern: /(\bsshpass\s+-p\s*)(\S+)/g, needs: /sshpass/ },
  { pattern: /(\s(?:-u|--user)\s+[^\s:]+:)([^\s'"]+)/g, needs: /-u|--user/ },
];

/**
 * `--name=value`, `--name value`, `NAME=value`, `name: value`, `"name": "value"`: a secret when the
 * name is one (by its words, as for fields). Group 2 is the name, group 3 the value.
 */
const NAMED_SECRETS: RegExp[] = [
  /(--([A-Za-z][A-Za-z0-9_-]{0,127})(?:=|\s+))([^\s'"-][^\s'"]*)/g,
  /(["']?\b([A-Za-z][A-Za-z0-9_.-]{0,127})["']?\s*[:=]\s*["']?)([^\s'",;&)}]+)/g,
];

/** A copy of `value` with secrets replaced, for logs. Large strings are shortened. */
export function redact(value: unknown, maxString = 2_000): unknown {
  return walk(value, maxString, 0);
}

/** `text` with every secret it carries replaced by [REDACTED]. */
export function redactText(text: string): string {
  let out = text.replace(TOKEN, REDACTED);
  // Each pattern runs only where the text holds what it needs: most text holds none of it.
  for (const { pattern, needs } of INLINE_SECRETS) {
    if (!needs.test(out)) continue;
    out = out.replace(pattern, (match, keep: string, secret: string) =>
      secret === REDACTED || secret === "" ? match : `${keep}${REDACTED}`,
    );
  }
  for (const pattern of NAMED_SECRETS) {
    out = out.replace(pattern, (match, keep: string, name: string, secret: string) =>
      secret === REDACTED || !isSecretKey(name.split(".").pop()!) ? match : `${keep}${REDACTED}`,
    );
  }
  return out;
}

/**
 * How far past the cut a long string is still cleaned: to the end of the line the cut falls in, so
 * that a secret the cut splits is still recognised whole and its first half is not written.
 * Secrets do not span lines, save private keys, whose pattern runs to the end of what it is given.
 */
const LINE_SLACK = 4_096;

function shortened(value: string, maxString: number): string {
  if (value.length <= maxString) return redactText(value);
  // Only what is kept is cleaned: a call's whole output would cost more than the call.
  const end = value.indexOf("\n", maxString);
  const head = end === -1 || end - maxString > LINE_SLACK ? value : value.slice(0, end);
  const cleaned = redactText(head);
  const more = cleaned.length - maxString + (value.length - head.length);
  return more > 0 ? `${cleaned.slice(0, maxString)}… [${more} more characters]` : cleaned;
}

function walk(value: unknown, maxString: number, depth: number): unknown {
  if (typeof value === "string") return shortened(value, maxString);
  if (value === null || typeof value !== "object" || depth > 20) return value;
  if (Array.isArray(value)) return value.map((v) => walk(v, maxString, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretKey(k) && v !== null && v !== undefined && typeof v !== "boolean" ? REDACTED : walk(v, maxString, depth + 1);
  }
  return out;
}
