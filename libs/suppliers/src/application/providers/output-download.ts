import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pinnedLookup, refusedAddress, resolveAll, resolveCheckedHost } from '@gensvc/http';

/**
 * Why an output file could not be downloaded. `retry` says whether trying again may help
 * (a 5xx, a 429, a broken connection) or not (a 4xx such as an expired link, a refused
 * address); `code` is the short code recorded and logged (`http_403`, `connect_failed`,
 * `refused_address`, …), never a raw network message.
 */
export class OutputDownloadError extends Error {
  override name = 'OutputDownloadError';
  constructor(
    readonly code: string,
    readonly retry: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(`an output file could not be downloaded (${code})`);
  }
}

export interface DownloadPolicy {
  /** Hosts trusted as configured (the channel's base URL origin and `output_hosts`): no address rules. */
  trusts(url: URL): boolean;
  /** Headers for a URL (the provider's authentication on its own origin only). */
  headersFor(url: URL): Record<string, string>;
  /** Time to the first byte of the answer. */
  readonly connectTimeoutMs: number;
}

const MAX_REDIRECTS = 3;

/**
 * Opens an output file for streaming (the body is not read here: the caller streams it
 * into the blob store through the content checks). Trusted hosts are dialled as configured;
 * any other address must be `https` on port 443 and pass the import guard's address rules,
 * checked at every redirect hop, and the connection goes to the checked address.
 */
export async function openOutput(url: string, policy: DownloadPolicy, signal: AbortSignal): Promise<{ body: IncomingMessage; contentType: string | null }> {
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new OutputDownloadError('invalid_url', false);
  }
  for (let hop = 0; ; hop++) {
    const res = await get(current, policy, signal);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop >= MAX_REDIRECTS) throw new OutputDownloadError('too_many_redirects', false);
      try {
        current = new URL(res.headers.location, current);
      } catch {
        throw new OutputDownloadError('invalid_redirect', false);
      }
      continue;
    }
    if (status === 200) return { body: res, contentType: typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : null };
    res.resume();
    const retryAfter = Number(res.headers['retry-after']);
    const retry = status >= 500 || status === 429 || status === 408;
    throw new OutputDownloadError(`http_${status}`, retry, Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined);
  }
}

async function get(url: URL, policy: DownloadPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  let pinned: string | undefined;
  if (!policy.trusts(url)) {
    if (url.protocol !== 'https:' || (url.port !== '' && url.port !== '443')) throw new OutputDownloadError('refused_address', false);
    const checked = await resolveCheckedHost(url, (host) => resolveAll(host), (a) => refusedAddress(a));
    if (!checked.ok) throw new OutputDownloadError(checked.reason === 'refused' ? 'refused_address' : 'unresolved', checked.reason === 'unresolved');
    pinned = checked.addresses[0];
  } else if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OutputDownloadError('invalid_url', false);
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(url, { method: 'GET', headers: policy.headersFor(url), signal, ...(pinned ? { lookup: pinnedLookup(pinned) } : {}) }, (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    const timer = setTimeout(() => req.destroy(new OutputDownloadError('timeout', true)), policy.connectTimeoutMs);
    req.on('error', (err: Error & { code?: string }) => {
      clearTimeout(timer);
      if (err instanceof OutputDownloadError) reject(err);
      else if (signal.aborted) reject(err);
      else reject(new OutputDownloadError(err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EHOSTUNREACH' ? 'connect_failed' : err.code?.startsWith('ERR_TLS') || err.code?.includes('CERT') ? 'tls_error' : 'reset', true));
    });
    req.end();
  });
}
