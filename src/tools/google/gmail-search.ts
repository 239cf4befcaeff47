import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { htmlToText } from "../../net/html-to-text.js";
import type { GmailApi } from "./gmail-api.js";
import { GmailParser, type MessagePart } from "./gmail-parser.js";
import { unexpectedResponse } from "./google-error.js";
import { mapLimit } from "../../core/map-limit.js";

const ListSchema = z.looseObject({
  messages: z.array(z.looseObject({ id: z.string(), threadId: z.string().optional() })).optional(),
  nextPageToken: z.string().optional(),
  resultSizeEstimate: z.number().optional(),
});

const MetadataSchema = z.looseObject({
  id: z.string(),
  threadId: z.string().optional(),
  snippet: z.string().optional(),
  labelIds: z.array(z.string()).optional(),
  internalDate: z.string().optional(),
  payload: z.looseObject({ headers: z.array(z.looseObject({ name: z.string(), value: z.string() })).optional() }).optional(),
});

/** Metadata requests in flight at once: quick, without tripping Gmail's per-user rate limit. */
const CONCURRENCY = 5;

/** spec 000's gmail_search: ids from users.messages.list, then each message's metadata. */
export function gmailSearchTool(api: GmailApi) {
  return defineTool({
    name: TOOL.gmailSearch,
    title: "Search Gmail",
    description: loadDescription(import.meta.url, "gmail-search.txt"),
    input: z.strictObject({
      query: z.string().max(2000).describe('Gmail search syntax, e.g. "is:unread from:boss@example.com newer_than:2d".'),
      maxResults: z.number().int().min(1).max(50).default(10).describe("How many messages to return (1-50, default 10)."),
      pageToken: z.string().max(500).optional().describe("The pageToken from a previous search, for the next page."),
    }),
    effect: "read",
    // Mail arrives all the time: a cached answer would hide it.
    cacheable: false,
    execute: async (args, ctx) => {
      const list = await api.account.call(ctx.signal, () =>
        api.gmail.users.messages.list(
          { userId: "me", q: args.query, maxResults: args.maxResults, ...(args.pageToken ? { pageToken: args.pageToken } : {}) },
          api.request(ctx.signal),
        ),
      );
      const parsed = ListSchema.safeParse(list.data);
      if (!parsed.success) throw unexpectedResponse("Gmail", "the message list is not the documented shape");
      const ids = (parsed.data.messages ?? []).slice(0, args.maxResults);
      const messages = await mapLimit(ids, CONCURRENCY, async ({ id }) => {
        const res = await api.account.call(ctx.signal, () =>
          api.gmail.users.messages.get(
            { userId: "me", id, format: "metadata", metadataHeaders: ["From", "To", "Subject", "Date"] },
            api.request(ctx.signal),
          ),
        );
        const m = MetadataSchema.safeParse(res.data);
        if (!m.success) throw unexpectedResponse("Gmail", `message ${id} is not the documented shape`);
        const headers = m.data.payload?.headers as MessagePart["headers"];
        return {
          id: m.data.id,
          threadId: m.data.threadId ?? null,
          from: GmailParser.getHeader(headers, "From") ?? "",
          to: GmailParser.getHeader(headers, "To") ?? "",
          subject: GmailParser.getHeader(headers, "Subject") ?? "(no subject)",
          date: GmailParser.getHeader(headers, "Date") ?? (m.data.internalDate ? new Date(Number(m.data.internalDate)).toUTCString() : ""),
          // Snippets arrive with HTML entities (&#39;).
          snippet: htmlToText(m.data.snippet ?? "", { links: false }),
          unread: m.data.labelIds?.includes("UNREAD") ?? false,
          labels: m.data.labelIds ?? [],
        };
      });
      const next = parsed.data.nextPageToken;
      const heading =
        messages.length === 0
          ? `No messages match "${args.query}".`
          : `${messages.length} message${messages.length === 1 ? "" : "s"} matching ` +
            `"${args.query}"${parsed.data.resultSizeEstimate ? ` (about ${parsed.data.resultSizeEstimate} in all)` : ""}:`;
      const lines = messages.map(
        (m, i) =>
          `${i + 1}. [${m.id}]${m.unread ? " (unread)" : ""} ${m.date}\n   From: ${m.from}\n   Subject: ${m.subject}${m.snippet ? `\n   ${m.snippet}` : ""}`,
      );
      const tail = next ? [`More results: call gmail_search again with pageToken "${next}".`] : [];
      return {
        content: [heading, ...lines, ...tail].join("\n"),
        structured: { messages, nextPageToken: next ?? null, resultSizeEstimate: parsed.data.resultSizeEstimate ?? null },
        // Subjects and snippets are written by whoever sent the mail.
        ...(messages.length ? { untrusted: { source: "gmail" } } : {}),
      };
    },
  });
}
