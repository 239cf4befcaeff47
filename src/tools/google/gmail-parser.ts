import { iconv } from "../../net/charset.js";
import { htmlToText } from "../../net/html-to-text.js";

/** A Gmail API MessagePart (users.messages.get with format=full), as far as it is read here. */
export interface MessagePart {
  partId?: string | null;
  mimeType?: string | null;
  filename?: string | null;
  headers?: Array<{ name?: string | null; value?: string | null }> | null;
  body?: { attachmentId?: string | null; size?: number | null; data?: string | null } | null;
  parts?: MessagePart[] | null;
}

export interface Attachment {
  filename: string;
  mimeType: string;
  size: number;
}

/**
 * spec 000's GmailParser: decodes Gmail's base64url bodies, walks MIME trees to the readable
 * text, and looks headers up without regard to case.
 */
export const GmailParser = {
  /**
   * Decodes a body's `data` (base64url, padding optional) to text in the part's charset
   * (UTF-8 when unnamed or unknown).
   */
  decodeBody(data: string | null | undefined, charset?: string): string {
    if (!data) return "";
    const bytes = Buffer.from(data.replace(/-/g, "+").replace(/_/g, "/").replace(/\s+/g, ""), "base64");
    const name = charset?.trim().toLowerCase();
    if (name && name !== "utf-8" && name !== "utf8" && iconv().encodingExists(name)) return iconv().decode(bytes, name);
    return bytes.toString("utf8");
  },

  /** The value of header `name` (any case), or undefined. */
  getHeader(headers: MessagePart["headers"], name: string): string | undefined {
    const wanted = name.toLowerCase();
    const found = headers?.find((h) => h.name?.toLowerCase() === wanted);
    return found?.value ?? undefined;
  },

  /**
   * The readable text of a message: recursive over multipart trees. In multipart/alternative
   * the HTML version is preferred (converted to text), as spec 000 says, since senders often
   * put a stub in the plain one; parts of mixed and related messages are joined; attachments
   * are skipped.
   */
  extractText(part: MessagePart | null | undefined): string {
    return extract(part, 0).trim();
  },

  /** Files attached anywhere in the tree: name, type, size. */
  attachments(part: MessagePart | null | undefined): Attachment[] {
    const out: Attachment[] = [];
    const walk = (p: MessagePart | null | undefined, depth: number) => {
      if (!p || depth > MAX_DEPTH) return;
      if (isAttachment(p))
        out.push({ filename: p.filename || "(unnamed)", mimeType: p.mimeType ?? "application/octet-stream", size: p.body?.size ?? 0 });
      for (const child of p.parts ?? []) walk(child, depth + 1);
    };
    walk(part, 0);
    return out;
  },
};

/** MIME trees are shallow; a deeper one is malformed or hostile. */
const MAX_DEPTH = 32;

function mime(part: MessagePart): string {
  return (part.mimeType ?? "").toLowerCase();
}

function charsetOf(part: MessagePart): string | undefined {
  const type = GmailParser.getHeader(part.headers, "Content-Type");
  const match = type ? /charset\s*=\s*"?([^";\s]+)"?/i.exec(type) : null;
  return match?.[1];
}

function isAttachment(part: MessagePart): boolean {
  if (mime(part).startsWith("multipart/")) return false;
  const disposition = GmailParser.getHeader(part.headers, "Content-Disposition")?.toLowerCase() ?? "";
  return Boolean(part.filename) || disposition.startsWith("attachment") || Boolean(part.body?.attachmentId && !part.body?.data);
}

function contains(part: MessagePart, type: string, depth: number): boolean {
  if (depth > MAX_DEPTH || isAttachment(part)) return false;
  if (mime(part) === type) return true;
  return (part.parts ?? []).some((p) => contains(p, type, depth + 1));
}

function extract(part: MessagePart | null | undefined, depth: number): string {
  if (!part || depth > MAX_DEPTH) return "";
  const type = mime(part);
  if (type.startsWith("multipart/alternative")) {
    const children = part.parts ?? [];
    const chosen =
      children.find((c) => contains(c, "text/html", depth + 1)) ??
      children.find((c) => contains(c, "text/plain", depth + 1)) ??
      children[children.length - 1];
    return extract(chosen, depth + 1);
  }
  if (type.startsWith("multipart/") || type === "message/rfc822" || (!part.body?.data && part.parts?.length)) {
    return (part.parts ?? [])
      .map((p) => extract(p, depth + 1))
      .filter((t) => t.trim())
      .join("\n\n");
  }
  if (isAttachment(part)) return "";
  if (type === "text/html") return htmlToText(GmailParser.decodeBody(part.body?.data, charsetOf(part)));
  if (type === "text/plain" || type === "" || type.startsWith("text/"))
    return GmailParser.decodeBody(part.body?.data, charsetOf(part)).replace(/\r\n?/g, "\n");
  return "";
}
