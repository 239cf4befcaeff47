import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { z } from "zod";

/** What is cached: Google's token response, with expires_in turned into expiry_date (ms). */
export const StoredTokensSchema = z.looseObject({
  access_token: z.string().min(1).optional(),
  refresh_token: z.string().min(1).optional(),
  expiry_date: z.number().optional(),
  token_type: z.string().optional(),
  scope: z.string().optional(),
  id_token: z.string().optional(),
});
export type StoredTokens = z.infer<typeof StoredTokensSchema>;

const TOKEN_FILE = "token.json";

/**
 * OAuth tokens cached on disk (`.gmail-tokens/token.json`, ...). The folder is 0700 and the file
 * 0600, so only the owner can read them; a `.gitignore` keeps them out of commits. Writes are
 * atomic so a crash never leaves half a token.
 */
export class TokenStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  get file(): string {
    return path.join(this.dir, TOKEN_FILE);
  }

  /** The cached tokens, or undefined when there are none or the file is unreadable or corrupt. */
  load(): StoredTokens | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return undefined;
    }
    try {
      const parsed = StoredTokensSchema.safeParse(JSON.parse(text));
      if (!parsed.success || (!parsed.data.access_token && !parsed.data.refresh_token)) return undefined;
      return parsed.data;
    } catch {
      return undefined;
    }
  }

  /** Saves tokens, keeping a refresh token from before when the new response carries none. */
  save(tokens: StoredTokens): StoredTokens {
    const previous = this.load();
    const merged: StoredTokens = { ...tokens };
    if (!merged.refresh_token && previous?.refresh_token) merged.refresh_token = previous.refresh_token;
    for (const [k, v] of Object.entries(merged)) if (v === null || v === undefined) delete merged[k];
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is filtered by the umask and ignored for an existing folder.
    chmodSync(this.dir, 0o700);
    const ignore = path.join(this.dir, ".gitignore");
    if (!existsSync(ignore)) writeFileSync(ignore, "*\n", { mode: 0o600 });
    const tmp = path.join(this.dir, `.${TOKEN_FILE}.${randomBytes(6).toString("hex")}.tmp`);
    writeFileSync(tmp, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
    return merged;
  }

  /** Forgets the tokens (they were revoked). */
  clear(): void {
    rmSync(this.file, { force: true });
  }
}
