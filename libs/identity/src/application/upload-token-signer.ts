import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppConfig, Clock, type Principal } from '@gensvc/shared';
import { UploadTokens } from '../contracts/upload-tokens';
import { Authenticator } from './authenticate/authenticator';

interface Payload {
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
const EXPIRED_GRACE_MS = 24 * 3600 * 1000;

/**
 * The `X-Upload-Token` credential: `gsu_<payload>.<signature>`, an HMAC-SHA256 (with a key
 * derived from SIGNING_SECRET) over the upload id, account, connection and expiry. Nothing
 * is stored; a token is accepted only for its own upload, before its expiry, and while its
 * account and connection are still valid (spec, Uploads rule 7).
 */
@Injectable()
export class SignedUploadTokens extends UploadTokens {
  private readonly key: Buffer;

  constructor(
    config: AppConfig,
    private readonly clock: Clock,
    private readonly auth: Authenticator,
  ) {
    super();
    this.key = createHmac('sha256', config.signingSecret).update('gensvc upload token v1').digest();
  }

  override async issue(grant: { accountId: string; connectionId: string; uploadId: string; expiresAt: Date }): Promise<string> {
    const payload: Payload = { u: grant.uploadId, a: grant.accountId, c: grant.connectionId, e: grant.expiresAt.getTime() };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${PREFIX}${body}.${this.sign(body)}`;
  }

  /** The principal for a PUT of `uploadId`, or null when the token does not allow it. */
  async verify(token: string | undefined, uploadId: string | undefined): Promise<Principal | null> {
    if (typeof token !== 'string' || !token.startsWith(PREFIX) || token.length > 2000 || !uploadId) return null;
    const [body, sig, extra] = token.slice(PREFIX.length).split('.');
    if (!body || !sig || extra !== undefined) return null;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    } catch {
      return null;
    }
    if (payload.u !== uploadId) return null;
    // After `expiresAt` the token still identifies its holder for a grace period, so the
    // uploads endpoint can answer 410 UPLOAD_EXPIRED (spec) instead of a bare 401.
    if (!(payload.e + EXPIRED_GRACE_MS > this.clock.now().getTime())) return null;
    if (!(await this.auth.connectionValid(payload.a, payload.c))) return null;
    return { accountId: payload.a, kind: 'upload_token', connectionId: payload.c, scopes: [], uploadId: payload.u };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
