import type { Node } from "web-tree-sitter";
import type { Word } from "./words.js";

/**
 * Bash evaluates some text arithmetically, and arithmetic evaluation expands array subscripts:
 * `a[$(cmd)]` in an arithmetic context runs `cmd`, even from inside quotes, and a variable whose
 * value holds such text runs it when the variable is used (`x='a[$(cmd)]'; [[ $x -eq 1 ]]`).
 * A command is judged only by what it shows, so arithmetic over anything but literal numbers is
 * text bash may turn into commands nobody saw: never read-only, and never hidden from a person.
 */

/** Numbers, operators, parentheses and blanks: arithmetic that cannot name a variable or a command. */
const PLAIN = /^[\s\d+\-*/%()<>=!&|^~?:,]*$/;
/** What an array subscript may be without being evaluated: a number, `@` or `*`. */
const PLAIN_INDEX = /^\s*(?:\d+|@|\*)\s*$/;
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** `${name:offset}` and `${name:offset:length}`, as opposed to `${name:-default}` and friends. */
const SUBSTRING = /^\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?:(?![-=?+])(.*)\}$/s;

/** Why something in this parse tree is evaluated arithmetically with text that is not a number, or undefined. */
export function arithmeticInTree(root: Node): string | undefined {
  const stack: Node[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    const why = nodeRisk(node);
    if (why) return why;
    for (const child of node.namedChildren) if (child) stack.push(child);
  }
  return undefined;
}

function nodeRisk(node: Node): string | undefined {
  switch (node.type) {
    case "arithmetic_expansion":
      return PLAIN.test(node.text.slice(3, -2)) ? undefined : `bash evaluates "${short(node.text)}" as arithmetic`;
    case "c_style_for_statement": {
      const head = node.text.slice(0, node.text.indexOf("))") + 2);
      return PLAIN.test(head.replace(/^for\s*\(\(|\)\)$/g, "")) ? undefined : `bash evaluates the loop "${short(head)}" as arithmetic`;
    }
    case "compound_statement":
      // `(( expr ))` as a command
      if (node.text.startsWith("((")) {
        return PLAIN.test(node.text.slice(2, -2)) ? undefined : `bash evaluates "${short(node.text)}" as arithmetic`;
      }
      return undefined;
    case "subscript": {
      const index = node.childForFieldName("index");
      return !index || PLAIN_INDEX.test(index.text) ? undefined : `bash evaluates the array subscript "${short(node.text)}" as arithmetic`;
    }
    case "expansion": {
      const substring = SUBSTRING.exec(node.text);
      return substring && !PLAIN.test(substring[1]!) ? `bash evaluates the offsets in "${short(node.text)}" as arithmetic` : undefined;
    }
    case "test_command":
      return testRisk(node);
    default:
      return undefined;
  }
}

/** `[[ x -eq y ]]` evaluates both sides; `-v 'a[...]'` evaluates the subscript. */
function testRisk(test: Node): string | undefined {
  const stack: Node[] = [test];
  while (stack.length) {
    const node = stack.pop()!;
    // `[ a -eq b ]` (test) takes only integers; `[[ ]]` evaluates its operands.
    if (node.type === "binary_expression" && test.text.startsWith("[[")) {
      const operator = node.childForFieldName("operator")?.text ?? "";
      if (ARITHMETIC_TESTS.has(operator)) {
        for (const side of [node.childForFieldName("left"), node.childForFieldName("right")]) {
          if (side && !/^[+-]?\d+$/.test(side.text)) return `bash evaluates "${short(side.text)}" in "${short(node.text)}" as arithmetic`;
        }
      }
    }
    if (node.type === "unary_expression" && node.childForFieldName("operator")?.text === "-v" && node.text.includes("[")) {
      return `-v evaluates the subscript in "${short(node.text)}" as arithmetic`;
    }
    for (const child of node.namedChildren) if (child) stack.push(child);
  }
  return undefined;
}

/** Commands whose arguments bash evaluates arithmetically: `let`, `printf -v 'a[...]'`, `declare -i`, `test -v`, `read -a`. */
export function arithmeticInCommand(name: string, args: readonly Word[]): string | undefined {
  const texts = args.map((a) => (a.dynamic ? "$" : a.text));
  const subscripted = (t: string | undefined) =>
    t !== undefined && t.includes("[") && !PLAIN_INDEX.test(t.slice(t.indexOf("[") + 1, t.lastIndexOf("]")));
  switch (name) {
    case "let":
      return texts.every((t) => PLAIN.test(t.replace(/^[A-Za-z_][A-Za-z0-9_]*=/, "")))
        ? undefined
        : "let evaluates its arguments as arithmetic";
    case "printf": {
      const i = texts.indexOf("-v");
      const target = i >= 0 ? texts[i + 1] : texts.find((t) => t.startsWith("-v") && t.length > 2)?.slice(2);
      return subscripted(target) ? `printf -v ${target} evaluates the subscript as arithmetic` : undefined;
    }
    case "test":
    case "[": {
      const i = texts.findIndex((t, j) => t === "-v" && subscripted(texts[j + 1]));
      return i >= 0 ? `test -v ${texts[i + 1]} evaluates the subscript as arithmetic` : undefined;
    }
    case "declare":
    case "typeset":
    case "local":
    case "export":
    case "readonly": {
      const integer = texts.some((t) => /^-[A-Za-z]*i/.test(t));
      const values = texts.filter((t) => !t.startsWith("-"));
      if (integer && values.some((t) => !PLAIN.test(t.replace(/^[A-Za-z_][A-Za-z0-9_]*=/, ""))))
        return `${name} -i evaluates its values as arithmetic`;
      return values.some((t) => subscripted(t.split("=")[0])) ? `${name} evaluates the subscript as arithmetic` : undefined;
    }
    case "read":
    case "mapfile":
    case "readarray":
    case "unset":
      return texts.some((t) => !t.startsWith("-") && subscripted(t)) ? `${name} evaluates the subscript as arithmetic` : undefined;
    default:
      return undefined;
  }
}

function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
