import type { Micros } from '@gensvc/kernel';

/** A quote's terms as the tasks context locks them. */
export interface LockedQuote {
  readonly quoteId: string;
  readonly accountId: string;
  readonly model: string;
  readonly resolvedModel: string;
  readonly capability: string;
  readonly modality: string;
  /** Validated input with defaults (input merged with options). */
  readonly params: Record<string, unknown>;
  readonly assetIds: readonly string[];
  readonly voiceId: string | null;
  /** Supplier channel of the model (internal). */
  readonly supplier: string;
  readonly currency: 'CNY';
  readonly priceVersion: string;
  /** How many pricing units the quote charges for (`estimatedAmount` = unit price × quantity). */
  readonly quantity: number;
  /** The pricing unit (`image`, `request`, `1k_characters`, …). */
  readonly unit: string;
  readonly estimatedAmount: Micros;
  readonly maxAmount: Micros;
  readonly expiresAt: string;
}

/** Why a quote cannot be locked: NOT_FOUND, QUOTE_EXPIRED or QUOTE_ALREADY_USED. */
export interface QuoteRefusal {
  readonly code: string;
  readonly message: string;
}

/** The answer to `accept`: the locked terms, or the refusal (nothing changed). */
export type QuoteAcceptance =
  | { readonly accepted: true; readonly quote: LockedQuote; readonly position?: bigint }
  | { readonly accepted: false; readonly refusal: QuoteRefusal };

/** What the tasks context may ask of the quoting context. */
export abstract class QuoteBook {
  /**
   * The terms of a quote the account could lock with a new task now. NOT_FOUND (unknown or
   * another account's), QUOTE_EXPIRED, QUOTE_ALREADY_USED otherwise. Changes nothing.
   */
  abstract usable(quoteId: string, accountId: string): Promise<LockedQuote>;
  /**
   * Locks the quote for `taskId` (QuoteAccepted). Idempotent per task id. A quote that cannot
   * be locked answers its refusal (same reasons as `usable`) rather than throwing.
   */
  abstract accept(quoteId: string, accountId: string, taskId: string): Promise<QuoteAcceptance>;
  /** Gives the lock of `taskId` back (a rolled-back creation); `taskId` can never lock it again. Idempotent. */
  abstract release(quoteId: string, taskId: string): Promise<{ position?: bigint }>;
}
