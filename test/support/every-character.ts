/** Every character Unicode has in the planes text uses, surrogates aside: what the front ends must agree on. */
export function everyCharacter(): string {
  let all = "x";
  for (const [from, to] of [
    [0, 0xd7ff],
    [0xe000, 0x1ffff],
    [0xe0000, 0xe01ff],
  ] as const)
    for (let code = from; code <= to; code++) all += String.fromCodePoint(code);
  return all;
}
