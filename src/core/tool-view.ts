import type { AnyTool } from "./tool.js";

/**
 * The same tool with some members replaced (its name under an alias, what one `createBuiltinTools`
 * call adds): everything else delegates to the tool itself, which stays shared and unchanged.
 */
export function toolView(tool: AnyTool, own: Readonly<Record<string, unknown>>): AnyTool {
  // Bound once per member, not at every access: the runner reads a tool's members on every call.
  const bound = new Map<PropertyKey, { from: (...args: unknown[]) => unknown; to: unknown }>();
  return new Proxy(tool, {
    get(target, prop) {
      if (typeof prop === "string" && Object.hasOwn(own, prop)) return own[prop];
      // Bound to the tool itself so its private fields stay reachable.
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const known = bound.get(prop);
      if (known?.from === value) return known.to;
      const to = value.bind(target);
      bound.set(prop, { from: value as (...args: unknown[]) => unknown, to });
      return to;
    },
    has(target, prop) {
      return (typeof prop === "string" && Object.hasOwn(own, prop)) || Reflect.has(target, prop);
    },
  });
}
