import { z } from "zod";

/** A plain-text email to send. Addresses are `user@example.com` or `Name <user@example.com>`. */
export interface OutgoingEmail {
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  body: string;
}

const EMAIL = z.email();
const ANGLE = /^\s*(?:"?([^"<>]*?)"?\s*)?<([^<>\s]+)>\s*$/;

/** The bare address inside `Name <addr>` or `addr`, or undefined when it is not a valid address. */
export function addressOf(entry: string): string | undefined {
  if (/[\r\n]/.test(entry)) return undefined;
  const m = ANGLE.exec(entry);
  const addr = (m ? m[2]! : entry).trim();
  return EMAIL.safeParse(addr).success ? addr : undefined;
}

/** Splits "a@x.com, B <b@y.com>; c@z.com" at commas and semicolons outside quotes and brackets. */
export function splitAddresses(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  let angle = 0;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (ch === "<" && !quoted) angle++;
    else if (ch === ">" && !quoted) angle = Math.max(0, angle - 1);
    if ((ch === "," || ch === ";") && !quoted && angle === 0) {
      if (current.trim()) out.push(current.trim());
      current = "";
    } else {
      current += ch;
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** RFC 2047 encoded-words (UTF-8, base64) for header text that is not plain ASCII. */
export function encodeHeaderText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  const words: string[] = [];
  let chunk = "";
  // An encoded-word may be at most 75 characters: 45 bytes of UTF-8 become 60 of base64.
  for (const ch of text) {
    if (Buffer.byteLength(chunk + ch, "utf8") > 45) {
      words.push(chunk);
      chunk = "";
    }
    chunk += ch;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, "utf8").toString("base64")}?=`).join("\r\n ");
}

function formatAddress(entry: string): string {
  const m = ANGLE.exec(entry);
  if (!m) return entry.trim();
  const name = m[1]?.trim();
  if (!name) return `<${m[2]}>`;
  const shown = /^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/["\\]/g, "\\$&")}"` : encodeHeaderText(name);
  return `${shown} <${m[2]}>`;
}

/**
 * The message in RFC 2822 / MIME form: headers, then the body as UTF-8 text in base64 (safe for
 * any characters and line lengths). Gmail fills in From, Date and Message-ID, and removes Bcc
 * from what recipients see.
 */
export function buildRawMessage(email: OutgoingEmail): string {
  const headers = [`To: ${email.to.map(formatAddress).join(", ")}`];
  if (email.cc?.length) headers.push(`Cc: ${email.cc.map(formatAddress).join(", ")}`);
  if (email.bcc?.length) headers.push(`Bcc: ${email.bcc.map(formatAddress).join(", ")}`);
  headers.push(
    `Subject: ${encodeHeaderText(email.subject)}`,
    "MIME-Version: 1.0",
    'Content-Type: text/plain; charset="UTF-8"',
    "Content-Transfer-Encoding: base64",
  );
  const body = Buffer.from(email.body.replace(/\r?\n/g, "\r\n"), "utf8")
    .toString("base64")
    .replace(/.{76}(?=.)/g, "$&\r\n");
  return `${headers.join("\r\n")}\r\n\r\n${body}\r\n`;
}

/** base64url without padding, as the Gmail API's `raw` field takes it. */
export function toBase64Url(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}
