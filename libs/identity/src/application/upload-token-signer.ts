import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '@gensvc/config';

/** What an upload token says. */
export interface UploadTokenPayload {
  /** upload id */
  u: string;
  /** account id */
  a: string;
  /** connection id (API key id or OAuth grant id) */
  c: string;
  /** expiry, epoch milliseconds */
  e: number;
}

const PREFIX = 'gsu_';

/**
 * The `X-Upload-Token` credential's format: `gsu_<payload>.<signature>`, an HMAC-SHA256 (with
 * a key derived from SIGNING_SECRET) over the upload id, account, connection and expiry.
 * Nothing is stored; issuing and verifying a token share this.
 */
@Injectable()
export class UploadTokenSigner {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = createHmac('sha256', config.signingSecret).update('gensvc upload token v1').digest();
  }

  encode(payload: UploadTokenPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${PREFIX}${body}.${this.sign(body)}`;
  }

  /** The payload of a well-formed token with a valid signature, or null. */
  decode(token: string | undefined): UploadTokenPayload | null {
    if (typeof token !== 'string' || !token.startsWith(PREFIX) || token.length > 2000) return null;
    const [body, sig, extra] = token.slice(PREFIX.length).split('.');
    if (!body || !sig || extra !== undefined) return null;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as UploadTokenPayload;
    } catch {
      return null;
    }
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
