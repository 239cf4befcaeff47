import { isSecretKey, redactText } from "../core/redact.js";

/** The working folder's names, which the secret word `pwd` would otherwise take. */
const NOT_SECRET = new Set(["PWD", "OLDPWD"]);
const verdicts = new Map<string, boolean>();
const VERDICTS_KEPT = 1024;

/**
 * Whether a variable may carry a secret: by the words of its name (GITHUB_TOKEN, PGPASSWORD,
 * AWS_SECRET_ACCESS_KEY), as the audit log judges fields, or by its value (a known token format,
 * a password in a URL such as DATABASE_URL's). Judged once per name and value: the environment
 * is the same from one command to the next.
 */
export function mayHoldSecret(name: string, value: string): boolean {
  if (NOT_SECRET.has(name)) return false;
  const key = `${name}\0${value}`;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = isSecretKey(name) || redactText(value) !== value;
    if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
    verdicts.set(key, verdict);
  }
  return verdict;
}

/** `env` less the variables that may carry secrets (see {@link mayHoldSecret}), with the names withheld. */
export function withoutSecrets(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; withheld: string[] } {
  const out: NodeJS.ProcessEnv = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && mayHoldSecret(name, value)) withheld.push(name);
    else out[name] = value;
  }
  return { env: out, withheld };
}
