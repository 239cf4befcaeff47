import os from "node:os";
import pg from "pg";
import { boundedEvent, goneHere, instanceId, STALE_MS } from "./instance.js";
import type { AuditEntry, ClaimResult, DeskAnswer, DeskEntry, DeskItem, InstanceInfo, SharedRule, Store, StoredEvent } from "./store.js";
import { DeskAnswerSchema, DeskEntrySchema } from "./wire.js";

/*
 * The PostgreSQL store, for several instances on one machine or many. Every row carries its
 * namespace (by default the workspace's path), so one database serves several workspaces.
 *   tackle_desk       waiting calls; an answer is claimed by one UPDATE ... WHERE answer IS NULL,
 *                     so exactly one of any number of answers wins;
 *   tackle_instances  heartbeats by the database's clock, so machines' clocks need not agree;
 *   tackle_rules      "always" rules with their origin; removal is marked, not deleted;
 *   tackle_events     ids from one sequence, written under a lock per namespace so that ids
 *                     commit in order and a reader resuming after an id misses nothing;
 *   tackle_audit      append-only: a trigger refuses UPDATE, DELETE and TRUNCATE.
 * Changes are announced with NOTIFY on one channel; readers also poll, so a lost notification
 * only delays.
 */

const CHANNEL = "tackle_store";
const HEARTBEAT_MS = 3_000;
/** Events are a replay buffer, not the record (the audit trail is): a day is kept. */
const EVENTS_KEPT = "1 day";
const ANSWERS_KEPT = "1 hour";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tackle_desk (
  namespace text NOT NULL, id text NOT NULL, tool_call_id text NOT NULL, entry jsonb NOT NULL, instance text NOT NULL,
  asked_at timestamptz NOT NULL DEFAULT now(), answer jsonb, answered_at timestamptz,
  PRIMARY KEY (namespace, id));
CREATE INDEX IF NOT EXISTS tackle_desk_waiting ON tackle_desk (namespace, asked_at) WHERE answer IS NULL;
CREATE TABLE IF NOT EXISTS tackle_instances (
  id text PRIMARY KEY, namespace text NOT NULL, host text NOT NULL, pid integer NOT NULL, desk boolean NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(), seen_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS tackle_rules (
  id bigserial PRIMARY KEY, namespace text NOT NULL, rule text NOT NULL, origin text NOT NULL, created_by text NOT NULL,
  tool text, tool_call_id text, created_at timestamptz NOT NULL DEFAULT now(), removed_at timestamptz, removed_by text);
CREATE TABLE IF NOT EXISTS tackle_events (
  id bigserial PRIMARY KEY, namespace text NOT NULL, instance text NOT NULL, type text NOT NULL, data jsonb,
  at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS tackle_events_ns ON tackle_events (namespace, id);
CREATE TABLE IF NOT EXISTS tackle_audit (
  id bigserial PRIMARY KEY, namespace text NOT NULL, instance text NOT NULL, tool_call_id text NOT NULL, phase text NOT NULL,
  tool text NOT NULL, record jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS tackle_audit_call ON tackle_audit (namespace, tool_call_id);
CREATE OR REPLACE FUNCTION tackle_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'tackle_audit is append-only'; END $$;
CREATE OR REPLACE TRIGGER tackle_audit_no_change BEFORE UPDATE OR DELETE ON tackle_audit
  FOR EACH ROW EXECUTE FUNCTION tackle_audit_append_only();
CREATE OR REPLACE TRIGGER tackle_audit_no_truncate BEFORE TRUNCATE ON tackle_audit
  FOR EACH STATEMENT EXECUTE FUNCTION tackle_audit_append_only();
CREATE OR REPLACE FUNCTION tackle_publish(ns text, inst text, types text[], datas jsonb[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('tackle_events:' || ns));
  INSERT INTO tackle_events (namespace, instance, type, data)
    SELECT ns, inst, t.type, t.data FROM unnest(types, datas) WITH ORDINALITY AS t(type, data, n) ORDER BY t.n;
  PERFORM pg_notify('${CHANNEL}', json_build_object('ns', ns, 'what', 'events')::text);
END $$;
`;

export interface PostgresStoreOptions {
  /** A connection string: postgres://user:password@host:port/database */
  url: string;
  /** Which desk in the database: by default the workspace's path. */
  namespace: string;
}

/** Opens the store: connects, and creates or updates the tables (once, under a lock, whoever else starts). */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const pool = new pg.Pool({ connectionString: options.url, max: 8, connectionTimeoutMillis: 10_000 });
  // An idle client's error (the server restarted) is the pool's to recover from, not a crash.
  pool.on("error", () => undefined);
  try {
    const client = await pool.connect();
    try {
      await client.query("SELECT pg_advisory_lock(hashtext('tackle_schema'))");
      try {
        await client.query(SCHEMA);
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtext('tackle_schema'))");
      }
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(`Cannot open the store at ${shownUrl(options.url)}: ${(err as Error).message}`);
  }
  return new PostgresStore(pool, options);
}

/** A connection string as people may see it: without the password. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres://(unreadable address)";
  }
}

export class PostgresStore implements Store {
  readonly kind = "postgres" as const;
  readonly location: string;
  readonly instance = instanceId();
  readonly #pool: pg.Pool;
  readonly #ns: string;
  readonly #url: string;
  readonly #listeners = new Set<(what: "desk" | "rules" | "events") => void>();
  #listener: pg.Client | undefined;
  #listening = false;
  #heartbeat: NodeJS.Timeout | undefined;
  #registered: { desk: boolean } | undefined;
  #closed = false;
  #lastSweep = 0;

  constructor(pool: pg.Pool, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#ns = options.namespace;
    this.#url = options.url;
    this.location = shownUrl(options.url);
  }

  async post(entry: DeskEntry): Promise<void> {
    await this.#pool.query(
      `WITH i AS (INSERT INTO tackle_desk (namespace, id, tool_call_id, entry, instance, asked_at)
         VALUES ($1, $2, $3, $4, $5, to_timestamp($6 / 1000.0)) RETURNING id)
       SELECT pg_notify('${CHANNEL}', json_build_object('ns', $1::text, 'what', 'desk')::text) FROM i`,
      [this.#ns, entry.id, entry.request.toolCallId, JSON.stringify(entry), entry.instance, entry.askedAt],
    );
  }

  async claim(id: string, answer: DeskAnswer): Promise<ClaimResult> {
    const won = await this.#pool.query(
      `WITH c AS (UPDATE tackle_desk SET answer = $3, answered_at = now() WHERE namespace = $1 AND id = $2 AND answer IS NULL RETURNING id)
       SELECT pg_notify('${CHANNEL}', json_build_object('ns', $1::text, 'what', 'desk')::text) FROM c`,
      [this.#ns, id, JSON.stringify(answer)],
    );
    if (won.rowCount === 1) return { won: true };
    const kept = await this.answerOf(id);
    return kept ? { won: false, reason: "answered", answer: kept } : { won: false, reason: "unknown" };
  }

  async answerOf(id: string): Promise<DeskAnswer | undefined> {
    const { rows } = await this.#pool.query<{ answer: unknown }>("SELECT answer FROM tackle_desk WHERE namespace = $1 AND id = $2", [
      this.#ns,
      id,
    ]);
    const parsed = DeskAnswerSchema.safeParse(rows[0]?.answer);
    return parsed.success ? (parsed.data as DeskAnswer) : undefined;
  }

  async waiting(): Promise<DeskItem[]> {
    const { rows } = await this.#pool.query<{ entry: unknown; alive: boolean }>(
      `SELECT d.entry, EXISTS (SELECT 1 FROM tackle_instances i WHERE i.id = d.instance AND i.seen_at > now() - $2 * interval '1 millisecond') AS alive
         FROM tackle_desk d WHERE d.namespace = $1 AND d.answer IS NULL ORDER BY d.asked_at, d.id`,
      [this.#ns, STALE_MS],
    );
    return rows.flatMap((r) => {
      const parsed = DeskEntrySchema.safeParse(r.entry);
      if (!parsed.success) return [];
      const entry = parsed.data as DeskEntry;
      return [{ ...entry, orphaned: !r.alive || goneHere(entry.instance) }];
    });
  }

  async settle(_id: string): Promise<void> {
    // Answered rows stay a while, to tell a late second answer who won; old ones go now and then.
    const now = Date.now();
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    await this.#pool.query(`DELETE FROM tackle_desk WHERE namespace = $1 AND answered_at < now() - interval '${ANSWERS_KEPT}'`, [this.#ns]);
  }

  async register(desk: boolean): Promise<void> {
    const first = !this.#registered;
    this.#registered = { desk: desk || (this.#registered?.desk ?? false) };
    await this.#beat();
    if (!first) return;
    this.#heartbeat = setInterval(() => void this.#beat().catch(() => undefined), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  async #beat(): Promise<void> {
    await this.#pool.query(
      `INSERT INTO tackle_instances (id, namespace, host, pid, desk) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET seen_at = now(), desk = excluded.desk`,
      [this.instance, this.#ns, os.hostname(), process.pid, this.#registered?.desk ?? false],
    );
  }

  async instances(): Promise<InstanceInfo[]> {
    const { rows } = await this.#pool.query<{ id: string; host: string; pid: number; desk: boolean; seen: string }>(
      `SELECT id, host, pid, desk, (extract(epoch FROM seen_at) * 1000)::float8 AS seen FROM tackle_instances
        WHERE namespace = $1 AND seen_at > now() - $2 * interval '1 millisecond' ORDER BY started_at`,
      [this.#ns, STALE_MS],
    );
    return rows.map((r) => ({ id: r.id, host: r.host, pid: r.pid, desk: r.desk, seenAt: Number(r.seen) }));
  }

  async addRule(rule: Omit<SharedRule, "id" | "at">): Promise<SharedRule> {
    const { rows } = await this.#pool.query<{ id: string; at: string }>(
      `WITH i AS (INSERT INTO tackle_rules (namespace, rule, origin, created_by, tool, tool_call_id) VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING id, (extract(epoch FROM created_at) * 1000)::float8 AS at)
       SELECT i.id, i.at, pg_notify('${CHANNEL}', json_build_object('ns', $1::text, 'what', 'rules')::text) FROM i`,
      [this.#ns, rule.rule, rule.origin, rule.by, rule.tool ?? null, rule.toolCallId ?? null],
    );
    return { ...rule, id: String(rows[0]!.id), at: Number(rows[0]!.at) };
  }

  async removeRule(id: string, by: string): Promise<boolean> {
    if (!/^\d{1,18}$/.test(id)) return false;
    const { rowCount } = await this.#pool.query(
      `WITH u AS (UPDATE tackle_rules SET removed_at = now(), removed_by = $3 WHERE namespace = $1 AND id = $2 AND removed_at IS NULL RETURNING id)
       SELECT pg_notify('${CHANNEL}', json_build_object('ns', $1::text, 'what', 'rules')::text) FROM u`,
      [this.#ns, id, by],
    );
    return rowCount === 1;
  }

  async rules(): Promise<SharedRule[]> {
    const { rows } = await this.#pool.query<{
      id: string;
      rule: string;
      origin: "person" | "approval";
      created_by: string;
      tool: string | null;
      tool_call_id: string | null;
      at: string;
    }>(
      `SELECT id, rule, origin, created_by, tool, tool_call_id, (extract(epoch FROM created_at) * 1000)::float8 AS at
         FROM tackle_rules WHERE namespace = $1 AND removed_at IS NULL ORDER BY id`,
      [this.#ns],
    );
    return rows.map((r) => ({
      id: String(r.id),
      rule: r.rule,
      origin: r.origin,
      by: r.created_by,
      at: Number(r.at),
      ...(r.tool ? { tool: r.tool } : {}),
      ...(r.tool_call_id ? { toolCallId: r.tool_call_id } : {}),
    }));
  }

  async publish(events: ReadonlyArray<{ type: string; data: unknown }>): Promise<void> {
    if (events.length === 0) return;
    const bounded = events.map(boundedEvent);
    await this.#pool.query("SELECT tackle_publish($1, $2, $3::text[], $4::jsonb[])", [
      this.#ns,
      this.instance,
      bounded.map((e) => e.type),
      bounded.map((e) => JSON.stringify(e.data ?? null)),
    ]);
    const now = Date.now();
    if (now - this.#lastSweep > 10 * 60_000) {
      this.#lastSweep = now;
      await this.#pool.query(`DELETE FROM tackle_events WHERE namespace = $1 AND at < now() - interval '${EVENTS_KEPT}'`, [this.#ns]);
    }
  }

  async eventsAfter(after: string | undefined, limit: number): Promise<StoredEvent[]> {
    const from = after !== undefined && /^\d{1,18}$/.test(after) ? after : "0";
    const { rows } = await this.#pool.query<{ id: string; type: string; data: unknown; instance: string; at: string }>(
      `SELECT id, type, data, instance, (extract(epoch FROM at) * 1000)::float8 AS at FROM tackle_events
        WHERE namespace = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [this.#ns, from, limit],
    );
    return rows.map((r) => ({ id: String(r.id), type: r.type, data: r.data, instance: r.instance, at: Number(r.at) }));
  }

  async lastEventId(): Promise<string | undefined> {
    const { rows } = await this.#pool.query<{ id: string | null }>("SELECT max(id) AS id FROM tackle_events WHERE namespace = $1", [
      this.#ns,
    ]);
    return rows[0]?.id != null ? String(rows[0].id) : "0";
  }

  isAfter(a: string, b: string): boolean {
    return BigInt(a) > BigInt(b);
  }

  async audit(...entries: AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // One statement, so the rows go in together and in order (ids rise through a multi-row VALUES).
    // Named for one and two rows, the calls' shapes, so each connection parses and plans them once.
    const rows = entries.map((_, i) => `($1, $2, $${3 + i * 4}, $${4 + i * 4}, $${5 + i * 4}, $${6 + i * 4})`);
    await this.#pool.query({
      ...(entries.length <= 2 ? { name: `tackle_audit_insert_${entries.length}` } : {}),
      text: `INSERT INTO tackle_audit (namespace, instance, tool_call_id, phase, tool, record) VALUES ${rows.join(", ")}`,
      values: [this.#ns, this.instance, ...entries.flatMap((e) => [e.toolCallId, e.phase, e.tool, JSON.stringify(e.record)])],
    });
  }

  onChange(listener: (what: "desk" | "rules" | "events") => void): () => void {
    this.#listeners.add(listener);
    if (!this.#listening) {
      this.#listening = true;
      void this.#listen();
    }
    return () => void this.#listeners.delete(listener);
  }

  /** One connection LISTENs; when it drops it comes back, and polling covers the gap. */
  async #listen(): Promise<void> {
    while (!this.#closed) {
      const client = new pg.Client({ connectionString: this.#url });
      const ended = new Promise<void>((resolve) => {
        client.on("error", () => resolve());
        client.on("end", () => resolve());
      });
      client.on("notification", (n) => {
        let note: { ns?: unknown; what?: unknown } = {};
        try {
          note = JSON.parse(n.payload ?? "{}") as typeof note;
        } catch {
          return;
        }
        if (note.ns !== this.#ns || (note.what !== "desk" && note.what !== "rules" && note.what !== "events")) return;
        for (const l of [...this.#listeners]) l(note.what);
      });
      try {
        await client.connect();
        this.#listener = client;
        await client.query(`LISTEN ${CHANNEL}`);
        // What changed while nobody listened is found by the listeners' own polls.
        await ended;
      } catch {
        // the server is not there now; try again shortly
      }
      this.#listener = undefined;
      await client.end().catch(() => undefined);
      if (!this.#closed) await new Promise((r) => setTimeout(r, 1000).unref());
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#listeners.clear();
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
    if (this.#registered) {
      // Gone at once rather than after its silence: its waiting calls show as orphaned now.
      await this.#pool.query("DELETE FROM tackle_instances WHERE id = $1", [this.instance]).catch(() => undefined);
    }
    await this.#pool.end().catch(() => undefined);
  }
}
