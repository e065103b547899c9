import { Inject, Injectable } from '@nestjs/common';
import { AppError, Clock, Money, streamName } from '@gensvc/kernel';
import { EventStore, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { QuoteBook, type LockedQuote, type QuoteAcceptance } from '../../contracts/quote-book';
import { QUOTE_STREAM, quoteDecider, quoteUnusableReason, type QuoteState, type QuoteTerms } from '../../domain/quote';

const ID = /^qt_[0-9a-z]{1,60}$/;

export function lockedQuote(t: QuoteTerms): LockedQuote {
  return {
    quoteId: t.quote_id,
    accountId: t.account_id,
    model: t.model,
    resolvedModel: t.resolved_model,
    capability: t.capability,
    modality: t.modality,
    params: t.params,
    assetIds: t.asset_ids,
    voiceId: t.voice_id,
    supplier: t.supplier,
    currency: t.currency,
    priceVersion: t.price_version,
    quantity: t.quantity,
    unit: t.unit,
    estimatedAmount: Money.parse(t.estimated_amount),
    maxAmount: Money.parse(t.max_amount),
    expiresAt: t.expires_at,
  };
}

/**
 * The quoting context's side of task creation: check, lock and release quotes. A quote locks
 * only while the catalogue sells its model (its price stays the quote's own).
 */
@Injectable()
export class QuoteBookService extends QuoteBook {
  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    private readonly clock: Clock,
    private readonly catalogue: Catalogue,
  ) {
    super();
  }

  override async usable(quoteId: string, accountId: string): Promise<LockedQuote> {
    const state = await this.load(quoteId);
    const reason = quoteUnusableReason(state, quoteId, accountId, this.clock.now(), this.catalogue.availableModels());
    if (reason) throw reason;
    return lockedQuote((state as Extract<QuoteState, { terms: QuoteTerms }>).terms);
  }

  override async accept(quoteId: string, accountId: string, taskId: string): Promise<QuoteAcceptance> {
    if (!ID.test(quoteId)) return { accepted: false, refusal: { code: 'NOT_FOUND', message: `quote ${quoteId} not found` } };
    try {
      const result = await handleCommand(this.events, streamName(QUOTE_STREAM, quoteId), quoteDecider, { type: 'AcceptQuote', data: this.acceptance(quoteId, accountId, taskId), metadata: { now: this.clock.now() } });
      const state = result.state as Extract<QuoteState, { terms: QuoteTerms }>;
      return { accepted: true, quote: lockedQuote(state.terms), position: result.position };
    } catch (err) {
      // The decider's typed refusal becomes the answer; anything else (I/O) is thrown.
      if (err instanceof AppError) return { accepted: false, refusal: { code: err.code, message: err.message } };
      throw err;
    }
  }

  override async release(quoteId: string, taskId: string): Promise<{ position?: bigint }> {
    if (!ID.test(quoteId)) return {};
    const result = await handleCommand(this.events, streamName(QUOTE_STREAM, quoteId), quoteDecider, { type: 'ReleaseQuote', data: { quote_id: quoteId, task_id: taskId }, metadata: { now: this.clock.now() } });
    return { position: result.position };
  }

  private acceptance(quoteId: string, accountId: string, taskId: string) {
    return { quote_id: quoteId, account_id: accountId, task_id: taskId, available_models: this.catalogue.availableModels() };
  }

  private async load(quoteId: string): Promise<QuoteState> {
    if (!ID.test(quoteId)) return quoteDecider.initialState();
    return (await loadAggregate(this.events, streamName(QUOTE_STREAM, quoteId), quoteDecider)).state;
  }
}
