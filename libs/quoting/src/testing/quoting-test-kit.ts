import type { Clock } from '@gensvc/kernel';
import type { EventStore } from '@gensvc/event-sourcing';
import type { Principal } from '@gensvc/http';
import type { Catalogue } from '@gensvc/catalogue/contracts';
import type { AssetRegistry } from '@gensvc/assets/contracts';
import type { VoiceRegistry } from '@gensvc/voices/contracts';
import type { QuoteBook } from '../contracts/quote-book';
import { IssueQuoteHandler, type QuoteResponse } from '../application/issue-quote/issue-quote.handler';
import { QuoteBookService } from '../application/quote-book/quote-book.service';

export interface QuotingForTests {
  readonly book: QuoteBook;
  issue(request: {
    principal: Pick<Principal, 'accountId' | 'connectionId'>;
    model: string;
    capability: string;
    input: Record<string, unknown>;
    options?: Record<string, unknown>;
  }): Promise<QuoteResponse>;
}

/** The real quoting application over a given event store, for other contexts' tests (no Nest). */
export function createQuotingForTests(deps: {
  events: EventStore;
  catalogue: Catalogue;
  assets: AssetRegistry;
  voices: VoiceRegistry;
  clock: Clock;
}): QuotingForTests {
  const issuer = new IssueQuoteHandler(deps.events, deps.catalogue, deps.assets, deps.voices, deps.clock);
  return { book: new QuoteBookService(deps.events, deps.clock, deps.catalogue), issue: (r) => issuer.execute(r) };
}

/** The quote decider and its events, for cross-aggregate property tests. */
