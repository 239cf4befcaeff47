import type { AnyTool } from "./tool.js";

/**
 * The same tool with some members replaced (its name under an alias, what one `createBuiltinTools`
 * call adds): everything else delegates to the tool itself, which stays shared and unchanged.
 */
export function toolView(tool: AnyTool, own: Readonly<Record<string, unknown>>): AnyTool {
  return new Proxy(tool, {
    get(target, prop) {
      if (typeof prop === "string" && Object.hasOwn(own, prop)) return own[prop];
      // Bound to the tool itself so its private fields stay reachable.
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    has(target, prop) {
      return (typeof prop === "string" && Object.hasOwn(own, prop)) || Reflect.has(target, prop);
    },
  });
}
