/** Whole lines of a text around a range, found without splitting the whole text into lines. */
export interface LineSpan {
  /** Offset of the first character of the first line. */
  from: number;
  /** Offset just past the last line (after its "\n"), or the text's length. */
  to: number;
  /** 1-based number of the line at `from`. */
  firstLine: number;
}

/**
 * The lines touching [start, end), widened by `above` lines before and `below` lines after. A
 * large file is scanned only for line breaks, never copied line by line.
 */
export function lineSpan(text: string, start: number, end: number, above: number, below: number): LineSpan {
  let from = text.lastIndexOf("\n", start - 1) + 1;
  for (let i = 0; i < above && from > 0; i++) from = text.lastIndexOf("\n", from - 2) + 1;
  // The line holding `end` counts too: text joined onto it by a replacement changes it.
  let to = nextLineStart(text, end);
  for (let i = 0; i < below && to < text.length; i++) to = nextLineStart(text, to);
  return { from, to, firstLine: lineNumberAt(text, from) };
}

function nextLineStart(text: string, at: number): number {
  const newline = text.indexOf("\n", at);
  return newline === -1 ? text.length : newline + 1;
}

/** 1-based line number of the character at `offset`. */
function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
