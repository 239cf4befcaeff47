import type { AuditSink } from "../runtime/shared-rules.js";
import type { Store } from "./store.js";

/**
 * The runner's audit trail in the store: a "start" row before a call runs, an "end" row before its
 * outcome is returned; a read's two rows in one write once it has run.
 */
export function storeAudit(store: Store): AuditSink {
  return {
    begin: (toolCallId, tool, args) => store.audit({ phase: "start", toolCallId, tool, record: { args } }),
    end: (toolCallId, tool, record) => store.audit({ phase: "end", toolCallId, tool, record }),
    read: (toolCallId, tool, args, record) =>
      store.audit({ phase: "start", toolCallId, tool, record: { args } }, { phase: "end", toolCallId, tool, record }),
  };
}
