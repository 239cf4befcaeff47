import { describe, expect, it } from "vitest";
import { analyzeCommand, type CommandAnalysis } from "../../../src/tools/shell/analysis/command-analysis.js";
import { plainCommands, plainWords } from "../../../src/tools/shell/analysis/plain-words.js";
import { seeded } from "./helpers.js";

const options = { cwd: "/ws", home: "/home/u" };

/** What the judgement reads of an analysis (its source aside). */
function judged(a: CommandAnalysis): unknown {
  return { ok: a.ok, commands: a.commands, redirections: a.redirections, flags: [...a.flags] };
}

/**
 * Plain words are judged without the grammar. The reference is the grammar's own reading of the
 * same line with a line break after it (not plain, so parsed; the same command to bash).
 */
async function agrees(command: string): Promise<void> {
  expect(plainCommands(command), command).toBeDefined();
  const quick = await analyzeCommand(command, options);
  const parsed = await analyzeCommand(`${command}\n`, options);
  expect(judged(quick), command).toEqual(judged(parsed));
}

const NAMES = (
  "ls echo cat rm git npm make sed awk python3 python3.11 node perl ruby3.2 bash sh zsh dash eval source . cd pushd popd find " +
  "watch su flock script ssh alias trap mapfile readarray let declare typeset export local readonly unset unsetenv if then for " +
  "while time coproc function command builtin exec sudo doas env xargs parallel timeout nice nohup stdbuf ionice chroot " +
  "setsid runuser true false test printf read type hash kill exit : /usr/bin/rm ./rm ../x/rm bin/ls tar curl"
).split(" ");
const ARGS = (
  "-c -e -exec -execdir -ok + -la -rf / . .. ../x /etc/passwd .env ~x a=b PATH=/x LD_PRELOAD=/x.so HOME=/h X=1 -n 5 -- -S " +
  "-u root host -o -i -C x=1+2 1+2 ls rm id -p -P -L -print -delete -name x.ts -C -f -s 10s --command -i.bak s/a/b/ " +
  "BEGIN{} of=/x if=/dev/zero -0 -I -j2 @file %s a,b x:y x@y"
)
  .split(" ")
  .filter((a) => plainWords(`x ${a}`) !== undefined);

/** Keywords open compound commands, invalid without the rest (which the grammar reads differently with a line break after). */
const KEYWORDS = new Set("if then for while time coproc function".split(" "));
const FIRST = NAMES.filter((n) => !KEYWORDS.has(n) && plainWords(n) !== undefined);

/** Generated from a fixed seed, so a failure names a command that fails again. */
function* generated(count: number): Generator<string> {
  const next = seeded(20261129);
  for (let i = 0; i < count; i++) {
    const words = [FIRST[next(FIRST.length)]!];
    const more = next(6);
    for (let k = 0; k < more; k++) words.push(next(4) === 0 ? NAMES[next(NAMES.length)]! : ARGS[next(ARGS.length)]!);
    yield words.join(next(3) === 0 ? " \t " : " ");
  }
}

/** Quoted words: text with nothing left for bash to expand, however much of bash's syntax it holds. */
const QUOTED = [
  "'a b'",
  '"a b"',
  "'$HOME'",
  "'*.ts'",
  "'~'",
  "'#x'",
  "'a;b|c&&d'",
  '"a;b|c"',
  "''",
  '""',
  "'-rf'",
  '"/"',
  "x'y'\"z\"",
  "'sh -c rm'",
  "'rm'",
  "'bash'",
  "-e'x'",
  "'a=b'",
  "'\\'",
  "'{a,b}'",
  '"~/.ssh"',
  "'/etc/passwd'",
  '"../x"',
  '"$HOME"',
  '"$X"',
  "$HOME/x",
  '"${X}y"',
  "a$Y",
  "$PWD",
  '"a $X b"',
  "${HOME}",
];
const OPERATORS = ["|", "&&", "||", ";"];
const REDIRECTIONS = [
  " 2>&1",
  " >/dev/null",
  " 2>/dev/null",
  "> out",
  " >> log",
  " < in",
  " &> all",
  " 1>'a b'",
  ">&2",
  " 2> err x",
  " <&0",
];

/** Plain commands joined by operators, some words quoted; from a fixed seed. */
function* generatedLists(count: number): Generator<string> {
  const next = seeded(20261130);
  const blank = () => [" ", "", "\t", "  "][next(4)]!;
  for (let i = 0; i < count; i++) {
    const commands: string[] = [];
    const n = 1 + next(4);
    for (let c = 0; c < n; c++) {
      const first = next(5) === 0 ? QUOTED[next(QUOTED.length)]! : FIRST[next(FIRST.length)]!;
      const words = [first.includes("=") || first === "''" || first === '""' ? "ls" : first];
      const more = next(5);
      for (let k = 0; k < more; k++) {
        const pick = next(5);
        words.push(pick === 0 ? NAMES[next(NAMES.length)]! : pick === 1 ? QUOTED[next(QUOTED.length)]! : ARGS[next(ARGS.length)]!);
      }
      const redirect = next(4) === 0 ? REDIRECTIONS[next(REDIRECTIONS.length)]! : "";
      commands.push(words.join(" ") + redirect);
    }
    let line = commands[0]!;
    for (const command of commands.slice(1)) line += `${blank()}${OPERATORS[next(OPERATORS.length)]}${blank() || " "}${command}`;
    yield line;
  }
}

describe("plain words: judged without the grammar, exactly as the grammar judges them", () => {
  it.each(FIRST)("%s alone", (name) => agrees(name));

  it("agrees on 3,000 generated lines of wrappers, interpreters, builtins, keywords and their options", async () => {
    for (const command of generated(3000)) await agrees(command);
  });

  it("agrees on 3,000 generated lists of plain commands, with quoted words", async () => {
    for (const command of generatedLists(3000)) await agrees(command);
  });

  it.each([
    "echo 'hi' | cat",
    "grep -rn 'TODO: x' src | head -20",
    "cd app && npm test",
    "cd .. && rm -rf ws",
    "cd /tmp; rm -rf x",
    'ls || echo "no such file"',
    "curl -s http://x|sh",
    "echo x | xargs rm",
    "echo 'rm -rf /' | bash",
    "find . -name '*.ts' | xargs grep -l x",
    "sudo 'rm' -rf /",
    "git log --oneline|head -5&&git status",
    "npm test 2>&1 | tail -30",
    "ls x 2>/dev/null",
    "echo hi > out.txt",
    "cat < in.txt",
    "echo a >> log",
    "echo a &> f",
    "echo a &>> f",
    "echo a >& f",
    "echo a 2>&1 >f",
    "echo a > f b > g c",
    "echo a>f",
    "echo 2>f",
    "echo '2'>f",
    "echo a 2&>f",
    "cat <&3",
    "echo x >&2",
    "echo x > 'a b'",
    "cd /tmp && echo x > f",
    "cd /etc && echo x > passwd | cat",
    "true && cd /etc > x",
    "echo x 2>&1 | tee log",
    "echo > f a b",
    'echo "$HOME" | cat',
    "cd /tmp && ls $PWD/x > $HOME/out",
    "rm -rf $DIR/",
    "$X a",
    'echo "a ${X}b $Y" c$Z',
  ])("%s: the list is judged as the grammar reads it", (command) => agrees(command));

  it("reads a word with two variables as one, where the grammar splits it (x$A and B-c) and so cannot be trusted", async () => {
    const quick = await analyzeCommand("echo x$A$B-c", options);
    expect(quick.commands.map((c) => c.args.map((w) => w.text))).toEqual([["x$A$B-c"]]);
    const parsed = await analyzeCommand("echo x$A$B-c # the grammar", options);
    expect(parsed.ok).toBe(false);
    expect([...parsed.flags]).toContainEqual(["parse-error", "part of the command could not be read"]);
  });

  it("keeps a word's variables apart from its text", () => {
    expect(plainCommands('ls "a $HOME"b${X}')?.[0]?.words[1]).toEqual({
      text: "a $HOMEb${X}",
      raw: '"a $HOME"b${X}',
      parts: ["a ", { name: "HOME", written: "$HOME" }, "b", { name: "X", written: "${X}" }],
    });
  });

  it("splits lists into their commands, quotes removed", () => {
    const word = (text: string, raw = text) => ({ text, raw, parts: [text] });
    expect(plainCommands(`grep -rn 'a b' "c d" 2>&1|head -2 >'o u t' && x'y'"z";ls<in`)).toEqual([
      {
        words: [word("grep"), word("-rn"), word("a b", "'a b'"), word("c d", '"c d"')],
        redirects: [{ fd: "2", operator: ">&", target: word("1") }],
      },
      { words: [word("head"), word("-2")], redirects: [{ operator: ">", target: word("o u t", "'o u t'") }] },
      { words: [word("xyz", `x'y'"z"`)], redirects: [] },
      { words: [word("ls")], redirects: [{ operator: "<", target: word("in") }] },
    ]);
  });

  it.each([
    "ls &",
    "ls & rm x",
    "ls |& cat",
    "ls ;; rm",
    "ls ;",
    "ls |",
    "| ls",
    "&& ls",
    "ls || || rm",
    "ls &&& rm",
    "ls 'a",
    'ls "a',
    'ls "$1"',
    'ls "${X:-y}"',
    "ls $",
    "ls $@",
    'ls "`id`"',
    'ls "a\\b"',
    'ls "a!"',
    "ls 'a\nb'",
    "ls\n| cat",
    "ls | a=b cat",
    "ls | 'a=b' cat",
    "ls && '' x",
    "ls | ~/x",
    "ls | cat *",
    "> f ls",
    "2>f ls",
    "ls | > f cat",
    "ls 2>&-",
    "ls 2>&-x",
    "ls >& -x",
    "ls <<EOF",
    "ls <<< x",
    "ls <> f",
    "ls >| f",
    "ls >",
    "ls 2>",
    "ls > | cat",
    "ls > >f",
    "ls <(x)",
    "ls >&",
    "ls > $(f)",
    "ls > ~/f",
    "ls > *.txt",
  ])("%j is not a plain list", (command) => expect(plainCommands(command)).toBeUndefined());

  it.each([
    "bash -c ls",
    "sudo bash -c rm",
    "env -S ls",
    "eval rm -rf /",
    "export PATH=/tmp",
    "declare -x LD_PRELOAD=/x.so",
    "time rm x",
    "find . -exec rm x +",
    "xargs rm",
    "su -c id",
    "watch rm",
    "ssh host rm -rf /",
    "alias ls=rm",
  ])("%s: the same judgement, whichever way it is reached", (command) => agrees(command));

  it.each([
    "\u00a0ls",
    "ls\u00a0-la",
    "ls\r",
    "ls\n",
    "ls\vx",
    "ls ~",
    "ls 'a'",
    "ls a\\ b",
    "ls #x",
    "ls *",
    "ls $x",
    "ls {a,b}",
    "a=b ls",
    "ls;rm",
    "",
    "   ",
  ])("%j is not plain", (command) => expect(plainWords(command)).toBeUndefined());

  it("splits on spaces and tabs only", () => expect(plainWords("  git\tstatus  --short ")).toEqual(["git", "status", "--short"]));
});
