import { lazyGlob, literalsOf } from "./lazy-glob.js";

/**
 * Files that hold secrets. Tools are denied them unless a rule allows the path explicitly
 * (spec 002's is_sensitive_path, widened to what agents are known to leak).
 */
export const SENSITIVE_PATTERNS: readonly string[] = [
  "**/.env",
  "**/.env.*",
  "**/*.env",
  "**/.envrc",
  "**/credentials.json",
  "**/credentials",
  "**/client_secret*.json",
  "**/service-account*.json",
  "**/.aws/**",
  "**/.ssh/**",
  "**/.gnupg/**",
  "**/.kube/config",
  "**/.docker/config.json",
  "**/.netrc",
  "**/.npmrc",
  "**/.pypirc",
  "**/.git-credentials",
  "**/id_rsa*",
  "**/id_dsa*",
  "**/id_ecdsa*",
  "**/id_ed25519*",
  "**/*.pem",
  "**/*.key",
  "**/*.p12",
  "**/*.pfx",
  "**/.gmail-tokens/**",
  "**/.calendar-tokens/**",
  "**/secrets.*",
  // Tokens and passwords command-line tools keep in their own files.
  "**/.envrc.*",
  "**/.my.cnf",
  "**/.mylogin.cnf",
  "**/.pgpass",
  "**/.config/gh/hosts.yml",
  "**/.config/hub",
  "**/.config/github-copilot/**",
  "**/.config/configstore/**",
  "**/.cargo/credentials.toml",
  "**/.composer/auth.json",
  "**/.config/composer/auth.json",
  "**/.terraform.d/credentials.tfrc.json",
  "**/*.tfstate",
  "**/*.tfstate.backup",
  "**/.vault-token",
  "**/.boto",
  "**/.s3cfg",
  "**/.config/rclone/rclone.conf",
  "**/.azure/**",
  "**/.config/gcloud/**",
  "**/.config/op/**",
  "**/.config/sops/**",
  "**/.sentryclirc",
  "**/.htpasswd",
  "**/.password-store/**",
  "**/.local/share/keyrings/**",
  // Other agents' sign-ins.
  "**/.codex/auth.json",
  "**/.claude/.credentials.json",
  "**/.gemini/oauth_creds.json",
  // Browsers' profiles: saved passwords, cookies, sessions.
  "**/.mozilla/**",
  "**/.config/google-chrome/**",
  "**/.config/chromium/**",
  "**/.config/BraveSoftware/**",
];

/**
 * {@link SENSITIVE_PATTERNS} as git pathspecs, from the top of the repository, any case: the files
 * that may hold secrets, or with `exclude` everything else.
 */
export function sensitivePathspecs(exclude = false): string[] {
  const magic = exclude ? "exclude,top,glob,icase" : "top,glob,icase";
  return SENSITIVE_PATTERNS.map((p) => `:(${magic})${p}`);
}

/** Folder names that hold secrets wherever they appear in a path. */
export const SENSITIVE_FOLDERS: readonly string[] = [".ssh", ".aws", ".gnupg"];

const ALLOWED_TEMPLATES = lazyGlob(["**/.env.example", "**/.env.sample", "**/.env.template"], { dot: true });
const matcher = lazyGlob(SENSITIVE_PATTERNS, { dot: true, nocase: true });

/**
 * Literal text every sensitive path must contain (see {@link literalsOf}), plus the folder names
 * above; undefined when a pattern has none, which would send every path to the globs.
 */
const PATTERN_LITERALS = literalsOf(SENSITIVE_PATTERNS, true);
const LITERALS: readonly string[] | undefined = PATTERN_LITERALS && [...PATTERN_LITERALS, ...SENSITIVE_FOLDERS];

/**
 * True for a workspace-relative path that names a secret-bearing file or lies inside such a folder.
 * Nearly every path holds none of the literal text a sensitive one must, and is answered with a few
 * substring searches instead of ~30 globs: this runs for every file tool call and every grep hit.
 */
export function isSensitivePath(relative: string): boolean {
  if (LITERALS) {
    const lower = relative.toLowerCase();
    if (!LITERALS.some((literal) => lower.includes(literal))) return false;
  }
  const p = relative.replace(/^\.\//, "");
  if (ALLOWED_TEMPLATES(p)) return false;
  return matcher(p) || matcher(`${p}/`) || p.split("/").some((part) => SENSITIVE_FOLDERS.includes(part));
}
