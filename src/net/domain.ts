/** `example.com` covers the host and its subdomains; `*.example.com` only subdomains. */
export function domainMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, "");
  const h = host.toLowerCase().replace(/\.$/, "");
  if (p.startsWith("*.")) return h.endsWith(p.slice(1));
  return h === p || h.endsWith(`.${p}`);
}
