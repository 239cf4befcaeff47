import { describe, expect, it } from "vitest";
import { hashedToolName, MAX_TOOL_NAME, proxyToolName, sanitizeName } from "../../../src/mcp/client/naming.js";
import { assertToolName } from "../../../src/core/names.js";

describe("MCP tool names", () => {
  it("joins server and tool with a double underscore (spec 000)", () => {
    expect(proxyToolName("whatsapp", "send_message")).toBe("whatsapp__send_message");
  });

  it("sanitises characters model APIs refuse, and adds a hash so the result cannot pose as a real name", () => {
    const name = proxyToolName("my.server", "read file/v2")!;
    expect(name).toMatch(/^my_server__read_file_v2_[0-9a-f]{10}$/);
    expect(() => assertToolName(name)).not.toThrow();
    expect(sanitizeName("a.b c/d:é")).toBe("a_b_c_d__");
  });

  it("shortens long names to 64 characters with a hash, and two long names sharing a prefix stay distinct", () => {
    const long = "x".repeat(80);
    const a = proxyToolName("server", `${long}_alpha`)!;
    const b = proxyToolName("server", `${long}_beta`)!;
    expect(a.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
    expect(b.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
    expect(a).not.toBe(b);
    expect(() => assertToolName(a)).not.toThrow();
    // Stable: the same pair always gives the same name.
    expect(proxyToolName("server", `${long}_alpha`)).toBe(a);
  });

  it("a name exactly 64 long is kept; 65 is shortened", () => {
    const tool64 = "t".repeat(64 - "s__".length);
    expect(proxyToolName("s", tool64)).toBe(`s__${tool64}`);
    const tool65 = `${tool64}t`;
    const name = proxyToolName("s", tool65)!;
    expect(name.length).toBe(64);
    expect(name).not.toBe(`s__${tool64}`);
  });

  it("separates pairs that join to the same text (server a__b + c vs server a + b__c)", () => {
    const taken = new Set<string>();
    const first = proxyToolName("a__b", "c", (n) => taken.has(n))!;
    taken.add(first);
    const second = proxyToolName("a", "b__c", (n) => taken.has(n))!;
    expect(first).toBe("a__b__c");
    expect(second).not.toBe(first);
    expect(second).toBe(hashedToolName("a", "b__c"));
  });

  it("never takes a built-in's name: a taken plain name gets the hashed form, a taken hashed form gets nothing", () => {
    const builtins = new Set(["fs__read"]);
    expect(proxyToolName("fs", "read", (n) => builtins.has(n))).toBe(hashedToolName("fs", "read"));
    builtins.add(hashedToolName("fs", "read"));
    expect(proxyToolName("fs", "read", (n) => builtins.has(n))).toBeUndefined();
  });

  it("handles names made only of refused characters", () => {
    const name = proxyToolName("...", "???")!;
    expect(() => assertToolName(name)).not.toThrow();
    expect(proxyToolName("", "")).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
