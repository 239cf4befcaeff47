import { importAtRuntime } from "../../process/import-at-runtime.js";

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

/** Most pages converted; a longer document says where it stopped. */
export const MAX_PDF_PAGES = 2000;

/** A PDF's text, page by page, and how many pages it has. */
export interface PdfText {
  pages: string[];
  total: number;
}

/**
 * The text of a PDF, one string per page, with lines where the document breaks them. Runs
 * offline with Mozilla's pdf.js (loaded only for PDFs), with scripting, eval and font loading
 * off: text comes out, nothing in the document runs. Throws when the file is not a readable PDF
 * (damaged, or encrypted with a password).
 */
export async function pdfText(bytes: Uint8Array, signal: AbortSignal): Promise<PdfText> {
  const pdfjs = await importAtRuntime<PdfJs>("pdfjs-dist/legacy/build/pdf.mjs");
  const task = pdfjs.getDocument({
    data: bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  const onAbort = () => void task.destroy();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const doc = await task.promise;
    const total = doc.numPages;
    const pages: string[] = [];
    for (let n = 1; n <= Math.min(total, MAX_PDF_PAGES); n++) {
      if (signal.aborted) throw signal.reason;
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) {
        if (!("str" in item)) continue;
        text += item.str;
        if (item.hasEOL) text += "\n";
      }
      pages.push(text.replace(/[ \t]+\n/g, "\n").trimEnd());
      page.cleanup();
    }
    return { pages, total };
  } finally {
    signal.removeEventListener("abort", onAbort);
    await task.destroy();
  }
}
