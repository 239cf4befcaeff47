/** esbuild's output with its last non-ASCII characters escaped (see ascii-escaped.mjs). */
export function asciiEscaped(code: string): string;
