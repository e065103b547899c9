import type { Micros } from '@gensvc/kernel';

/** The wallet as the API shows it: exactly these four fields. */
export interface WalletView {
  readonly currency: 'CNY';
  readonly balance: string;
  readonly reserved: string;
  readonly available: string;
}

/** What a settlement did to one reservation. */
export interface ReservationOutcome {
  readonly charged: Micros;
  readonly released: Micros;
  /** Global position of the event written, when one was (for read-your-writes). */
  readonly position?: bigint;
}

/** The answer to `reserve`: reserved, or refused (INSUFFICIENT_FUNDS; CONFLICT for a closed id) with nothing reserved. */
export type ReservationResult =
  | { readonly reserved: true; readonly position?: bigint }
  | { readonly reserved: false; readonly refusal: { readonly code: string; readonly message: string } };

/** What other contexts (and the admin CLI) may ask of the wallet context. */
export abstract class WalletCommands {
  /** Adds funds (admin credit). `amount` is a positive CNY decimal string. */
  abstract credit(accountId: string, amount: string, reason?: string): Promise<WalletView>;
  /**
   * The wallet folded from its events (current even without subscriptions running). With
   * `includeInFlight`, also the commands of this process whose events are not stored yet (it
   * does not wait for them): a quick look for a check the wallet's own decision repeats.
   */
  abstract view(accountId: string, options?: { includeInFlight?: boolean }): Promise<WalletView>;
  /**
   * Moves `amount` from available to reserved under `reservationId` (the task id).
   * Idempotent per id. Refused (nothing reserved) with INSUFFICIENT_FUNDS when available is
   * short, CONFLICT when the id was already closed.
   */
  abstract reserve(request: { accountId: string; reservationId: string; taskId: string; amount: Micros }): Promise<ReservationResult>;
  /** Charges `amount` (≤ reserved) and releases the rest. Idempotent: a closed reservation answers its outcome. */
  abstract capture(request: { accountId: string; reservationId: string; amount: Micros }): Promise<ReservationOutcome>;
  /** Releases the whole reservation; an id never reserved is voided (never reservable after). Idempotent. */
  abstract release(request: { accountId: string; reservationId: string }): Promise<ReservationOutcome>;
}
