import { isUtf8 } from "node:buffer";

/** What the first bytes of a file say about it. */
export interface ContentKind {
  kind: "text" | "image" | "binary";
  /** For images and known binary formats. */
  mimeType?: string;
  /** A short human name of the format ("PNG image", "PDF document", "ELF executable"). */
  label?: string;
  /** For text: the encoding it should be decoded with. */
  encoding?: "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";
  /** A byte-order mark was found (its length in bytes). */
  bomLength?: number;
}

/** How many leading bytes are enough to judge a file. */
export const SNIFF_BYTES = 8192;

interface Magic {
  /** The bytes the file starts with. */
  bytes: number[];
  kind: "image" | "binary";
  mimeType: string;
  label: string;
  /** A second signature that must also match (WEBP inside RIFF). */
  also?: { bytes: number[]; offset: number };
}

const MAGICS: readonly Magic[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], kind: "image", mimeType: "image/png", label: "PNG image" },
  { bytes: [0xff, 0xd8, 0xff], kind: "image", mimeType: "image/jpeg", label: "JPEG image" },
  { bytes: [0x47, 0x49, 0x46, 0x38], kind: "image", mimeType: "image/gif", label: "GIF image" },
  {
    bytes: [0x52, 0x49, 0x46, 0x46],
    also: { bytes: [0x57, 0x45, 0x42, 0x50], offset: 8 },
    kind: "image",
    mimeType: "image/webp",
    label: "WebP image",
  },
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], kind: "binary", mimeType: "application/pdf", label: "PDF document" },
  { bytes: [0x50, 0x4b, 0x03, 0x04], kind: "binary", mimeType: "application/zip", label: "ZIP archive (or an Office / JAR file)" },
  { bytes: [0x1f, 0x8b], kind: "binary", mimeType: "application/gzip", label: "gzip archive" },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], kind: "binary", mimeType: "application/x-elf", label: "ELF executable" },
  { bytes: [0x4d, 0x5a], kind: "binary", mimeType: "application/x-msdownload", label: "Windows executable" },
  {
    bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66],
    kind: "binary",
    mimeType: "application/vnd.sqlite3",
    label: "SQLite database",
  },
  { bytes: [0x00, 0x61, 0x73, 0x6d], kind: "binary", mimeType: "application/wasm", label: "WebAssembly module" },
  { bytes: [0x42, 0x5a, 0x68], kind: "binary", mimeType: "application/x-bzip2", label: "bzip2 archive" },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], kind: "binary", mimeType: "application/x-xz", label: "xz archive" },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], kind: "binary", mimeType: "application/zstd", label: "zstd archive" },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], kind: "binary", mimeType: "application/x-7z-compressed", label: "7-Zip archive" },
];

function startsWith(buf: Uint8Array, bytes: readonly number[], offset = 0): boolean {
  if (buf.length < offset + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[offset + i] !== bytes[i]) return false;
  return true;
}

/** The signatures by their first byte: most text starts with a byte that begins none of them. */
const MAGICS_BY_FIRST = new Map<number, Magic[]>();
for (const m of MAGICS) MAGICS_BY_FIRST.set(m.bytes[0]!, [...(MAGICS_BY_FIRST.get(m.bytes[0]!) ?? []), m]);

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const UTF16LE_BOM = [0xff, 0xfe];
const UTF16BE_BOM = [0xfe, 0xff];

/** The image MIME types read_file returns as image blocks. */
export const IMAGE_MIME_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

// Bytes below 0x20 that text does not hold, as bits of a mask: all but backspace, tab, newline, form
// feed, carriage return and escape (ANSI colours).
const CONTROL_BYTES = 0xffffffff & ~((1 << 0x08) | (1 << 0x09) | (1 << 0x0a) | (1 << 0x0c) | (1 << 0x0d) | (1 << 0x1b));
const NOT_HIGH = /[^\x80-\xff]+/g;

function isControl(byte: number): number {
  return byte < 0x20 ? (CONTROL_BYTES >>> byte) & 1 : 0;
}

/**
 * How many control bytes the sample holds. Four bytes at a time: a word with no byte below 0x20
 * (most of any text) is passed over whole, so a small read's sniff costs a fraction of the read.
 */
function countControl(sample: Uint8Array): number {
  const n = sample.length;
  let count = 0;
  let i = 0;
  for (const aligned = Math.min(n, (4 - (sample.byteOffset & 3)) & 3); i < aligned; i++) count += isControl(sample[i]!);
  const words = new Uint32Array(sample.buffer, sample.byteOffset + i, (n - i) >>> 2);
  for (let w = 0; w < words.length; w++) {
    const x = words[w]!;
    // Non-zero when some byte of x is below 0x20 (and only then).
    if (((x - 0x20202020) & ~x & 0x80808080) === 0) continue;
    const at = i + w * 4;
    count += isControl(sample[at]!) + isControl(sample[at + 1]!) + isControl(sample[at + 2]!) + isControl(sample[at + 3]!);
  }
  for (i += words.length * 4; i < n; i++) count += isControl(sample[i]!);
  return count;
}

/**
 * Judges the first bytes of a file (pass up to {@link SNIFF_BYTES}): a known format by its magic
 * number, UTF-16 by its byte-order mark, binary when it holds NUL bytes or is mostly control
 * characters, and otherwise text (UTF-8, or windows-1252 when it is not valid UTF-8 yet reads
 * as text).
 */
export function sniffContent(sample: Uint8Array): ContentKind {
  for (const m of MAGICS_BY_FIRST.get(sample[0]!) ?? []) {
    if (startsWith(sample, m.bytes) && (!m.also || startsWith(sample, m.also.bytes, m.also.offset))) {
      return { kind: m.kind, mimeType: m.mimeType, label: m.label };
    }
  }
  if (startsWith(sample, UTF8_BOM)) return { kind: "text", encoding: "utf-8", bomLength: 3 };
  if (startsWith(sample, UTF16LE_BOM)) return { kind: "text", encoding: "utf-16le", bomLength: 2 };
  if (startsWith(sample, UTF16BE_BOM)) return { kind: "text", encoding: "utf-16be", bomLength: 2 };
  if (sample.length === 0) return { kind: "text", encoding: "utf-8" };
  if (sample.includes(0)) return { kind: "binary", mimeType: "application/octet-stream", label: "binary data" };
  if (countControl(sample) / sample.length > 0.1) return { kind: "binary", mimeType: "application/octet-stream", label: "binary data" };
  if (isValidUtf8(sample, true)) return { kind: "text", encoding: "utf-8" };
  // Not UTF-8. Text in a legacy 8-bit encoding has few high bytes; random data has many. Counted by
  // the regex engine over a one-byte string.
  const high = Buffer.from(sample.buffer, sample.byteOffset, sample.length).toString("latin1").replace(NOT_HIGH, "").length;
  if (high / sample.length > 0.3) return { kind: "binary", mimeType: "application/octet-stream", label: "binary data" };
  return { kind: "text", encoding: "windows-1252" };
}

/**
 * Whether the bytes are valid UTF-8. With `truncated`, up to three trailing bytes of a sequence
 * cut off by the end of the sample are forgiven.
 */
export function isValidUtf8(bytes: Uint8Array, truncated = false): boolean {
  let end = bytes.length;
  if (truncated) {
    // Step back over an incomplete trailing sequence: a lead byte whose continuation was cut off.
    for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
      const b = bytes[i]!;
      if ((b & 0xc0) === 0x80) continue;
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      if (bytes.length - i < need) end = i;
      break;
    }
  }
  return isUtf8(end === bytes.length ? bytes : bytes.subarray(0, end));
}
