import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';

/**
 * Callback addresses: `{PUBLIC_BASE_URL}/v1/supplier-callbacks/<token>`. The token is the
 * task id sealed with AES-256-GCM under a key derived from the service's signing secret,
 * with an IV derived from the task id: stable per task (a re-submit after a crash hands
 * out the same address), opaque to the supplier, and unforgeable.
 */
export class CallbackTokens {
  private readonly key: Buffer;

  constructor(signingSecret: string) {
    this.key = createHmac('sha256', signingSecret).update('gensvc supplier callback token v1').digest();
  }

  seal(taskId: string): string {
    const iv = createHmac('sha256', this.key).update(taskId).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(taskId, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The task id, or null for anything not sealed by this service. */
  open(token: string): string | null {
    if (!/^[A-Za-z0-9_-]{40,400}$/.test(token)) return null;
    const raw = Buffer.from(token, 'base64url');
    if (raw.length < 12 + 1 + 16) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

export const SIGNATURE_HEADER = 'x-gensvc-signature';
export const TIMESTAMP_HEADER = 'x-gensvc-timestamp';

/** `v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>` */
export function signCallback(secret: string, timestamp: number, body: Buffer | string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

export type SignatureCheck = 'ok' | 'missing' | 'bad_timestamp' | 'stale' | 'bad_signature';

/**
 * Verifies a callback: the timestamp (Unix seconds) within ±windowSeconds of now, and a
 * `v1=` signature over "<timestamp>.<raw body>" (constant-time comparison). A replay of a
 * genuine callback inside the window changes nothing: recording an outcome is idempotent.
 */
export function verifyCallback(
  secret: string,
  headers: { timestamp?: string; signature?: string },
  body: Buffer,
  nowMs: number,
  windowSeconds: number,
): SignatureCheck {
  if (!headers.timestamp || !headers.signature) return 'missing';
  if (!/^\d{1,12}$/.test(headers.timestamp)) return 'bad_timestamp';
  const ts = Number(headers.timestamp);
  if (Math.abs(nowMs / 1000 - ts) > windowSeconds) return 'stale';
  const expected = Buffer.from(signCallback(secret, ts, body));
  const given = headers.signature
    .split(',')
    .map((s) => s.trim())
    .find((s) => s.startsWith('v1='));
  if (!given) return 'bad_signature';
  const g = Buffer.from(given);
  return g.length === expected.length && timingSafeEqual(g, expected) ? 'ok' : 'bad_signature';
}

/**
 * Whether a base URL points somewhere an outside supplier cannot reach: loopback, private,
 * link-local or unique-local addresses, `localhost`, `.local`/`.localhost`/`.internal`
 * names and single-label host names (CONTRACT §7).
 */
export function isLocalBaseUrl(base: string): boolean {
  let host: string;
  try {
    host = new URL(base).hostname.toLowerCase();
  } catch {
    return true;
  }
  host = host.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (ipaddr.isValid(host)) {
    let addr = ipaddr.parse(host);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
    return addr.range() !== 'unicast';
  }
  if (host === 'localhost' || !host.includes('.')) return true;
  return /\.(local|localhost|internal|lan|home|intranet|corp)$/.test(host);
}
