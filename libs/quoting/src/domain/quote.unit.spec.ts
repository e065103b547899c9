import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { quoteDecider, quoteUnusableReason, type QuoteEvent, type QuoteTerms } from './quote';
import { fold } from '@gensvc/kernel';

const issuedAt = new Date('2026-01-01T00:00:00.000Z');
const terms: QuoteTerms = {
  quote_id: 'qt_1',
  account_id: 'acc_1',
  connection_id: 'key_1',
  model: 'text-writer-lite',
  resolved_model: 'text-writer-lite-2026-11-01',
  capability: 'text.generate',
  modality: 'text',
  supplier: 'local',
  params: { prompt: 'hi' },
  asset_ids: [],
  voice_id: null,
  currency: 'CNY',
  pricing_mode: 'fixed',
  price_version: 'v1',
  unit: 'request',
  unit_price: '0.020000',
  quantity: 1,
  estimated_amount: '0.020000',
  max_amount: '0.020000',
  issued_at: issuedAt.toISOString(),
  expires_at: new Date(issuedAt.getTime() + 15 * 60_000).toISOString(),
};
const issued: QuoteEvent = { type: 'QuoteIssued', data: terms };
const soon = new Date(issuedAt.getTime() + 60_000);
const accepted = (task_id: string): QuoteEvent => ({ type: 'QuoteAccepted', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id, at: soon.toISOString() } });
const released = (task_id: string): QuoteEvent => ({ type: 'QuoteReleased', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id, at: soon.toISOString() } });
const spec = DeciderSpecification.for(quoteDecider);
/** The models the catalogue sells. */
const SOLD = ['text-writer-lite', 'image-studio-v2'];

describe('quote decider', () => {
  it('issues a quote once', () => {
    spec.given([]).when({ type: 'IssueQuote', data: terms, metadata: { now: issuedAt } }).then([issued]);
    spec.given([issued]).when({ type: 'IssueQuote', data: terms, metadata: { now: issuedAt } }).thenThrows('CONFLICT');
  });

  it('is accepted by one task', () => {
    spec.given([issued]).when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_a', available_models: SOLD }, metadata: { now: soon } }).then([accepted('task_a')]);
  });

  it('accepting again by the same task is idempotent, even after expiry', () => {
    const late = new Date(issuedAt.getTime() + 20 * 60_000);
    spec.given([issued, accepted('task_a')]).when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_a', available_models: SOLD }, metadata: { now: late } }).then([]);
  });

  it('refuses a second task: QUOTE_ALREADY_USED', () => {
    spec.given([issued, accepted('task_a')]).when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_b', available_models: SOLD }, metadata: { now: soon } }).thenThrows('QUOTE_ALREADY_USED');
  });

  it('refuses after 15 minutes: QUOTE_EXPIRED', () => {
    const at = new Date(issuedAt.getTime() + 15 * 60_000);
    spec.given([issued]).when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_a', available_models: SOLD }, metadata: { now: at } }).thenThrows('QUOTE_EXPIRED');
  });

  it('is not found for another account or when unknown', () => {
    spec.given([issued]).when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_2', task_id: 'task_a', available_models: SOLD }, metadata: { now: soon } }).thenThrows('NOT_FOUND');
    spec.given([]).when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_a', available_models: SOLD }, metadata: { now: soon } }).thenThrows('NOT_FOUND');
  });

  it('refuses a model the catalogue no longer sells: MODEL_UNAVAILABLE, yet a task that locked it already keeps it', () => {
    const unsold = ['image-studio-v2'];
    spec.given([issued]).when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_a', available_models: unsold }, metadata: { now: soon } }).thenThrows('MODEL_UNAVAILABLE');
    spec.given([issued, accepted('task_a')]).when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_a', available_models: unsold }, metadata: { now: soon } }).then([]);
    expect(quoteUnusableReason(fold(quoteDecider, [issued]), 'qt_1', 'acc_1', soon, unsold)?.code).toBe('MODEL_UNAVAILABLE');
  });

  it('a released lock frees the quote for another task but never for the released one', () => {
    spec.given([issued, accepted('task_a')]).when({ type: 'ReleaseQuote', data: { quote_id: 'qt_1', task_id: 'task_a' }, metadata: { now: soon } }).then([released('task_a')]);
    spec
      .given([issued, accepted('task_a'), released('task_a')])
      .when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_b', available_models: SOLD }, metadata: { now: soon } })
      .then([accepted('task_b')]);
    spec
      .given([issued, accepted('task_a'), released('task_a')])
      .when({ type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_a', available_models: SOLD }, metadata: { now: soon } })
      .thenThrows('CONFLICT');
  });

  it('releasing for a task that never locked it leaves a tombstone and keeps the other lock', () => {
    spec.given([issued, accepted('task_a')]).when({ type: 'ReleaseQuote', data: { quote_id: 'qt_1', task_id: 'task_b' }, metadata: { now: soon } }).then([released('task_b')]);
    const state = fold(quoteDecider, [issued, accepted('task_a'), released('task_b')]);
    expect(state.status).toBe('accepted');
    spec.given([issued, accepted('task_a'), released('task_b')]).when({ type: 'ReleaseQuote', data: { quote_id: 'qt_1', task_id: 'task_b' }, metadata: { now: soon } }).then([]);
  });

  it('tells why a quote cannot be used by a new task', () => {
    expect(quoteUnusableReason(fold(quoteDecider, [issued]), 'qt_1', 'acc_1', soon, SOLD)).toBeNull();
    expect(quoteUnusableReason(fold(quoteDecider, [issued, accepted('task_a')]), 'qt_1', 'acc_1', soon, SOLD)?.code).toBe('QUOTE_ALREADY_USED');
    expect(quoteUnusableReason(fold(quoteDecider, []), 'qt_x', 'acc_1', soon, SOLD)?.code).toBe('NOT_FOUND');
  });
});
