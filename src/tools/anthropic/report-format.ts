import { formatCount } from "../../core/format-count.js";
import { centsToUsd } from "./cents-to-usd.js";
import type { UsageArgs } from "./report-request.js";
import type { ReportPages } from "./report-pages.js";

type Row = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const usd = (n: number): string => `$${n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`;

/** Replaces each `amount` (cents, decimal string) with `amount_usd`, recursively. */
export function withUsd(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withUsd);
  if (value === null || typeof value !== "object") return value;
  const out: Row = {};
  for (const [key, v] of Object.entries(value as Row)) {
    if (key === "amount" && (typeof v === "string" || typeof v === "number")) {
      const converted = centsToUsd(v);
      out["amount_usd"] = converted ?? v;
    } else {
      out[key] = withUsd(v);
    }
  }
  return out;
}

/** The grouping fields of a result row that carry a value ("model=claude-...", ...). */
function groupLabel(row: Row, keys: readonly string[]): string {
  const parts = keys.filter((k) => row[k] !== null && row[k] !== undefined && row[k] !== "").map((k) => `${k}=${String(row[k])}`);
  return parts.length ? parts.join(", ") : "all";
}

function cacheCreation(row: Row): number {
  const cc = row["cache_creation"];
  if (cc && typeof cc === "object") return Object.values(cc as Row).reduce<number>((s, v) => s + num(v), 0);
  return num(row["cache_creation_input_tokens"]) + num(row["cache_creation_5m_input_tokens"]) + num(row["cache_creation_1h_input_tokens"]);
}

function webSearches(row: Row): number {
  const stu = row["server_tool_use"];
  return stu && typeof stu === "object" ? num((stu as Row)["web_search_requests"]) : 0;
}

const USAGE_KEYS = [
  "model",
  "workspace_id",
  "api_key_id",
  "service_tier",
  "context_window",
  "inference_geo",
  "speed",
  "account_id",
  "service_account_id",
];
const COST_KEYS = ["description", "workspace_id", "model", "cost_type", "token_type", "service_tier", "context_window"];

function formatUsage(data: Row[]): string[] {
  const lines: string[] = [];
  const total = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, searches: 0 };
  for (const bucket of data) {
    const results = (bucket["results"] as Row[]) ?? [];
    lines.push(`${String(bucket["starting_at"])} → ${String(bucket["ending_at"])}${results.length ? "" : ": no usage"}`);
    for (const r of results) {
      const row = {
        input: num(r["uncached_input_tokens"]),
        cacheRead: num(r["cache_read_input_tokens"]),
        cacheWrite: cacheCreation(r),
        output: num(r["output_tokens"]),
        searches: webSearches(r),
      };
      for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += row[k];
      lines.push(
        `  ${groupLabel(r, USAGE_KEYS)}: input ${formatCount(row.input)} · cache read ${formatCount(row.cacheRead)} · cache write ` +
          `${formatCount(row.cacheWrite)} · output ${formatCount(row.output)}${row.searches ? ` · web searches ${formatCount(row.searches)}` : ""}`,
      );
    }
  }
  lines.push(
    `Total: input ${formatCount(total.input)} · cache read ${formatCount(total.cacheRead)} · cache write ${formatCount(total.cacheWrite)} ` +
      `· output ${formatCount(total.output)} tokens${total.searches ? ` · web searches ${formatCount(total.searches)}` : ""}`,
  );
  return lines;
}

function formatCost(data: Row[]): string[] {
  const lines: string[] = [];
  let total = 0;
  for (const bucket of data) {
    const results = (bucket["results"] as Row[]) ?? [];
    let day = 0;
    const rows: string[] = [];
    for (const r of results) {
      const amount = typeof r["amount_usd"] === "number" ? (r["amount_usd"] as number) : 0;
      day += amount;
      const currency = typeof r["currency"] === "string" && r["currency"] !== "USD" ? ` (${String(r["currency"])})` : "";
      rows.push(`  ${groupLabel(r, COST_KEYS)}: ${usd(amount)}${currency}`);
    }
    total += day;
    lines.push(`${String(bucket["starting_at"])} → ${String(bucket["ending_at"])}: ${usd(day)}`, ...rows);
  }
  lines.push(`Total: ${usd(total)}`);
  return lines;
}

function formatClaudeCode(data: Row[]): string[] {
  if (data.length === 0) return ["No Claude Code activity recorded for this day."];
  const lines: string[] = [];
  for (const rec of data) {
    const actor = (rec["actor"] ?? {}) as Row;
    const who = String(actor["email_address"] ?? actor["api_key_name"] ?? actor["type"] ?? "unknown actor");
    const core = (rec["core_metrics"] ?? {}) as Row;
    const loc = (core["lines_of_code"] ?? {}) as Row;
    const parts = [
      `sessions ${formatCount(num(core["num_sessions"]))}`,
      `lines +${formatCount(num(loc["added"]))}/-${formatCount(num(loc["removed"]))}`,
      `commits ${formatCount(num(core["commits_by_claude_code"]))}`,
      `PRs ${formatCount(num(core["pull_requests_by_claude_code"]))}`,
    ];
    const tools = (rec["tool_actions"] ?? {}) as Row;
    const toolText = Object.entries(tools)
      .map(([name, v]) => `${name} ${num((v as Row)?.["accepted"])}✓/${num((v as Row)?.["rejected"])}✗`)
      .join(", ");
    let cost = 0;
    for (const m of (rec["model_breakdown"] as Row[] | undefined) ?? []) {
      const est = (m["estimated_cost"] ?? {}) as Row;
      cost += typeof est["amount_usd"] === "number" ? (est["amount_usd"] as number) : 0;
    }
    lines.push(
      `${String(rec["date"] ?? "").slice(0, 10)} ${who}: ` +
        `${parts.join(" · ")}${toolText ? ` · tools ${toolText}` : ""}${cost ? ` · est. cost ${usd(cost)}` : ""}`,
    );
  }
  return lines;
}

/** The report as the model reads it: a heading, one line per result, totals. */
export function formatReport(args: UsageArgs, report: ReportPages, data: Row[]): string {
  const heading =
    args.action === "claude_code"
      ? `Claude Code usage for ${args.starting_at} (${data.length} record${data.length === 1 ? "" : "s"}):`
      : `${args.action === "usage" ? "Messages usage" : "Cost"} from ` +
        `${args.starting_at}${args.ending_at ? ` to ${args.ending_at}` : ""}, ${args.bucket_width ?? "1d"} buckets${
          args.group_by?.length ? `, grouped by ${args.group_by.join(", ")}` : ""
        } (${data.length} bucket${data.length === 1 ? "" : "s"}):`;
  const body = args.action === "usage" ? formatUsage(data) : args.action === "cost" ? formatCost(data) : formatClaudeCode(data);
  const more = report.incomplete ? [`(Stopped after ${report.pages} pages; more data exists. Narrow the range to see the rest.)`] : [];
  return [heading, ...body, ...more].join("\n");
}
