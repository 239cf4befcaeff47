/**
 * The value of `$(( ... ))` over literal numbers, as bash computes it (64-bit integers, division
 * toward zero), so `echo part-$((6*7))` is known before it runs. Anything else (a variable, a
 * base or octal number, an operator beyond + - * / % and parentheses, division by zero) is
 * undefined: the word stays "only known when it runs".
 */
export function literalArithmetic(text: string): string | undefined {
  const tokens = text.match(/\d+|[-+*/%()]|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const fail = (): never => {
    throw new NotLiteral();
  };
  const primary = (): bigint => {
    const t = tokens[at++];
    if (t === "(") {
      const v = sum();
      if (tokens[at++] !== ")") fail();
      return v;
    }
    // A leading 0 is octal to bash, and 0x.. or 2#.. other bases: not worked out here.
    if (t === undefined || !/^(0|[1-9]\d{0,18})$/.test(t)) return fail();
    return BigInt(t);
  };
  const unary = (): bigint => {
    if (peek() === "-") {
      at++;
      return BigInt.asIntN(64, -unary());
    }
    if (peek() === "+") {
      at++;
      return unary();
    }
    return primary();
  };
  const product = (): bigint => {
    let v = unary();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = tokens[at++];
      const r = unary();
      if (op !== "*" && r === 0n) fail();
      v = BigInt.asIntN(64, op === "*" ? v * r : op === "/" ? v / r : v % r);
    }
    return v;
  };
  function sum(): bigint {
    let v = product();
    while (peek() === "+" || peek() === "-") {
      const op = tokens[at++];
      const r = product();
      v = BigInt.asIntN(64, op === "+" ? v + r : v - r);
    }
    return v;
  }
  try {
    if (tokens.length === 0) return undefined;
    const value = sum();
    return at === tokens.length ? value.toString() : undefined;
  } catch (err) {
    if (err instanceof NotLiteral) return undefined;
    throw err;
  }
}

class NotLiteral extends Error {}
