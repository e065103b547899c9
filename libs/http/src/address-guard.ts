import ipaddr from 'ipaddr.js';
import { lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';

/**
 * The one guard for outbound connections to addresses a user chose (imports, webhook
 * deliveries): only public unicast addresses may be dialled. Refused, by name of the range:
 *
 * - everything ipaddr.js classifies as other than `unicast`: private (10/8, 172.16/12,
 *   192.168/16), loopback, link-local (169.254/16, fe80::/10), multicast, unspecified
 *   (0/8, ::), broadcast, unique-local (fc00::/7), carrier-grade NAT (100.64/10), reserved,
 *   documentation and benchmarking ranges;
 * - every embedding of an IPv4 address in IPv6, whatever the IPv4 address is: IPv4-compatible
 *   `::/96` (`::7f00:1` is `::127.0.0.1`), IPv4-mapped `::ffff:0:0/96`, IPv4-translated
 *   `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`,
 *   Teredo `2001::/32`, and ISATAP interface identifiers (`…:0:5efe:a.b.c.d`,
 *   `…:200:5efe:a.b.c.d`) under any prefix.
 *
 * `allowLoopback` (development and tests only) lets plain loopback through (127/8, ::1);
 * embedded, private, link-local and metadata addresses stay refused.
 */
export function refusedAddress(address: string, options: { allowLoopback?: boolean } = {}): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6') {
    const why = ipv4Embedding(parsed as ipaddr.IPv6);
    if (why) return why;
  }
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && options.allowLoopback) return null;
  return range;
}

/** The name of the IPv4-in-IPv6 form an address has, or null. */
function ipv4Embedding(v6: ipaddr.IPv6): string | null {
  const p = v6.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  // :: and ::1 are classified by ipaddr.js (unspecified, loopback).
  if (zeros(0, 6)) return p[6] === 0 && p[7] <= 1 ? null : 'ipv4Compatible';
  if (zeros(0, 5) && p[5] === 0xffff) return 'ipv4Mapped';
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return 'ipv4Translated';
  if (p[0] === 0x64 && p[1] === 0xff9b && (zeros(2, 6) || p[2] === 1)) return 'nat64';
  if (p[0] === 0x2002) return '6to4';
  if (p[0] === 0x2001 && p[1] === 0) return 'teredo';
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) return 'isatap';
  return null;
}

/** Whether a URL's host is an IP literal (dotted IPv4 or bracketed / bare IPv6). */
export const isIpLiteral = (host: string): boolean => {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare);
};

/**
 * Host names that never name a public service: single labels, `localhost` and names under
 * `.localhost`, `.local`, `.internal`, `.intranet`, `.home.arpa`, `.lan`. A public-looking
 * name is still resolved and each of its addresses checked with `refusedAddress`.
 */
export function refusedHostName(host: string, options: { allowLoopback?: boolean } = {}): boolean {
  const name = host.replace(/\.$/, '').toLowerCase();
  if (options.allowLoopback && (name === 'localhost' || name.endsWith('.localhost'))) return false;
  return !name.includes('.') || name === 'localhost' || /\.(localhost|local|internal|intranet|home\.arpa|lan)$/.test(name);
}

/** What `resolveCheckedHost` found: the URL's host with its addresses, all allowed, or why not. */
export type CheckedHost =
  | { readonly ok: true; readonly host: string; readonly addresses: readonly string[] }
  | { readonly ok: false; readonly host: string; readonly reason: 'unresolved'; readonly error: unknown }
  | { readonly ok: false; readonly host: string; readonly reason: 'no_address' }
  | { readonly ok: false; readonly host: string; readonly reason: 'refused'; readonly address: string; readonly why: string };

/**
 * Resolves a URL's host (an IP literal stands for itself) and checks every address with
 * `refuse` (`refusedAddress` or a stricter rule): the connection then goes to one of these
 * addresses only, through `pinnedLookup`, so a second DNS answer cannot redirect it.
 */
export async function resolveCheckedHost(url: URL, resolve: (host: string) => Promise<string[]>, refuse: (address: string) => string | null): Promise<CheckedHost> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIpLiteral(url.hostname)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      return { ok: false, host, reason: 'unresolved', error };
    }
  }
  if (!addresses.length) return { ok: false, host, reason: 'no_address' };
  for (const address of addresses) {
    const why = refuse(address);
    if (why) return { ok: false, host, reason: 'refused', address, why };
  }
  return { ok: true, host, addresses };
}

/** Longest wait for the system resolver: a name it has not answered by then counts as unresolved. */
export const RESOLVE_TIMEOUT_MS = 5_000;

/** The resolver did not answer in time. */
export class ResolveTimeout extends Error {
  constructor(host: string, ms: number) {
    super(`${host} was not resolved within ${ms} ms`);
    this.name = 'ResolveTimeout';
  }
}

/**
 * Every address of `host` (IPv4 and IPv6) from the system resolver (the hosts file, then
 * DNS), or a `ResolveTimeout` after `timeoutMs`: a resolver that hangs (its own retries can
 * take tens of seconds) must not hold a request that long. The lookup itself cannot be
 * stopped; its late answer is dropped.
 */
export async function resolveAll(host: string, timeoutMs = RESOLVE_TIMEOUT_MS, lookup: typeof systemLookup = systemLookup): Promise<string[]> {
  const answer = lookup(host, { all: true, verbatim: true });
  answer.catch(() => undefined); // a failure after the time-out is nobody's concern
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ResolveTimeout(host, timeoutMs)), timeoutMs);
  });
  try {
    return (await Promise.race([answer, late])).map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}

/** A `lookup` for `http(s).request` that answers `address` for any name (the address that was checked). */
export function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address) === 6 ? 6 : 4;
  return (_name, options, callback) => {
    const cb = callback as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
    if ((options as { all?: boolean }).all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  };
}
