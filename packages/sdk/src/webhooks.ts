import { GensvcError } from './errors.js';
import type { Task, WebhookEventType } from './types.js';

/** A result notification that passed verification: `{type, timestamp, data}` and its `webhook-id`. */
export interface WebhookMessage {
  /** The `webhook-id` (`msg_...`): the same for every attempt of one message; deduplicate on it. */
  id: string;
  type: WebhookEventType | (string & {});
  /** When the event was stored (RFC 3339). */
  timestamp: string;
  /** For `task.*` events, the task object as GET /v1/tasks/{id} returned it at that point. */
  data: Task | Record<string, unknown>;
}

/** A webhook request that is not signed by the secret, is malformed, or is too old or too new. */
export class WebhookVerificationError extends GensvcError {
  override name = 'WebhookVerificationError';
  readonly code = 'WEBHOOK_VERIFICATION_FAILED';
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds; default 300 (as Standard Webhooks libraries). */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (for tests). */
  now?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

const base64ToBytes = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const bytesToBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));

/** Compares two strings in time that does not depend on where they differ. */
function equalConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies one delivery of the service's result notifications by the Standard Webhooks scheme
 * (the same check as the `standardwebhooks` package, in any runtime: Web Crypto): the
 * `webhook-signature` must hold `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`
 * by `secret` (`whsec_...`; during a rotation pass both secrets, either may sign) and
 * `webhook-timestamp` must be within 5 minutes of now. Give the raw body exactly as received,
 * before any JSON parsing. Throws WebhookVerificationError; answer such a request with a 4xx.
 */
export async function verifyWebhook(body: string | Uint8Array, headers: HeaderSource, secret: string | readonly string[], o: VerifyOptions = {}): Promise<WebhookMessage> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time');
  const now = Math.floor((o.now ?? Date.now()) / 1000);
  const tolerance = o.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);
  const raw = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  const given = signatures.split(' ').flatMap((s) => (s.startsWith('v1,') ? [s.slice(3)] : []));
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    let key: Uint8Array;
    try {
      key = base64ToBytes(s.startsWith('whsec_') ? s.slice('whsec_'.length) : s);
    } catch {
      throw new WebhookVerificationError('the secret is not base64 (expected whsec_...)');
    }
    if (!key.length) throw new WebhookVerificationError('the secret is empty');
    const hmacKey = await globalThis.crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const expected = bytesToBase64(new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', hmacKey, signed)));
    if (given.some((g) => equalConstantTime(g, expected))) {
      let message: unknown;
      try {
        message = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
      } catch {
        throw new WebhookVerificationError('the body is not UTF-8 JSON');
      }
      const m = message as { type?: unknown; timestamp?: unknown; data?: unknown };
      if (typeof m !== 'object' || m === null || typeof m.type !== 'string') throw new WebhookVerificationError('the body is not a notification object');
      return { id, type: m.type, timestamp: String(m.timestamp ?? ''), data: (m.data ?? {}) as WebhookMessage['data'] };
    }
  }
  throw new WebhookVerificationError('no signature matches the secret');
}
