import { createServer, type Server } from "node:http";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

/*
 * OpenTelemetry against a local OTLP/HTTP collector (JSON, as the exporter sends it): one
 * `execute_tool {tool}` span per call with the GenAI attributes, arguments only when asked for.
 */

interface Span {
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

let collector: Server;
let endpoint: string;
const received: Span[] = [];
const ws = tempDir("tackle-otel-");

beforeAll(async () => {
  writeFileSync(path.join(ws.dir, "notes.txt"), "hello\n");
  collector = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += String(d)));
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        const data = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> };
        for (const r of data.resourceSpans) for (const s of r.scopeSpans) received.push(...s.spans);
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => collector.close(r));
  ws.cleanup();
});

const attr = (span: Span, key: string) => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

describe("OpenTelemetry", () => {
  it("sends one execute_tool span per call with the GenAI attributes and the approval, without arguments", async () => {
    const r = await runCli(["call", "read_file", "path=notes.txt"], {
      cwd: ws.dir,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: "tackle-test" },
    });
    expect(r.code, r.stderr).toBe(0);
    const span = received.find((s) => s.name === "execute_tool read_file");
    expect(span).toBeDefined();
    expect(attr(span!, "gen_ai.operation.name")).toBe("execute_tool");
    expect(attr(span!, "gen_ai.tool.name")).toBe("read_file");
    expect(String(attr(span!, "gen_ai.tool.call.id"))).toMatch(/\S/);
    expect(attr(span!, "tackle.outcome.status")).toBe("success");
    expect(attr(span!, "tackle.approval.by")).toBe("auto");
    expect(attr(span!, "gen_ai.tool.call.arguments")).toBeUndefined();
  });

  it("adds the arguments, redacted, only with TACKLE_OTEL_ARGUMENTS=1; a failed call's span says so", async () => {
    received.length = 0;
    const r = await runCli(["call", "read_file", "path=missing.txt"], {
      cwd: ws.dir,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, TACKLE_OTEL_ARGUMENTS: "1" },
    });
    expect(r.code).toBe(1);
    const span = received.find((s) => s.name === "execute_tool read_file")!;
    expect(JSON.parse(String(attr(span, "gen_ai.tool.call.arguments")))).toEqual({ path: "missing.txt" });
    expect(attr(span, "error.type")).toBe("FILE_NOT_FOUND");
    expect(span.status?.code).toBe(2);
  });
});
