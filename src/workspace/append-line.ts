import { closeSync, fstatSync, openSync, readSync, writeSync } from "node:fs";

/**
 * `text` as it should be appended to the file open (readable) at `fd`: after a newline if the file
 * does not end with one. A writer killed inside its write can leave part of a line (Linux stops a
 * write between pages for SIGKILL); starting on a new line keeps the next entry whole, and readers
 * skip the torn one.
 */
export function onNewLine(fd: number, text: string): string {
  const size = fstatSync(fd).size;
  if (size === 0) return text;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 10 ? `\n${text}` : text;
}

/** Appends whole lines to a JSON-lines record with one write(2) under O_APPEND, after any torn line. */
export function appendLines(file: string, text: string, mode = 0o600): void {
  const fd = openSync(file, "a+", mode);
  try {
    const buf = Buffer.from(onNewLine(fd, text), "utf8");
    if (writeSync(fd, buf, 0, buf.length) !== buf.length) throw new Error(`${file} could not be written whole (disk full?).`);
  } finally {
    closeSync(fd);
  }
}
