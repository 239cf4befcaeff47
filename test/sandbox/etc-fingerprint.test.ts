import { mkdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { etcFingerprint } from "../../src/sandbox/rootfs.js";
import { tempDir } from "../support/tools.js";

// The sandbox's /etc copy is shared by every process and named after this fingerprint: a change it
// misses leaves every sandbox on the old copy (a certificate bundle, hosts, links into /usr).
let root: ReturnType<typeof tempDir>;
let certs: string;
const fingerprint = () => etcFingerprint(1000, 1000, [certs, path.join(root.dir, "hosts")]);

beforeEach(() => {
  root = tempDir();
  certs = path.join(root.dir, "certs");
  mkdirSync(certs);
  symlinkSync("/usr/share/a.crt", path.join(certs, "a.pem"));
  symlinkSync("/usr/share/b.crt", path.join(certs, "b.pem"));
  writeFileSync(path.join(certs, "bundle.crt"), "one\n");
  writeFileSync(path.join(root.dir, "hosts"), "127.0.0.1 localhost\n");
});
afterEach(() => root.cleanup());

/** Resolves once the folder's last change is older than the fingerprint's settling time. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 2_100));

describe("the sandbox /etc fingerprint", () => {
  it("is the same while nothing changes, and differs per user", () => {
    expect(fingerprint()).toBe(fingerprint());
    expect(etcFingerprint(1001, 1000, [certs])).not.toBe(etcFingerprint(1000, 1000, [certs]));
  });

  it(
    "sees a link replaced, renamed, added or removed in a settled folder (links are not read one by one there)",
    { timeout: 30_000 },
    async () => {
      await settled();
      const before = fingerprint();
      unlinkSync(path.join(certs, "a.pem"));
      symlinkSync("/usr/share/evil.crt", path.join(certs, "a.pem"));
      const replaced = fingerprint();
      expect(replaced).not.toBe(before);

      await settled();
      renameSync(path.join(certs, "b.pem"), path.join(certs, "c.pem"));
      const renamed = fingerprint();
      expect(renamed).not.toBe(replaced);

      await settled();
      symlinkSync("/usr/share/d.crt", path.join(certs, "d.pem"));
      const added = fingerprint();
      expect(added).not.toBe(renamed);

      await settled();
      unlinkSync(path.join(certs, "d.pem"));
      expect(fingerprint()).not.toBe(added);
    },
  );

  it("sees a link replaced again at once, within the same clock tick as the last change", () => {
    const first = fingerprint();
    unlinkSync(path.join(certs, "a.pem"));
    symlinkSync("/usr/share/a-longer-name.crt", path.join(certs, "a.pem"));
    const second = fingerprint();
    expect(second).not.toBe(first);
    unlinkSync(path.join(certs, "a.pem"));
    symlinkSync("/usr/share/x.crt", path.join(certs, "a.pem"));
    expect(fingerprint()).not.toBe(second);
  });

  it("sees a file's content changed in place, and a file outside any folder", async () => {
    const before = fingerprint();
    writeFileSync(path.join(certs, "bundle.crt"), "two, longer\n");
    const changed = fingerprint();
    expect(changed).not.toBe(before);
    writeFileSync(path.join(root.dir, "hosts"), "127.0.0.1 elsewhere\n");
    expect(fingerprint()).not.toBe(changed);
  });
});
