/**
 * Spec 002 names the fields of its API and events in snake_case (`tool_call_id`, `params`,
 * `requires_approval`, `execution_time_ms`). The API offers them beside tackle's own names, so a
 * client written from either reads the same data; nothing is renamed or removed.
 */
export function withSpecNames<T extends object>(data: T): T & Record<string, unknown> {
  const d = data as Record<string, unknown>;
  const extra: Record<string, unknown> = {};
  if (typeof d.toolCallId === "string") extra.tool_call_id = d.toolCallId;
  if ("args" in d) extra.params = d.args;
  if (typeof d.requiresApproval === "boolean") extra.requires_approval = d.requiresApproval;
  if (typeof d.executionTimeMs === "number") extra.execution_time_ms = d.executionTimeMs;
  if (typeof d.status === "string" && typeof d.toolName === "string" && typeof d.content === "string")
    Object.assign(extra, outcomeNames(d));
  const outcome = d.outcome as Record<string, unknown> | undefined;
  if (outcome && typeof outcome === "object") {
    // tool.result's data in spec 002 is {status, result}.
    extra.status = outcome.status;
    extra.result = outcome.content;
  }
  return { ...data, ...extra };
}

/**
 * An outcome as spec 002's result formats write it: a success's `result` with its content and
 * metadata (`bytes_written` for a write), a rejection's `reason` and the person's `user_message`.
 */
function outcomeNames(o: Record<string, unknown>): Record<string, unknown> {
  const metadata = (o.metadata ?? {}) as Record<string, unknown>;
  if (o.status === "success") {
    const written = typeof metadata.bytesWritten === "number" ? { bytes_written: metadata.bytesWritten } : {};
    return { result: { content: o.content, metadata: { ...metadata, ...written } } };
  }
  if (o.status !== "rejected") return {};
  return {
    reason: o.approvedBy === "user" ? "User rejected the operation" : String(o.content),
    ...(typeof o.userMessage === "string" ? { user_message: o.userMessage } : {}),
  };
}
