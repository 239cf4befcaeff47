import { describe, expect, it } from "vitest";
import type { LookupAddress } from "node:dns";
import { addressPolicy, BlockedAddressError, guardedLookup, isBlockedAddress } from "../../src/net/address-guard.js";

describe("isBlockedAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.255",
    "0.0.0.0",
    "224.0.0.251",
    "239.255.255.250",
    "255.255.255.255",
    "198.18.0.1",
    "::",
    "::1",
    "[::1]",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:a9fe:a9fe",
    "::ffff:0:127.0.0.1",
    "::127.0.0.1",
    "64:ff9b::10.0.0.1",
    "2002:7f00:1::",
    "fd00::1",
    "fd00:ec2::254",
    "fc00::1",
    "fe80::1",
    "fe80::1%eth0",
    "ff02::1",
    "2001:db8::1",
    "0:0:0:0:0:0:0:1",
  ])("blocks %s", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "192.169.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::",
  ])("allows the public address %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it("leaves names to DNS", () => {
    expect(isBlockedAddress("localhost")).toBe(false);
  });
});

describe("addressPolicy", () => {
  it("refuses private addresses by default and none when allowed", () => {
    expect(addressPolicy(false)("10.0.0.1")).toBe(true);
    expect(addressPolicy([])("10.0.0.1")).toBe(true);
    expect(addressPolicy(true)("10.0.0.1")).toBe(false);
  });

  it("allows only the listed addresses and subnets", () => {
    const refused = addressPolicy(["127.0.0.1", "10.2.0.0/16", "fd12::/16"]);
    expect(refused("127.0.0.1")).toBe(false);
    expect(refused("::ffff:127.0.0.1")).toBe(false);
    expect(refused("127.0.0.2")).toBe(true);
    expect(refused("10.2.200.1")).toBe(false);
    expect(refused("10.3.0.1")).toBe(true);
    expect(refused("fd12::5")).toBe(false);
    expect(refused("fd13::5")).toBe(true);
    expect(refused("169.254.169.254")).toBe(true);
    expect(refused("8.8.8.8")).toBe(false);
  });

  it("rejects a malformed list", () => {
    expect(() => addressPolicy(["example.com"])).toThrow(/not an IP address/);
    expect(() => addressPolicy(["10.0.0.0/33"])).toThrow(/prefix/);
  });
});

describe("guardedLookup", () => {
  const lookup = (host: string, refused: (a: string) => boolean, all: boolean) =>
    new Promise<{ err: Error | null; address: string | LookupAddress[] }>((resolve) => {
      guardedLookup(refused)(host, { all }, (err, address) => resolve({ err, address }));
    });

  it("refuses a name that resolves to a blocked address", async () => {
    const { err } = await lookup("localhost", isBlockedAddress, true);
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err!.message).toMatch(/^localhost resolves to /);
  });

  it("hands back the checked addresses in both lookup shapes", async () => {
    const all = await lookup("localhost", () => false, true);
    expect(all.err).toBeNull();
    expect(Array.isArray(all.address) && all.address.length > 0).toBe(true);
    const one = await lookup("localhost", () => false, false);
    expect(one.err).toBeNull();
    expect(typeof one.address).toBe("string");
  });

  it("passes DNS failures through", async () => {
    const { err } = await lookup("no-such-host.invalid", () => false, true);
    expect((err as NodeJS.ErrnoException).code).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });
});
