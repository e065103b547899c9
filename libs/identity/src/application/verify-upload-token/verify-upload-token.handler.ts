import { Injectable } from '@nestjs/common';
import { Clock } from '@gensvc/kernel';
import { type Principal } from '@gensvc/http';
import { Authenticator } from '../authenticate/authenticator';
import { UploadTokenSigner } from '../upload-token-signer';

/** After `expiresAt` a token still identifies its holder this long. */
const EXPIRED_GRACE_MS = 24 * 3600 * 1000;

export interface VerifyUploadTokenQuery {
  /** The `X-Upload-Token` header as sent. */
  readonly token: string | undefined;
  /** The upload named by the route. */
  readonly upload_id: string | undefined;
}

/**
 * The principal for a PUT of the upload's content, or null when the token does not allow it:
 * accepted only for its own upload, before its expiry, and while its account and connection
 * are still valid (spec, Uploads rule 7).
 */
@Injectable()
export class VerifyUploadTokenHandler {
  constructor(
    private readonly signer: UploadTokenSigner,
    private readonly clock: Clock,
    private readonly auth: Authenticator,
  ) {}

  async execute(query: VerifyUploadTokenQuery): Promise<Principal | null> {
    const uploadId = query.upload_id;
    if (!uploadId) return null;
    const payload = this.signer.decode(query.token);
    if (!payload || payload.u !== uploadId) return null;
    // After `expiresAt` the token still identifies its holder for a grace period, so the
    // uploads endpoint can answer 410 UPLOAD_EXPIRED (spec) instead of a bare 401.
    if (!(payload.e + EXPIRED_GRACE_MS > this.clock.now().getTime())) return null;
    if (!(await this.auth.connectionValid(payload.a, payload.c))) return null;
    return { accountId: payload.a, kind: 'upload_token', connectionId: payload.c, scopes: [], uploadId: payload.u };
  }
}
