import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { openStore } from "../../src/store/open-store.js";
import { postgresSuite, startPostgres, type Postgres } from "../support/postgres.js";
import { storeContract } from "./contract.js";

const suite = postgresSuite("the PostgreSQL store");

describe.skipIf(suite.skip)(suite.title, () => {
  let server: Postgres;
  beforeAll(async () => {
    server = await startPostgres(suite.bin);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  }, 180_000);

  storeContract(() => {
    const namespace = `/ws/${randomUUID()}`;
    return {
      open: () => openPostgresStore({ url: server.url, namespace }),
      auditRows: async () => {
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        try {
          const { rows } = await client.query<{ phase: string; toolCallId: string; record: unknown }>(
            `SELECT phase, tool_call_id AS "toolCallId", record FROM tackle_audit WHERE namespace = $1 ORDER BY id`,
            [namespace],
          );
          return rows;
        } finally {
          await client.end();
        }
      },
    };
  });

  it("keeps the audit trail append-only: a change or removal is refused by the database", async () => {
    const store = await openPostgresStore({ url: server.url, namespace: `/ws/${randomUUID()}` });
    await store.audit({ phase: "start", toolCallId: "c1", tool: "read_file", record: { args: {} } });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await expect(client.query("UPDATE tackle_audit SET tool = 'x'")).rejects.toThrow(/append-only/);
      await expect(client.query("DELETE FROM tackle_audit")).rejects.toThrow(/append-only/);
      await expect(client.query("TRUNCATE tackle_audit")).rejects.toThrow(/append-only/);
      const { rows } = await client.query("SELECT phase, tool FROM tackle_audit WHERE tool_call_id = 'c1'");
      expect(rows).toEqual([{ phase: "start", tool: "read_file" }]);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("keeps one workspace's desk apart from another's in the same database", async () => {
    const a = await openStore(server.url, "/ws/one");
    const b = await openStore(server.url, "/ws/two");
    try {
      await a.addRule({ rule: "read_file", origin: "person", by: "ann" });
      expect(await b.rules()).toEqual([]);
      expect(a.location).not.toContain(new URL(server.url).password);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("says where it could not connect, without the password", async () => {
    const url = new URL(server.url);
    url.password = "wrong-secret";
    await expect(openPostgresStore({ url: url.toString(), namespace: "/x" })).rejects.toThrow(
      /Cannot open the store at postgres:\/\/tackle:\*\*\*@/,
    );
    await expect(openPostgresStore({ url: url.toString(), namespace: "/x" })).rejects.not.toThrow(/wrong-secret/);
  });

  it("sets up its tables once when many instances start at the same moment", async () => {
    const stores = await Promise.all(Array.from({ length: 8 }, () => openPostgresStore({ url: server.url, namespace: "/ws/race" })));
    await Promise.all(stores.map((s) => s.close()));
  });
});
