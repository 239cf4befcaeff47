import { readFileSync } from "node:fs";
import { BLANK_RUN, HIDDEN } from "../core/visible.js";

/**
 * The dashboard page served at `/`: the approval queue, the history of calls, metrics, tools and
 * live events. Written as real files in `dashboard/` (index.html, dashboard.css, dashboard.js) that
 * an editor and a linter understand; served as one self-contained page (no external scripts,
 * styles or fonts: it must work offline, and the Content-Security-Policy allows nothing else), with
 * the stylesheet and the script put inline where the page links them. Every piece of text from the
 * server goes in through textContent, never as HTML. The script's values from here are the
 * patterns of characters shown as escapes and of blank runs counted, shared with the terminal.
 */
function assemble(): string {
  const read = (name: string) => readFileSync(new URL(`./dashboard/${name}`, import.meta.url), "utf8");
  const css = read("dashboard.css");
  const js = read("dashboard.js")
    .replace('"__TACKLE_HIDDEN__"', () => JSON.stringify(HIDDEN.source))
    .replace('"__TACKLE_BLANK_RUN__"', () => JSON.stringify(BLANK_RUN.source));
  return read("index.html")
    .replace('<link rel="stylesheet" href="dashboard.css">', () => `<style>\n${css}</style>`)
    .replace('<script src="dashboard.js"></script>', () => `<script>\n${js}</script>`);
}

export const DASHBOARD_HTML = assemble();
