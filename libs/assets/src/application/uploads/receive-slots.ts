import { Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/shared';
import { UploadLimits } from '../../domain/limits';

/**
 * Counts receives (content writes, direct uploads, imports) in flight: at most
 * `accountConcurrentReceives` per account and `platformConcurrentReceives` in the process.
 * A refused receive gets 429 UPLOAD_BUSY with Retry-After. (One API process holds the
 * counters; see docs/api.md for running several.)
 */
@Injectable()
export class ReceiveSlots {
  private platform = 0;
  private readonly accounts = new Map<string, number>();

  constructor(private readonly limits: UploadLimits) {}

  /** Takes a slot or throws UPLOAD_BUSY; the returned function gives it back (once). */
  acquire(accountId: string): () => void {
    const retryAfter = { 'Retry-After': String(this.limits.retryAfterSeconds) };
    if (this.platform >= this.limits.platformConcurrentReceives) {
      throw new AppError('UPLOAD_BUSY', 'the service is receiving as many files as it can; query the upload later', retryAfter);
    }
    const mine = this.accounts.get(accountId) ?? 0;
    if (mine >= this.limits.accountConcurrentReceives) {
      throw new AppError(
        'UPLOAD_BUSY',
        `this account already has ${this.limits.accountConcurrentReceives} uploads in progress; query the upload later`,
        retryAfter,
      );
    }
    this.platform++;
    this.accounts.set(accountId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.platform--;
      const n = (this.accounts.get(accountId) ?? 1) - 1;
      if (n <= 0) this.accounts.delete(accountId);
      else this.accounts.set(accountId, n);
    };
  }

  inFlight(): { platform: number; accounts: number } {
    return { platform: this.platform, accounts: this.accounts.size };
  }
}
