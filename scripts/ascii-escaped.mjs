/**
 * esbuild's output with its last non-ASCII characters escaped, so the launcher can hand V8 a
 * one-byte string read as Latin-1 (about 2 ms for the bundle) rather than decode UTF-8 into a
 * two-byte one (about 14 ms on every start). esbuild already escapes every string, template and
 * identifier; what it leaves are comments and regular-expression literals, where `\uXXXX` (a
 * surrogate pair for characters beyond the BMP) means the same character. An identity escape
 * (`\•`) gives up its backslash, which would otherwise escape the new one.
 * @param {string} code
 * @returns {string}
 */
export function asciiEscaped(code) {
  return code.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes, char) => {
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return `${kept}\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}
