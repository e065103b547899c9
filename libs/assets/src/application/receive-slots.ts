import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppError } from '@gensvc/kernel';
import { LeaseStore, acquireSlot } from '@gensvc/event-sourcing';
import { UploadLimits } from '../domain/limits';

/** A receive slot held: give it back once; `yielded` aborts when the receive must give its place to a waiting account. */
export interface ReceiveSlot {
  readonly yielded: AbortSignal;
  release(): void;
}

const PLATFORM = 'receive:platform';
/** The lease that keeps a platform slot, once its receive has ended, for the account that asked for it. */
const reservationOf = (slotKey: string) => `receive:reserved:${slotKey}`;
/** Lease owners are `<account id> <random>`, so the holders of the platform slots tell whose receives they are. */
const accountOf = (owner: string) => owner.split(' ', 1)[0];

/**
 * Counts receives (content writes, direct uploads, imports) in flight across every process
 * that shares the stores: at most `accountConcurrentReceives` per account and
 * `platformConcurrentReceives` in all. Each receive holds one account slot and one platform
 * slot, leases in the shared LeaseStore that expire a little after the longest receive may
 * run, so the slots of a killed process free themselves. A refused receive gets 429
 * UPLOAD_BUSY with Retry-After.
 *
 * A fair share while others wait (CONTRACT §17): when the platform slots are all taken and the
 * refused account holds fewer than its fair share (the slots divided among the accounts that
 * hold or want one, at least one each), one slot of the account holding the most above its
 * share is reserved for it (a lease beside the slot). The receive in that slot sees the
 * reservation within `yieldCheckMs`, ends with UPLOAD_BUSY (its upload stays to be sent again)
 * and frees the slot, which then goes only to the account that reserved it, when it comes
 * back after Retry-After, until the reservation expires. So one account, or a few, cannot
 * keep the service's receives for themselves, in any number of processes.
 */
@Injectable()
export class ReceiveSlots {
  private readonly logger = new Logger('Uploads');
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

  /** A reservation lasts until the waiting account may have come back (Retry-After) and a margin. */
  private get reservationTtlMs(): number {
    return this.limits.retryAfterSeconds * 1000 + 10_000;
  }

  private get platformKeys(): string[] {
    return Array.from({ length: this.limits.platformConcurrentReceives }, (_, i) => `${PLATFORM}#${i}`);
  }

  /** Takes a slot or throws UPLOAD_BUSY. */
  async acquire(accountId: string): Promise<ReceiveSlot> {
    const retryAfter = { 'Retry-After': String(this.limits.retryAfterSeconds) };
    const owner = `${accountId} ${randomUUID()}`;
    const account = await acquireSlot(this.leases, `receive:account:${accountId}`, this.limits.accountConcurrentReceives, owner, this.ttlMs);
    if (!account) {
      throw new AppError(
        'UPLOAD_BUSY',
        `this account already has ${this.limits.accountConcurrentReceives} uploads in progress; query the upload later`,
        retryAfter,
      );
    }
    let platform: string | null;
    try {
      platform = await this.takePlatformSlot(accountId, owner);
      if (!platform) await this.reserveForWaiter(accountId);
    } catch (err) {
      await this.leases.release(account, owner);
      throw err;
    }
    if (!platform) {
      await this.leases.release(account, owner);
      throw new AppError('UPLOAD_BUSY', 'the service is receiving as many files as it can; query the upload later', retryAfter);
    }
    return this.held(accountId, owner, account, platform);
  }

  /** A free platform slot that is not kept for another account, or null. */
  private async takePlatformSlot(accountId: string, owner: string): Promise<string | null> {
    const keys = this.platformKeys;
    const start = Math.floor(Math.random() * keys.length);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[(start + i) % keys.length];
      const reserved = await this.leases.holder(reservationOf(key));
      if (reserved && accountOf(reserved.owner) !== accountId) continue;
      if (await this.leases.acquire(key, owner, this.ttlMs)) {
        if (reserved) await this.leases.release(reservationOf(key), reserved.owner);
        return key;
      }
    }
    return null;
  }

  /** Reserves a slot of the account furthest above its fair share for `accountId`, when it is below its own. */
  private async reserveForWaiter(accountId: string): Promise<void> {
    const keys = this.platformKeys;
    const [holders, reservations] = await Promise.all([
      Promise.all(keys.map((k) => this.leases.holder(k))),
      Promise.all(keys.map((k) => this.leases.holder(reservationOf(k)))),
    ]);
    if (reservations.some((r) => r && accountOf(r.owner) === accountId)) return; // kept for it already
    const byAccount = new Map<string, string[]>();
    holders.forEach((h, i) => {
      if (h) byAccount.set(accountOf(h.owner), [...(byAccount.get(accountOf(h.owner)) ?? []), keys[i]]);
    });
    const share = Math.max(1, Math.floor(keys.length / new Set([...byAccount.keys(), accountId]).size));
    if ((byAccount.get(accountId)?.length ?? 0) >= share) return;
    const over = [...byAccount.entries()].filter(([, held]) => held.length > share).sort((a, b) => b[1].length - a[1].length);
    for (const [, held] of over) {
      for (const key of held) {
        if (reservations[keys.indexOf(key)]) continue;
        if (await this.leases.acquire(reservationOf(key), `${accountId} ${randomUUID()}`, this.reservationTtlMs)) {
          this.logger.log({ slot: key, for: accountId }, 'a receive slot is reserved for an account below its fair share');
          return;
        }
      }
    }
  }

  private held(accountId: string, owner: string, account: string, platform: string): ReceiveSlot {
    this.platform++;
    this.accounts.set(accountId, (this.accounts.get(accountId) ?? 0) + 1);
    const yielded = new AbortController();
    // Whether another account reserved this slot (then this receive gives its place).
    const watch = setInterval(() => {
      this.leases
        .holder(reservationOf(platform))
        .then((r) => {
          if (r && accountOf(r.owner) !== accountId && !yielded.signal.aborted) yielded.abort();
        })
        .catch(() => undefined);
    }, this.limits.yieldCheckMs);
    watch.unref();
    let released = false;
    return {
      yielded: yielded.signal,
      release: () => {
        if (released) return;
        released = true;
        clearInterval(watch);
        this.platform--;
        const n = (this.accounts.get(accountId) ?? 1) - 1;
        if (n <= 0) this.accounts.delete(accountId);
        else this.accounts.set(accountId, n);
        void Promise.allSettled([this.leases.release(account, owner), this.leases.release(platform, owner)]);
      },
    };
  }

  /** Receives running in this process. */
  inFlight(): { platform: number; accounts: number } {
    return { platform: this.platform, accounts: this.accounts.size };
  }
}
