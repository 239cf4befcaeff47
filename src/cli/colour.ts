import { styleText } from "node:util";

type Style = Parameters<typeof styleText>[0];

/** The colours the command line uses, each for one meaning. */
export interface Palette {
  enabled: boolean;
  success(text: string): string;
  failure(text: string): string;
  warning(text: string): string;
  /** Names and headings a person looks for first. */
  strong(text: string): string;
  /** Hints and secondary detail. */
  dim(text: string): string;
  /** A unified diff with added lines green, removed red and hunk headers cyan. */
  diff(text: string): string;
}

interface ColourStream {
  isTTY?: boolean;
}

/**
 * Whether to colour what goes to `stream`, by the usual conventions: FORCE_COLOR (other than 0)
 * forces it, NO_COLOR turns it off, otherwise only a terminal other than TERM=dumb gets colour.
 * Decided here rather than by styleText's own check, whose rules differ between Node 20 and 22.
 */
export function colourEnabled(stream: ColourStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "0" && force !== "false") return true;
  if (force === "0" || force === "false") return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return Boolean(stream.isTTY) && env.TERM !== "dumb";
}

/** The palette for one stream: plain text when colour is off. */
export function palette(stream: ColourStream, env: NodeJS.ProcessEnv = process.env): Palette {
  const enabled = colourEnabled(stream, env);
  const paint =
    (style: Style) =>
    (text: string): string =>
      enabled && text !== "" ? styleText(style, text, { validateStream: false }) : text;
  const added = paint("green");
  const removed = paint("red");
  const hunk = paint("cyan");
  const header = paint("bold");
  return {
    enabled,
    success: paint(["bold", "green"]),
    failure: paint(["bold", "red"]),
    warning: paint(["bold", "yellow"]),
    strong: paint("bold"),
    dim: paint("dim"),
    diff: (text) =>
      enabled
        ? text
            .split("\n")
            .map((line) =>
              line.startsWith("+++") || line.startsWith("---")
                ? header(line)
                : line.startsWith("+")
                  ? added(line)
                  : line.startsWith("-")
                    ? removed(line)
                    : line.startsWith("@@")
                      ? hunk(line)
                      : line,
            )
            .join("\n")
        : text,
  };
}

/** Text that looks like a unified diff (results of edit tools, approval previews). */
export function looksLikeDiff(text: string): boolean {
  return /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m.test(text) && /^[+-]/m.test(text);
}
