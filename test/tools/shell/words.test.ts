import { describe, expect, it } from "vitest";
import { decodeAnsiC, shellQuote } from "../../../src/tools/shell/analysis/words.js";
import { analyzeCommand } from "../../../src/tools/shell/analysis/command-analysis.js";
import { shellTools } from "../../../src/tools/shell/index.js";
import { silentLogger } from "../../../src/core/logger.js";

describe("$'...' decoding", () => {
  it.each([
    ["\\x72m", "rm"],
    ["\\162\\155", "rm"],
    ["\\u0072m", "rm"],
    ["\\U00000072m", "rm"],
    ["a\\nb\\tc", "a\nb\tc"],
    ["\\'q\\'", "'q'"],
    ["\\\\", "\\"],
    ["\\cA", "\x01"],
    ["\\e[0m", "\x1b[0m"],
    ["\\z", "\\z"],
  ])("%s", (body, want) => expect(decodeAnsiC(body)).toBe(want));
});

describe("word resolution in commands", () => {
  const words = async (src: string) => (await analyzeCommand(src, { cwd: "/ws", home: "/home/u" })).commands[0]!;
  it.each([
    ["r''m x", "rm x"],
    ["'r'\"m\" x", "rm x"],
    ["\\r\\m x", "rm x"],
    ["/usr/bin/rm x", "rm x"],
    ["$'\\x72\\x6d' x", "rm x"],
    ['rm "a b"', "rm 'a b'"],
    ["rm a\\ b", "rm 'a b'"],
    ['echo "\\$HOME \\"q\\""', "echo '$HOME \"q\"'"],
    ["echo $HOME", "echo /home/u"],
    ["echo ${HOME}/x", "echo /home/u/x"],
    ["echo $PWD", "echo /ws"],
    ["echo $OTHER", "echo $OTHER"],
    ["echo a\\\nb", "echo ab"],
    ["echo v$((6*7))", "echo v42"],
    ["echo $((-9223372036854775807 - 2))", "echo 9223372036854775807"],
    ["echo $((7 / -2)) $((-7 % 3))", "echo -3 -1"],
  ])("%s → %s", async (src, text) => expect((await words(src)).text).toBe(text));

  it("marks dynamic words and unquoted globs", async () => {
    const c = await words("ls $X '*' * ~/x");
    expect(c.args.map((a) => [a.dynamic, a.glob, a.tilde])).toEqual([
      [true, false, false],
      [false, false, false],
      [false, true, false],
      [false, false, true],
    ]);
  });

  it("quotes only what needs it", () => {
    expect(shellQuote("a-b/c.d")).toBe("a-b/c.d");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
  });
});

describe("brace expansion", () => {
  it.each([
    ["{rm,-rf,x}", ["rm", "-rf", "x"]],
    ["a{b,c}d", ["abd", "acd"]],
    ["{a,b}{1,2}", ["a1", "a2", "b1", "b2"]],
    ["x{1..3}", ["x1", "x2", "x3"]],
    ["{c..a}", ["c", "b", "a"]],
    ["{a,{b,c}}", ["a", "b", "c"]],
    ["{single}", ["{single}"]],
    ["plain", ["plain"]],
  ])("%s", async (word, want) => {
    const { expandBraces } = await import("../../../src/tools/shell/analysis/words.js");
    expect(expandBraces(word)).toEqual(want);
  });

  it("gives up on expansions too large to check, and the command is then judged dynamic", async () => {
    const { expandBraces } = await import("../../../src/tools/shell/analysis/words.js");
    expect(expandBraces("{a,b}".repeat(20))).toBeUndefined();
    const a = await analyzeCommand(`echo ${"{a,b}".repeat(20)}`, { cwd: "/ws", home: "/h" });
    expect(a.flags.has("dynamic")).toBe(true);
  });
});

describe("the shell group", () => {
  it("provides shell, bash and shell_background, with bash's 30 s and shell's 120 s defaults", async () => {
    const tools = await shellTools({ config: {}, env: {}, workspace: process.cwd(), logger: silentLogger });
    expect(tools.map((t) => t.name)).toEqual(["shell", "bash", "shell_background"]);
    expect(tools[0]!.description).toMatch(/bash/);
    expect(tools[1]!.description).toMatch(/30-second/);
    expect(tools[0]!.inputSchema).toMatchObject({ required: ["command"] });
  });

  it("registers as the presets want: shell_exec resolves to shell, bash only listed in the assistant preset", async () => {
    const { createRegistry } = await import("../../../src/tools/builtin.js");
    const loaded = { config: {}, workspace: process.cwd(), env: {} };
    const plain = await createRegistry(loaded, { groups: [shellTools] });
    expect(plain.names()).toEqual(expect.arrayContaining(["shell", "shell_background"]));
    expect(plain.names()).not.toContain("bash");
    expect(plain.canonicalName("shell_exec")).toBe("shell");
    expect(plain.get("bash")?.name).toBe("bash");
    const assistant = await createRegistry(loaded, { groups: [shellTools], toolset: "assistant" });
    expect(assistant.names()).toContain("bash");
    expect(assistant.names()).not.toContain("shell");
  });

  it("rejects an invalid shell section with the field named", () => {
    expect(() =>
      shellTools({ config: { shell: { inactivityTimeoutMs: -1 } }, env: {}, workspace: process.cwd(), logger: silentLogger }),
    ).toThrow(/inactivityTimeoutMs/);
  });
});

describe("prompt detection", () => {
  it.each([
    ["Password: ", true],
    ["Overwrite file? [y/N] ", true],
    ["Continue? ", true],
    ["Enter passphrase for key '/x':", true],
    ["> ", true],
    ["Building:\n", false],
    ["Downloading...\n", false],
    ["done\n", false],
    ["progress 10%", false],
    ["", false],
  ])("%j → %s", async (text, want) => {
    const { looksLikePrompt } = await import("../../../src/tools/shell/run-command.js");
    expect(looksLikePrompt(text)).toBe(want);
  });
});

describe("output cleaned for the model", () => {
  it.each([
    ["\x1b[31mred\x1b[0m ok", "red ok"],
    ["10%\r50%\r100%\ndone\n", "100%\ndone\n"],
    ["a\r\nb\r\n", "a\nb\n"],
    ["\x1b]0;title\x07text", "text"],
    ["plain\n", "plain\n"],
  ])("%j", async (raw, want) => {
    const { cleanForModel } = await import("../../../src/tools/shell/shell.js");
    expect(cleanForModel(raw)).toBe(want);
  });
});
