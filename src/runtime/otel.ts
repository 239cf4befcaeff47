import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { CallTracer } from "./call-tracer.js";
import { redact } from "../core/redact.js";

/*
 * OpenTelemetry, on only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; the exporter reads the other OTEL_* variables itself). Each
 * call is one span named `execute_tool {tool}` with the GenAI semantic conventions' attributes,
 * the approval as tackle's own; arguments only with TACKLE_OTEL_ARGUMENTS=1, redacted like the
 * audit log's.
 */

/** Longest argument text put on a span. */
const MAX_ARGUMENTS_CHARS = 8_000;

export interface Telemetry {
  tracer: CallTracer;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** A tracer exporting over OTLP/HTTP, or undefined when no endpoint is configured. */
export function openTelemetry(env: Record<string, string | undefined>): Telemetry | undefined {
  if (!env["OTEL_EXPORTER_OTLP_ENDPOINT"] && !env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) return undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": env["OTEL_SERVICE_NAME"] || "tackle" }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  const tracer = provider.getTracer("tackle");
  const withArguments = env["TACKLE_OTEL_ARGUMENTS"] === "1";
  return {
    tracer: {
      start(tool, args) {
        const span = tracer.startSpan(`execute_tool ${tool}`, {
          kind: SpanKind.INTERNAL,
          attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "gen_ai.tool.type": "function" },
        });
        if (withArguments) {
          const text = JSON.stringify(redact(args)) ?? "";
          span.setAttribute(
            "gen_ai.tool.call.arguments",
            text.length > MAX_ARGUMENTS_CHARS ? `${text.slice(0, MAX_ARGUMENTS_CHARS)}…` : text,
          );
        }
        return {
          end(outcome) {
            span.setAttributes({
              "gen_ai.tool.call.id": outcome.toolCallId,
              "tackle.outcome.status": outcome.status,
              "tackle.approval.approved": outcome.status !== "rejected",
              ...(outcome.approvedBy ? { "tackle.approval.by": outcome.approvedBy } : {}),
              "tackle.execution_time_ms": outcome.executionTimeMs,
            });
            if (outcome.error) {
              span.setAttribute("error.type", outcome.error.code);
              if (outcome.status === "error") span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
            }
            span.end();
          },
        };
      },
    },
    shutdown: () => provider.shutdown(),
  };
}
