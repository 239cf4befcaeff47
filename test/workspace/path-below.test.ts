import path from "node:path";
import { describe, expect, it } from "vitest";
import { pathBelow } from "../../src/workspace/path-below.js";

// What the string comparison must agree with: path.relative, read as "inside" when it does not climb out.
function general(root: string, target: string): string | undefined {
  const rel = path.relative(root, target);
  return rel === ".." || rel.startsWith("../") || path.isAbsolute(rel) ? undefined : rel;
}

describe("pathBelow", () => {
  it("agrees with path.relative on roots, siblings, prefixes and unnormalised paths", () => {
    const roots = ["/", "/ws", "/tmp/ws", "/tmp/ws/", "/tmp/./ws", "/tmp//ws", "/a/.hidden"];
    const targets = [
      "/",
      "/ws",
      "/ws-evil",
      "/wsx/a",
      "/tmp",
      "/tmp/ws",
      "/tmp/ws/",
      "/tmp/ws/a.txt",
      "/tmp/ws/deep/er/b",
      "/tmp/ws-evil/a",
      "/tmp/wsa",
      "/tmp/ws/../ws-evil/a",
      "/tmp/ws/./a",
      "/tmp/ws//a",
      "/tmp/ws/..foo",
      "/tmp/ws/..",
      "/tmp/ws/../..foo",
      "/tmp/ws/...",
      "/tmp/ws/a/..b/c",
      "/tmp/..ws",
      "/tmp/ws..",
      "/tmp/ws/.git/config",
      "/a/.hidden/x",
      "/a/.hidden-not/x",
    ];
    for (const root of roots)
      for (const target of targets) expect(pathBelow(root, target), `${root} ${target}`).toBe(general(root, target));
  });

  it("keeps names that only begin with dots inside, and every climb out outside", () => {
    expect(pathBelow("/tmp/ws", "/tmp/ws/..foo")).toBe("..foo");
    expect(pathBelow("/tmp/ws", "/tmp/ws/./..foo")).toBe("..foo");
    expect(pathBelow("/tmp/ws", "/tmp/ws/a/...")).toBe("a/...");
    expect(pathBelow("/tmp/ws", "/tmp/ws/..")).toBeUndefined();
    expect(pathBelow("/tmp/ws", "/tmp/ws/../..foo")).toBeUndefined();
    expect(pathBelow("/tmp/ws", "/tmp/ws/./../ws-evil")).toBeUndefined();
    expect(pathBelow("/tmp/ws", "/tmp/ws/a/../../x")).toBeUndefined();
  });
});
