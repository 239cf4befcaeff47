import { lazyRequire } from "../process/lazy-require.js";

/** iconv-lite, loaded on first use: its encoding tables are half a megabyte of code, and most text is UTF-8. */
export const iconv = lazyRequire<typeof import("iconv-lite")>("iconv-lite");

/** A Content-Type split into its media type and charset. */
export interface MediaType {
  /** Lower case, without parameters; "" when absent. */
  type: string;
  charset?: string;
}

export function parseContentType(header: string | undefined): MediaType {
  if (!header) return { type: "" };
  const [type, ...params] = header.split(";");
  const out: MediaType = { type: (type ?? "").trim().toLowerCase() };
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param);
    if (match) out.charset = match[1]!.toLowerCase();
  }
  return out;
}

export function isHtml(type: string): boolean {
  return type === "text/html" || type === "application/xhtml+xml";
}

export function isJson(type: string): boolean {
  return type === "application/json" || type === "text/json" || type.endsWith("+json");
}

function bomCharset(body: Buffer): { charset: string; length: number } | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { charset: "utf-8", length: 3 };
  if (body[0] === 0xff && body[1] === 0xfe) return { charset: "utf-16le", length: 2 };
  if (body[0] === 0xfe && body[1] === 0xff) return { charset: "utf-16be", length: 2 };
  return undefined;
}

/** `<meta charset>` or `<meta http-equiv="Content-Type" content="...; charset=...">` near the start of a page. */
function metaCharset(body: Buffer): string | undefined {
  // The HTML standard's prescan looks at the first 1024 bytes; pages in the wild put it later.
  const head = body.subarray(0, 4096).toString("latin1");
  const direct = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return direct?.[1]?.toLowerCase();
}

function xmlCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 200).toString("latin1");
  return /^<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1]?.toLowerCase();
}

/**
 * Which charset a body is in: a byte-order mark, else the Content-Type charset, else a meta tag
 * (HTML) or XML declaration, else UTF-8. Unknown names fall back to UTF-8.
 */
export function detectCharset(body: Buffer, media: MediaType): string {
  const bom = bomCharset(body);
  if (bom) return bom.charset;
  const candidates = [media.charset, isHtml(media.type) || media.type === "" ? metaCharset(body) : undefined, xmlCharset(body)];
  for (const name of candidates) {
    if (name && iconv().encodingExists(name)) {
      // Pages labelled ISO-8859-1 or ASCII are decoded as windows-1252, as browsers do.
      return name === "iso-8859-1" || name === "latin1" || name === "us-ascii" || name === "ascii" ? "windows-1252" : name;
    }
  }
  return "utf-8";
}

/** Decodes a body to text in its charset (BOM stripped). */
export function decodeBody(body: Buffer, media: MediaType): { text: string; charset: string } {
  const charset = detectCharset(body, media);
  const bom = bomCharset(body);
  const bytes = bom ? body.subarray(bom.length) : body;
  return { text: iconv().decode(bytes, charset, { stripBOM: true }), charset };
}

/** Whether bytes look like binary data rather than text (a NUL byte near the start). */
export function looksBinary(body: Buffer): boolean {
  if (bomCharset(body)?.charset.startsWith("utf-16")) return false;
  return body.subarray(0, 1024).includes(0);
}
