import { AppError } from '@gensvc/kernel';
import { isIpLiteral, refusedAddress, refusedHostName } from '@gensvc/http';

/** The shared address guard (`@gensvc/http`): webhooks use the same one. */
export { isIpLiteral, refusedAddress };

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
  if (refusedHostName(host)) throw forbidden(`${host} is not a public host name`);
  return url;
}
