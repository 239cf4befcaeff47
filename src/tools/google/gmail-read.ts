import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import type { GmailApi } from "./gmail-api.js";
import { GmailParser, type MessagePart } from "./gmail-parser.js";
import { unexpectedResponse } from "./google-error.js";

const PartSchema: z.ZodType<MessagePart> = z.lazy(() =>
  z.looseObject({
    partId: z.string().nullish(),
    mimeType: z.string().nullish(),
    filename: z.string().nullish(),
    headers: z.array(z.looseObject({ name: z.string().nullish(), value: z.string().nullish() })).nullish(),
    body: z.looseObject({ attachmentId: z.string().nullish(), size: z.number().nullish(), data: z.string().nullish() }).nullish(),
    parts: z.array(PartSchema).nullish(),
  }),
);

const MessageSchema = z.looseObject({
  id: z.string(),
  threadId: z.string().optional(),
  labelIds: z.array(z.string()).optional(),
  snippet: z.string().optional(),
  payload: PartSchema,
});

/** spec 000's gmail_read: users.messages.get (format=full), decoded by GmailParser. */
export function gmailReadTool(api: GmailApi) {
  return defineTool({
    name: TOOL.gmailRead,
    title: "Read a Gmail message",
    description: loadDescription(import.meta.url, "gmail-read.txt"),
    input: z.strictObject({
      id: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,200}$/, "a Gmail message id is letters, digits, - and _ (take it from gmail_search)")
        .describe("The message id, as gmail_search returns it."),
    }),
    effect: "read",
    execute: async ({ id }, ctx) => {
      const res = await api.account.call(ctx.signal, () =>
        api.gmail.users.messages.get({ userId: "me", id, format: "full" }, api.request(ctx.signal)),
      );
      const parsed = MessageSchema.safeParse(res.data);
      if (!parsed.success) throw unexpectedResponse("Gmail", `message ${id} is not the documented shape`);
      const m = parsed.data;
      const headers = m.payload.headers;
      const get = (name: string) => GmailParser.getHeader(headers, name);
      const body = GmailParser.extractText(m.payload);
      const attachments = GmailParser.attachments(m.payload);
      const lines = [
        `From: ${get("From") ?? ""}`,
        `To: ${get("To") ?? ""}`,
        ...(get("Cc") ? [`Cc: ${get("Cc")}`] : []),
        `Date: ${get("Date") ?? ""}`,
        `Subject: ${get("Subject") ?? "(no subject)"}`,
        `Id: ${m.id}${m.threadId ? ` (thread ${m.threadId})` : ""}`,
        ...(m.labelIds?.length ? [`Labels: ${m.labelIds.join(", ")}`] : []),
        ...(attachments.length
          ? [`Attachments: ${attachments.map((a) => `${a.filename} (${a.mimeType}, ${a.size} bytes)`).join("; ")}`]
          : []),
        "",
        body || "(no text body)",
      ];
      return {
        content: lines.join("\n"),
        structured: {
          id: m.id,
          threadId: m.threadId ?? null,
          from: get("From") ?? null,
          to: get("To") ?? null,
          cc: get("Cc") ?? null,
          date: get("Date") ?? null,
          subject: get("Subject") ?? null,
          labels: m.labelIds ?? [],
          body,
          attachments,
        },
        untrusted: { source: "gmail" },
      };
    },
  });
}
