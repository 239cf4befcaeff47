import { oneLine, spaceRunsCounted, terminalSafe } from "../../core/visible.js";
import type { ApprovalRequest, ApprovalResponse, Approver } from "../../runtime/approver.js";
import type { Desk } from "../../store/desk.js";

/**
 * Where a call that needs a person is asked: "auto" asks the client's person through elicitation
 * when the client can, else the shared desk when a dashboard or Emacs session watches it; "client"
 * only ever asks the client; "desk" always sends it to the desk (and waits there).
 */
export const APPROVAL_ROUTES = ["auto", "client", "desk"] as const;
export type ApprovalRoute = (typeof APPROVAL_ROUTES)[number];

/** How one MCP tools/call can reach the person behind its client; absent when it cannot. */
export type AskPerson = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalResponse>;

/**
 * The runner takes one approver for its lifetime, while an MCP server serves many clients, each
 * able (or not) to ask its person. Calls are routed by the toolCallId the server assigns: the
 * tools/call handler registers how to ask for that one call before running it.
 */
export class ElicitationRouter {
  readonly #routes = new Map<string, AskPerson | undefined>();
  #desk: Desk | undefined;
  #mode: ApprovalRoute = "auto";

  /** Sends calls to `desk` as `mode` says (see {@link ApprovalRoute}). */
  useDesk(desk: Desk, mode: ApprovalRoute): void {
    this.#desk = desk;
    this.#mode = mode;
  }

  /** Routes approval for `toolCallId` to `ask` (or to a refusal when undefined) until the returned function runs. */
  route(toolCallId: string, ask: AskPerson | undefined): () => void {
    this.#routes.set(toolCallId, ask);
    return () => this.#routes.delete(toolCallId);
  }

  /** The approver to give the runner. */
  readonly approver: Approver = async (request, signal) => {
    const ask = this.#routes.get(request.toolCallId);
    const desk = this.#desk;
    if (desk && this.#mode !== "client") {
      if (this.#mode === "desk") return desk.approver(request, signal);
      if (!ask) {
        const watched = await desk.store.instances().then(
          (all) => all.some((i) => i.desk),
          () => false,
        );
        if (watched) return desk.approver(request, signal);
        return { approved: false, automatic: true, message: `${NO_ELICITATION}; ${NO_DESK}` };
      }
    }
    if (!ask) return { approved: false, automatic: true, message: NO_ELICITATION };
    return ask(request, signal);
  };
}

export const NO_ELICITATION =
  "the MCP client cannot ask its user (it does not support elicitation), so nobody could " +
  "approve it; it needs an allow rule or a more permissive approval mode (--approval)";

const NO_DESK =
  "or a person answering at the approval desk: `tackle serve` in the same workspace shows such calls on its dashboard and in Emacs";

/** The form a person fills in: approve or not, remember it, and an optional word for the model. */
export const APPROVAL_SCHEMA = {
  type: "object",
  properties: {
    approve: { type: "boolean", title: "Approve this call", description: "Run the tool call as shown.", default: false },
    always: {
      type: "boolean",
      title: "Always allow calls like this",
      description: "Approve this call and later ones like it for the rest of the session.",
      default: false,
    },
    message: { type: "string", title: "Message for the model", description: "Optional: why not, or what to do instead." },
    arguments: {
      type: "string",
      title: "Edited arguments (JSON)",
      description: "Optional: run with these arguments instead (a JSON object); they are checked again.",
    },
  },
  required: ["approve"],
} as const;

/**
 * The text the person reads: what tool, with what, why it asks, and a preview when there is one.
 * Many clients show it in a terminal: what the model chose is written out, never obeyed (escape
 * sequences, reordering marks, characters that draw nothing), and a run of spaces is counted.
 */
export function approvalMessage(request: ApprovalRequest): string {
  let args = terminalSafe(JSON.stringify(spaceRunsCounted(request.args), null, 2));
  if (args.length > 4000) args = `${args.slice(0, 4000)}\n... (${args.length - 4000} more characters)`;
  const lines = [
    `Allow tackle to run ${oneLine(request.tool)} (${request.effect})?`,
    `Why: ${oneLine(request.reason).replace(/\.$/, "")}.`,
    `Arguments:\n${args}`,
  ];
  if (request.preview) {
    const preview = request.preview.length > 8000 ? `${request.preview.slice(0, 8000)}\n... (preview cut)` : request.preview;
    lines.push(`Preview:\n${terminalSafe(preview)}`);
  }
  return lines.join("\n\n");
}

/** An elicitation result (either era) as the runner's approval response. */
export function responseFromElicitation(result: { action?: unknown; content?: unknown } | undefined): ApprovalResponse {
  const action = result?.action;
  const content = (result?.content && typeof result.content === "object" ? result.content : {}) as Record<string, unknown>;
  const message = typeof content.message === "string" && content.message.trim() ? content.message.trim() : undefined;
  if (action === "accept") {
    if (content.approve !== true) return { approved: false, message: message ?? "not approved" };
    const response: ApprovalResponse = { approved: true, ...(content.always === true ? { always: true } : {}) };
    const edited = typeof content.arguments === "string" ? content.arguments.trim() : "";
    if (edited) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(edited);
      } catch {
        return { approved: false, message: "the edited arguments were not valid JSON, so the call did not run" };
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
        return { approved: false, message: "the edited arguments were not a JSON object, so the call did not run" };
      }
      response.modifiedArgs = parsed as Record<string, unknown>;
    }
    return response;
  }
  if (action === "decline") return { approved: false, message: message ?? "declined" };
  return { approved: false, message: "the approval request was cancelled" };
}
