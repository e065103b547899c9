import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppError, LeaseStore, acquireSlot } from '@gensvc/shared';
import { UploadLimits } from '../domain/limits';

/**
 * Counts receives (content writes, direct uploads, imports) in flight across every process
 * that shares the stores: at most `accountConcurrentReceives` per account and
 * `platformConcurrentReceives` in all. Each receive holds one account slot and one platform
 * slot, leases in the shared LeaseStore that expire a little after the longest receive may
 * run, so the slots of a killed process free themselves. A refused receive gets 429
 * UPLOAD_BUSY with Retry-After.
 */
@Injectable()
export class ReceiveSlots {
  private platform = 0;
  private readonly accounts = new Map<string, number>();

  constructor(
    private readonly limits: UploadLimits,
    private readonly leases: LeaseStore,
  ) {}

  /** Time to live of a slot: the longest a receive may run, and a margin. */
  private get ttlMs(): number {
    return Math.max(this.limits.receiveTimeoutMs, this.limits.importTimeoutMs) + 5_000;
  }

  /** Takes a slot or throws UPLOAD_BUSY; the returned function gives it back (once). */
  async acquire(accountId: string): Promise<() => void> {
    const retryAfter = { 'Retry-After': String(this.limits.retryAfterSeconds) };
    const owner = randomUUID();
    const account = await acquireSlot(this.leases, `receive:account:${accountId}`, this.limits.accountConcurrentReceives, owner, this.ttlMs);
    if (!account) {
      throw new AppError(
        'UPLOAD_BUSY',
        `this account already has ${this.limits.accountConcurrentReceives} uploads in progress; query the upload later`,
        retryAfter,
      );
    }
    const platform = await acquireSlot(this.leases, 'receive:platform', this.limits.platformConcurrentReceives, owner, this.ttlMs).catch(async (err: unknown) => {
      await this.leases.release(account, owner);
      throw err;
    });
    if (!platform) {
      await this.leases.release(account, owner);
      throw new AppError('UPLOAD_BUSY', 'the service is receiving as many files as it can; query the upload later', retryAfter);
    }
    this.platform++;
    this.accounts.set(accountId, (this.accounts.get(accountId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.platform--;
      const n = (this.accounts.get(accountId) ?? 1) - 1;
      if (n <= 0) this.accounts.delete(accountId);
      else this.accounts.set(accountId, n);
      void Promise.allSettled([this.leases.release(account, owner), this.leases.release(platform, owner)]);
    };
  }

  /** Receives running in this process. */
  inFlight(): { platform: number; accounts: number } {
    return { platform: this.platform, accounts: this.accounts.size };
  }
}
