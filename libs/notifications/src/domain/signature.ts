import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint secret: `whsec_` + standard base64 of 32 random bytes (CONTRACT §10). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The `webhook-signature` header of the Standard Webhooks scheme: for each secret
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed by the secret's bytes,
 * space-separated (newest secret first).
 */
export function signatureHeader(secrets: readonly string[], messageId: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
