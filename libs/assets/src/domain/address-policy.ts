import ipaddr from 'ipaddr.js';
import { AppError } from '@gensvc/shared';

/**
 * Which network addresses an import may connect to: public unicast only. Everything
 * ipaddr.js classifies otherwise is refused: private (10/8, 172.16/12, 192.168/16),
 * loopback, link-local (169.254/16, fe80::/10), multicast, unspecified (0/8, ::),
 * unique-local (fc00::/7), carrier-grade NAT, reserved and documentation ranges, IPv4-mapped
 * IPv6 (::ffff:a.b.c.d), NAT64, 6to4, Teredo and the like.
 */
export function refusedAddress(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  const parsed = ipaddr.parse(bare);
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

export const isIpLiteral = (host: string): boolean => {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare);
};

const forbidden = (why: string) => new AppError('IMPORT_URL_FORBIDDEN', `url: ${why}`);

/**
 * Checks an import address before any network use: HTTPS, the standard port, no
 * credentials, a public IP literal or a public-looking host name (the name's addresses are
 * checked again after resolving). The WHATWG URL parser has already turned decimal, octal
 * and hexadecimal IPv4 spellings into dotted form.
 */
export function checkImportUrl(raw: unknown, field = 'url'): URL {
  if (typeof raw !== 'string' || raw.length < 1 || raw.length > 2048) throw new AppError('VALIDATION_ERROR', `${field}: must be an HTTPS URL of at most 2048 characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('VALIDATION_ERROR', `${field}: must be an absolute URL`);
  }
  if (url.protocol !== 'https:') throw forbidden('only https addresses can be imported');
  if (url.port !== '' && url.port !== '443') throw forbidden('only the standard HTTPS port (443) is allowed');
  if (url.username || url.password) throw forbidden('must not carry user name or password');
  const host = url.hostname;
  if (isIpLiteral(host)) {
    const why = refusedAddress(host);
    if (why) throw forbidden(`${host} is not a public address (${why})`);
    return url;
  }
  const name = host.replace(/\.$/, '').toLowerCase();
  if (!name.includes('.') || name === 'localhost' || /\.(localhost|local|internal|intranet|home\.arpa|lan)$/.test(name)) {
    throw forbidden(`${host} is not a public host name`);
  }
  return url;
}
