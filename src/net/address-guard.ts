import { BlockList, isIP, isIPv4 } from "node:net";
import type dns from "node:dns";
import { lazyRequire } from "../process/lazy-require.js";

const nodeDns = lazyRequire<typeof dns>("node:dns");

/**
 * Addresses a fetch made on a model's behalf must not reach: this machine, the private network
 * around it, and cloud metadata services. Ranges from the IANA special-purpose registries
 * (RFC 6890 and successors) that are not globally reachable.
 */
const IPV4_BLOCKED = [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, including 169.254.169.254 (metadata)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, including broadcast
] as const;

const IPV6_BLOCKED = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local, including fd00::/8 (and AWS's fd00:ec2::254 metadata)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated, still routed by some stacks)
  ["ff00::", 8], // multicast
] as const;

let blockList: BlockList | undefined;

/** The ranges above, built on first use: a run that fetches nothing does not pay for them. */
function blocked(): BlockList {
  if (blockList) return blockList;
  const list = new BlockList();
  for (const [net, prefix] of IPV4_BLOCKED) list.addSubnet(net, prefix, "ipv4");
  for (const [net, prefix] of IPV6_BLOCKED) list.addSubnet(net, prefix, "ipv6");
  return (blockList = list);
}

/** Expands an IPv6 address to its eight 16-bit groups, or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  // A trailing dotted IPv4 part (::ffff:1.2.3.4) becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (!isIPv4(dotted[1]!)) return undefined;
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function v4FromGroups(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach an IPv4 host: mapped
 * (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96)
 * and 6to4 (2002::/16).
 */
function embeddedV4(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0) && (g6 !== 0 || g7 > 1)) {
    return v4FromGroups(g6, g7);
  }
  // IPv4-translated (::ffff:0:a.b.c.d, RFC 2765).
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return v4FromGroups(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4FromGroups(g6, g7);
  if (g0 === 0x2002) return v4FromGroups(g1, g2);
  return undefined;
}

/**
 * Whether an IP address is private, loopback, link-local, CGNAT, multicast, unspecified,
 * reserved or a metadata address, in any spelling Node accepts (IPv4-mapped IPv6 included).
 * Names that are not IP addresses return false; resolve them first.
 */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare.replace(/%.*$/, ""));
  if (family === 4) return blocked().check(bare, "ipv4");
  if (family !== 6) return false;
  const groups = ipv6Groups(bare);
  if (!groups) return true; // unparseable: refuse rather than guess
  const v4 = embeddedV4(groups);
  if (v4 !== undefined && blocked().check(v4, "ipv4")) return true;
  const canonical = groups.map((g) => g.toString(16)).join(":");
  return blocked().check(canonical, "ipv6");
}

/** Thrown (through the connection) when a host resolves to an address that is not allowed. */
export class BlockedAddressError extends Error {
  readonly host: string;
  readonly address: string;
  constructor(host: string, address: string) {
    super(
      host === address
        ? `${address} is a private, loopback, link-local or reserved address`
        : `${host} resolves to ${address}, a private, loopback, link-local or reserved address`,
    );
    this.name = "BlockedAddressError";
    this.host = host;
    this.address = address;
  }
}

/**
 * Which addresses a request may reach: `true` any, `false` public ones only, or a list of
 * private addresses and subnets ("127.0.0.1", "10.1.0.0/16", "fd12::/16") allowed besides
 * the public internet.
 */
export type PrivateNetworkAllowance = boolean | readonly string[];

/** Returns whether an address is refused under an allowance; throws on a malformed list entry. */
export function addressPolicy(allow: PrivateNetworkAllowance): (address: string) => boolean {
  if (allow === true) return () => false;
  if (allow === false || allow.length === 0) return isBlockedAddress;
  const allowed = new BlockList();
  for (const entry of allow) {
    const [net, bits] = entry.trim().split("/");
    const family = isIP(net ?? "");
    if (!family) throw new Error(`"${entry}" is not an IP address or subnet (write 10.0.0.0/8 or 127.0.0.1)`);
    const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128))
      throw new Error(`"${entry}" has an invalid prefix length`);
    allowed.addSubnet(net!, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return (address) => {
    if (!isBlockedAddress(address)) return false;
    const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
    const family = isIP(bare);
    if (family === 0) return true;
    if (allowed.check(bare, family === 4 ? "ipv4" : "ipv6")) return false;
    // An IPv4-mapped address is allowed when its IPv4 form is.
    const groups = family === 6 ? ipv6Groups(bare) : undefined;
    const v4 = groups ? embeddedV4(groups) : undefined;
    return !(v4 !== undefined && allowed.check(v4, "ipv4"));
  };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls `connect` that resolves a name once, refuses it when any address it
 * resolves to is refused, and hands the checked addresses to the connection. The connection
 * goes to what was checked, so a name that changes its answer between a check and the
 * connect (DNS rebinding) gets nowhere.
 */
export function guardedLookup(refused: (address: string) => boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    nodeDns().lookup(hostname, { family: options.family ?? 0, hints: options.hints ?? 0, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = addresses.find((a) => refused(a.address));
      if (bad) return callback(new BlockedAddressError(hostname, bad.address) as NodeJS.ErrnoException, []);
      if (addresses.length === 0) {
        const none = Object.assign(new Error(`${hostname} has no addresses`), { code: "ENOTFOUND" });
        return callback(none, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
