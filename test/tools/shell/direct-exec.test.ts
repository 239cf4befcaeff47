import { describe, expect, it } from "vitest";
import { directArgv } from "../../../src/tools/shell/direct-exec.js";

describe("directArgv: only commands bash would merely split and exec", () => {
  it.each([
    ["true", ["true"]],
    ["ls -la src", ["ls", "-la", "src"]],
    ["  git status --short  ", ["git", "status", "--short"]],
    ["npm run test:unit", ["npm", "run", "test:unit"]],
  ])("%s", (cmd, argv) => expect(directArgv(cmd)).toEqual(argv));

  it.each([
    "echo hi",
    "cd src",
    "ls *.ts",
    "ls ~",
    "ls $HOME",
    "ls 'a b'",
    'ls "a"',
    "ls > out",
    "ls; rm x",
    "ls && rm x",
    "ls | wc",
    "FOO=1 ls",
    "ls\nrm x",
    "ls \\\nrm",
    "ls `id`",
    "ls $(id)",
    "ls {a,b}",
    "read x",
    "exec ls",
    "time ls",
    "ls &",
    "ls # comment",
    "ls a=b",
    "./script.sh",
    "/usr/bin/ls",
    // bash reads a no-break space as part of the word: the program "\u00a0ls", not ls.
    "\u00a0ls",
    "ls\u00a0",
  ])("%s goes through bash", (cmd) => {
    if (cmd === "ls a=b") expect(directArgv(cmd)).toEqual(["ls", "a=b"]);
    else expect(directArgv(cmd)).toBeUndefined();
  });
});
