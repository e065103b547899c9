import { AppError } from '@gensvc/kernel';
import { checkImportUrl, isIpLiteral, refusedAddress } from '@gensvc/assets/contracts';

const forbidden = (why: string) => new AppError('WEBHOOK_URL_FORBIDDEN', `url: ${why}`);

/** Loopback in its plain spelling (127.0.0.0/8, ::1), as the guard classifies it; IPv4-mapped and other forms stay refused. */
export const isLoopback = (address: string): boolean => refusedAddress(address) === 'loopback';

/**
 * Why a resolved address may not receive webhooks, or null: the import guard's rules
 * (public unicast only); with `allowLocal` loopback addresses pass too.
 */
export function refusedWebhookAddress(address: string, allowLocal: boolean): string | null {
  if (allowLocal && isLoopback(address)) return null;
  return refusedAddress(address);
}

/**
 * Checks an endpoint address before it is stored (CONTRACT §10, §17): `https://` (with
 * `allowLocal` also `http://`), no credentials, no fragment, a public IP literal or a
 * public-looking host name (its addresses are checked at every delivery, not here), on port
 * 443 or one of `allowedPorts` (WEBHOOK_ALLOWED_PORTS), so deliveries cannot probe the ports
 * of other hosts; with `allowLocal` a loopback host may use any port. The host part goes
 * through the import guard itself.
 */
export function checkWebhookUrl(raw: unknown, allowLocal: boolean, allowedPorts: readonly number[] = []): string {
  if (typeof raw !== 'string' || raw.length < 1 || raw.length > 2048) throw new AppError('VALIDATION_ERROR', 'url: must be an HTTPS URL of at most 2048 characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'url: must be an absolute URL');
  }
  const schemes = allowLocal ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new AppError('VALIDATION_ERROR', allowLocal ? 'url: must start with https:// or http://' : 'url: must start with https://');
  }
  if (url.username || url.password) throw new AppError('VALIDATION_ERROR', 'url: must not carry a user name or password');
  if (url.hash) throw new AppError('VALIDATION_ERROR', 'url: must not carry a fragment (#...)');
  const host = url.hostname;
  const localName = host.replace(/\.$/, '').toLowerCase() === 'localhost';
  if (allowLocal && ((isIpLiteral(host) && isLoopback(host)) || localName)) return url.toString();
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (port !== 443 && !allowedPorts.includes(port)) {
    throw forbidden(`port ${port} is not allowed: webhook addresses use port 443${allowedPorts.length ? ` or ${allowedPorts.join(', ')}` : ''}`);
  }
  try {
    checkImportUrl(`https://${url.host.replace(/:\d+$/, '')}/`);
  } catch (err) {
    if (err instanceof AppError && err.code === 'IMPORT_URL_FORBIDDEN') throw forbidden(err.message.replace(/^url: /, '').replace('can be imported', 'can receive webhooks'));
    if (err instanceof AppError) throw new AppError('VALIDATION_ERROR', `url: ${host} is not a valid host`);
    throw err;
  }
  return url.toString();
}
