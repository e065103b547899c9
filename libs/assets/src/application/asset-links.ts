import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '@gensvc/config';
import { AppError, Clock } from '@gensvc/kernel';
import { UploadLimits } from '../domain/limits';

export type Disposition = 'inline' | 'attachment';

export interface SignedLinks {
  /** Preview link (Content-Disposition: inline). */
  readonly url: string;
  /** Download link (Content-Disposition: attachment). */
  readonly download_url: string;
  readonly links_expire_at: string;
}

/**
 * Signed file links: `{PUBLIC_BASE_URL}/v1/assets/{id}/content?disposition=..&expires=..&signature=..`
 * where the signature is an HMAC-SHA256 (key derived from SIGNING_SECRET) over the asset id,
 * the disposition and the expiry. No account credential is needed while the link is valid.
 */
@Injectable()
export class AssetLinks {
  private readonly key: Buffer;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly limits: UploadLimits,
  ) {
    this.key = createHmac('sha256', config.signingSecret).update('gensvc asset link v1').digest();
  }

  issue(assetId: string): SignedLinks {
    const expires = Math.floor((this.clock.now().getTime() + this.limits.linkValidityMs) / 1000);
    return {
      url: this.link(assetId, 'inline', expires),
      download_url: this.link(assetId, 'attachment', expires),
      links_expire_at: new Date(expires * 1000).toISOString(),
    };
  }

  /** The disposition a link grants; FORBIDDEN (403) for a tampered, incomplete or expired link. */
  verify(assetId: string, query: Record<string, unknown>): { disposition: Disposition; expires: number } {
    const { disposition, expires, signature } = query;
    if ((disposition !== 'inline' && disposition !== 'attachment') || typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) {
      throw new AppError('FORBIDDEN', 'this link is not valid; read the asset again for a fresh link');
    }
    const expected = Buffer.from(this.sign(assetId, disposition, Number(expires)));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw new AppError('FORBIDDEN', 'this link is not valid; read the asset again for a fresh link');
    }
    if (Number(expires) * 1000 <= this.clock.now().getTime()) {
      throw new AppError('FORBIDDEN', 'this link has expired; read the asset again for a fresh link');
    }
    return { disposition, expires: Number(expires) };
  }

  private link(assetId: string, disposition: Disposition, expires: number): string {
    const q = new URLSearchParams({ disposition, expires: String(expires), signature: this.sign(assetId, disposition, expires) });
    return `${this.config.publicBaseUrl}/v1/assets/${encodeURIComponent(assetId)}/content?${q.toString()}`;
  }

  private sign(assetId: string, disposition: Disposition, expires: number): string {
    return createHmac('sha256', this.key).update(`${assetId}\n${disposition}\n${expires}`).digest('base64url');
  }
}
