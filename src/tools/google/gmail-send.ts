import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import type { GmailApi } from "./gmail-api.js";
import { ToolError } from "../../core/errors.js";
import { unexpectedResponse } from "./google-error.js";
import { addressOf, buildRawMessage, splitAddresses, toBase64Url } from "./mime-message.js";

/** Recipients as one string ("a@x.com, b@y.com") or a list; each must be a valid address. */
const Recipients = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (typeof v === "string" ? splitAddresses(v) : v.flatMap(splitAddresses)))
  .superRefine((list, ctx) => {
    for (const entry of list) {
      if (!addressOf(entry))
        ctx.addIssue({ code: "custom", message: `"${entry}" is not an email address (use user@example.com or Name <user@example.com>)` });
    }
  });

const SentSchema = z.looseObject({ id: z.string(), threadId: z.string().optional(), labelIds: z.array(z.string()).optional() });

/** spec 000's gmail_send: a plain-text RFC 2822 message, base64url, to users.messages.send. */
export function gmailSendTool(api: GmailApi) {
  return defineTool({
    name: TOOL.gmailSend,
    title: "Send an email",
    description: loadDescription(import.meta.url, "gmail-send.txt"),
    input: z.strictObject({
      to: Recipients.refine((l) => l.length > 0, "at least one recipient is needed").describe("Recipient address(es)."),
      subject: z
        .string()
        .max(998)
        .refine((s) => !/[\r\n]/.test(s), "the subject must be one line")
        .describe("Subject line."),
      body: z.string().max(1_000_000).describe("Plain-text body."),
      cc: Recipients.optional().describe("Cc address(es)."),
      bcc: Recipients.optional().describe("Bcc address(es)."),
    }),
    effect: "network",
    // Mail cannot be unsent: a person always confirms.
    needsApproval: () => true,
    idempotent: false,
    preview: (args) =>
      [
        `To: ${args.to.join(", ")}`,
        ...(args.cc?.length ? [`Cc: ${args.cc.join(", ")}`] : []),
        ...(args.bcc?.length ? [`Bcc: ${args.bcc.join(", ")}`] : []),
        `Subject: ${args.subject}`,
        "",
        args.body,
      ].join("\n"),
    execute: async (args, ctx) => {
      const raw = toBase64Url(
        buildRawMessage({
          to: args.to,
          subject: args.subject,
          body: args.body,
          ...(args.cc ? { cc: args.cc } : {}),
          ...(args.bcc ? { bcc: args.bcc } : {}),
        }),
      );
      let res;
      try {
        res = await api.account.call(ctx.signal, () =>
          api.gmail.users.messages.send({ userId: "me", requestBody: { raw } }, api.request(ctx.signal)),
        );
      } catch (err) {
        // After a lost answer the mail may have gone out: sending again could send it twice.
        if (err instanceof ToolError && (err.code === "TIMEOUT" || err.code === "NETWORK_ERROR" || err.code === "UNAVAILABLE")) {
          throw new ToolError(
            err.code,
            `${err.message} The message may or may not have been sent: check with gmail_search "in:sent subject:..." before sending again.`,
            {
              recoverable: false,
              cause: err,
            },
          );
        }
        throw err;
      }
      const parsed = SentSchema.safeParse(res.data);
      if (!parsed.success)
        throw unexpectedResponse("Gmail", "the send response has no message id; check the Sent folder before sending again");
      const everyone = [...args.to, ...(args.cc ?? []), ...(args.bcc ?? [])];
      return {
        content:
          `Sent "${args.subject}" to ${everyone.join(", ")} (message id ` +
          `${parsed.data.id}${parsed.data.threadId ? `, thread ${parsed.data.threadId}` : ""}).`,
        structured: { id: parsed.data.id, threadId: parsed.data.threadId ?? null, to: args.to, cc: args.cc ?? [], bcc: args.bcc ?? [] },
      };
    },
  });
}
