import type { AnyTool } from "./tool.js";

/**
 * The same tool with some members replaced (its name under an alias, what one `createBuiltinTools`
 * call adds): everything else delegates to the tool itself, which stays shared and unchanged.
 */
export function toolView(tool: AnyTool, own: Readonly<Record<string, unknown>>): AnyTool {
  // Bound once per member, not at every access: the runner reads a tool's members on every call.
  const bound = new Map<PropertyKey, { from: unknown; to: unknown }>();
  const mine = (prop: PropertyKey): prop is string => typeof prop === "string" && Object.hasOwn(own, prop);
  // The proxy stands on an empty object of the tool's class, not on the tool: a frozen tool (or one
  // with read-only members) would otherwise forbid answering anything but its own values.
  const stand = Object.create(Object.getPrototypeOf(tool) as object | null) as AnyTool;
  return new Proxy(stand, {
    get(_, prop) {
      if (mine(prop)) return own[prop];
      // Bound to the tool itself so its private fields stay reachable.
      const value: unknown = Reflect.get(tool, prop, tool);
      if (typeof value !== "function") return value;
      const known = bound.get(prop);
      if (known?.from === value) return known.to;
      const to: unknown = value.bind(tool);
      bound.set(prop, { from: value, to });
      return to;
    },
    has(_, prop) {
      return mine(prop) || Reflect.has(tool, prop);
    },
    ownKeys() {
      return [...new Set([...Reflect.ownKeys(tool), ...Object.keys(own)])];
    },
    getOwnPropertyDescriptor(_, prop) {
      if (mine(prop)) return { value: own[prop], writable: false, enumerable: true, configurable: true };
      const found = Reflect.getOwnPropertyDescriptor(tool, prop);
      return found && { ...found, configurable: true };
    },
  });
}
