import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import type { SupplierJobEvent } from '../contracts/supplier-gateway';
import { fold } from '@gensvc/kernel';
import { supplierJobDecider, type SupplierJobCommand } from './supplier-job';

const spec = DeciderSpecification.for(supplierJobDecider);
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const ids = { task_id: 'task_1', account_id: 'acc_1' };

const queued: SupplierJobEvent = {
  type: 'SupplierJobQueued',
  data: { ...ids, supplier: 'local', at: T0, model: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'hi' }, deadline_at: '2026-01-01T00:10:00.000Z' },
};
const dispatched: SupplierJobEvent = { type: 'SupplierJobDispatched', data: { ...ids, at: T0 } };
const checking: SupplierJobEvent = { type: 'SupplierCancelChecking', data: { ...ids, at: T0 } };
const output = { asset_ids: ['ast_1'], text: 'hello' };

const queue: SupplierJobCommand = { type: 'QueueJob', data: { task_id: 'task_1', account_id: 'acc_1', supplier: 'local', model: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'hi' }, deadline_at: '2026-01-01T00:10:00.000Z' }, metadata: { now: new Date(T0) } };
const cancel: SupplierJobCommand = { type: 'RequestCancel', data: { task_id: 'task_1', account_id: 'acc_1' }, metadata: { now: new Date(T1) } };

describe('supplier job decider', () => {
  describe('queueing', () => {
    it('queues a new job with what to run and its deadline', () => spec.given([]).when(queue).then([queued]));
    it('records the local test switches only when armed', () =>
      spec
        .given([])
        .when({ ...queue, data: { ...(queue.data as Extract<SupplierJobCommand, { type: 'QueueJob' }>['data']), local_behavior: { outcome: 'hang' } } } as SupplierJobCommand)
        .then([{ ...queued, data: { ...queued.data, local_behavior: { outcome: 'hang' } } } as SupplierJobEvent]));
    it('is idempotent per task', () => spec.given([queued]).when(queue).then([]));
    it('does nothing for a job canceled before it was submitted', () =>
      spec.given([{ type: 'SupplierJobCanceled', data: { ...ids, at: T0 } }]).when(queue).then([]));
  });

  describe('submitting to a provider route', () => {
    const at = (t: string) => ({ now: new Date(t) });
    const submitting: SupplierJobEvent = { type: 'SupplierJobSubmitting', data: { ...ids, channel: 'rep', route: 0, at: T1 } };
    it('marks the job before the create request goes out', () =>
      spec.given([queued]).when({ type: 'BeginSubmit', data: { channel: 'rep', route: 0 }, metadata: at(T1) }).then([submitting]));
    it('never marks twice: a job found submitting may exist at the provider', () =>
      spec.given([queued, submitting]).when({ type: 'BeginSubmit', data: { channel: 'fal', route: 1 }, metadata: at(T1) }).then([]));
    it('clears the mark when the provider did not take the job, so another route may be tried', () => {
      const notTaken: SupplierJobEvent = { type: 'SupplierJobNotTaken', data: { ...ids, channel: 'rep', route: 0, reason: 'http_429', at: T1, retry_at: '2026-01-01T00:00:03.000Z' } };
      spec.given([queued, submitting]).when({ type: 'SubmitNotTaken', data: { route: 0, reason: 'http_429', retry_after_ms: 2000 }, metadata: at(T1) }).then([notTaken]);
      spec.given([queued, submitting, notTaken]).when({ type: 'BeginSubmit', data: { channel: 'fal', route: 1 }, metadata: at(T1) }).then([{ ...submitting, data: { ...submitting.data, channel: 'fal', route: 1 } } as SupplierJobEvent]);
    });
    it('spends a route after its third attempt, so a restart goes on with the next route', () => {
      const tried = (n: number, t: string): SupplierJobEvent[] => [
        { type: 'SupplierJobSubmitting', data: { ...ids, channel: 'rep', route: 0, at: t } },
        { type: 'SupplierJobNotTaken', data: { ...ids, channel: 'rep', route: 0, reason: 'http_503', at: t, retry_at: `2026-01-01T00:00:0${n + 2}.000Z` } },
      ];
      spec
        .given([queued, ...tried(1, T1), ...tried(2, '2026-01-01T00:00:03.000Z'), { type: 'SupplierJobSubmitting', data: { ...ids, channel: 'rep', route: 0, at: '2026-01-01T00:00:05.000Z' } }])
        .when({ type: 'SubmitNotTaken', data: { route: 0, reason: 'http_503' }, metadata: at('2026-01-01T00:00:05.000Z') })
        .then([{ type: 'SupplierJobNotTaken', data: { ...ids, channel: 'rep', route: 0, reason: 'http_503', at: '2026-01-01T00:00:05.000Z', route_spent: true } }]);
      const state = fold(supplierJobDecider, [queued, ...tried(1, T1), ...tried(2, '2026-01-01T00:00:03.000Z')]);
      expect(state).toMatchObject({ status: 'queued', submitting: null, routes: { 'rep#0': { attempts: 2, since: T1, retryAt: '2026-01-01T00:00:04.000Z', spent: false } } });
    });
    it('spends a route at once that asks to wait more than 30 seconds or does not know the model', () => {
      const spent: SupplierJobEvent = { type: 'SupplierJobNotTaken', data: { ...ids, channel: 'rep', route: 0, reason: 'http_429', at: T1, route_spent: true } };
      spec.given([queued, submitting]).when({ type: 'SubmitNotTaken', data: { route: 0, reason: 'http_429', retry_after_ms: 120_000 }, metadata: at(T1) }).then([spent]);
      spec
        .given([queued, submitting])
        .when({ type: 'SubmitNotTaken', data: { route: 0, reason: 'http_404', route_unusable: true }, metadata: at(T1) })
        .then([{ ...spent, data: { ...spent.data, reason: 'http_404' } } as SupplierJobEvent]);
    });
    it('skips a route that cannot be sent the job, once, and not another route than the one submitting', () => {
      const skip: SupplierJobCommand = { type: 'SkipRoute', data: { channel: 'fal', route: 1, reason: 'input_map' }, metadata: at(T1) };
      const skipped: SupplierJobEvent = { type: 'SupplierJobNotTaken', data: { ...ids, channel: 'fal', route: 1, reason: 'input_map', at: T1, route_spent: true } };
      spec.given([queued]).when(skip).then([skipped]);
      spec.given([queued, skipped]).when(skip).then([]);
      spec.given([queued, submitting]).when(skip).then([]);
    });
    it('reads a not-taken event written without its retry fields as an attempt to retry at once', () =>
      expect(fold(supplierJobDecider, [queued, submitting, { type: 'SupplierJobNotTaken', data: { ...ids, channel: 'rep', route: 0, reason: 'http_500', at: T1 } }])).toMatchObject({
        routes: { 'rep#0': { attempts: 1, retryAt: null, spent: false } },
      }));
    it('ignores a not-taken answer of another route than the one submitting', () =>
      spec.given([queued, submitting]).when({ type: 'SubmitNotTaken', data: { route: 1, reason: 'http_500' }, metadata: at(T1) }).then([]));
    it('records which route took the job, the provider id and the unit cost', () => {
      spec
        .given([queued, submitting])
        .when({ type: 'DispatchJob', data: { channel: 'rep', route: 0, supplier_model: 'acme/img', remote_id: 'p1', unit_cost: '0.010000' }, metadata: at(T1) })
        .then([{ type: 'SupplierJobDispatched', data: { ...ids, at: T1, channel: 'rep', route: 0, supplier_model: 'acme/img', remote_id: 'p1', unit_cost: '0.010000' } }]);
      const state = fold(supplierJobDecider, [
        queued,
        submitting,
        { type: 'SupplierJobDispatched', data: { ...ids, at: T1, channel: 'rep', route: 0, supplier_model: 'acme/img', remote_id: 'p1' } },
      ]);
      expect(state).toMatchObject({ status: 'dispatched', remote: { channel: 'rep', route: 0, supplierModel: 'acme/img', remoteId: 'p1' } });
    });
    it('a cancel while submitting cancels at once (the channel then cancels whatever the provider made)', () =>
      spec.given([queued, submitting]).when(cancel).then([{ type: 'SupplierJobCanceled', data: { ...ids, at: T1 } }]));
  });

  describe('normal run', () => {
    it('dispatches a queued job', () => spec.given([queued]).when({ type: 'DispatchJob', data: {}, metadata: { now: new Date(T1) } }).then([{ type: 'SupplierJobDispatched', data: { ...ids, at: T1 } }]));
    it('dispatches only once', () => spec.given([queued, dispatched]).when({ type: 'DispatchJob', data: {}, metadata: { now: new Date(T1) } }).then([]));
    it('completes a dispatched job with its output', () =>
      spec.given([queued, dispatched]).when({ type: 'CompleteJob', data: { output }, metadata: { now: new Date(T1) } }).then([{ type: 'SupplierJobSucceeded', data: { ...ids, output, at: T1 } }]));
    it('completing a queued job records the dispatch first (a supplier faster than our bookkeeping)', () =>
      spec.given([queued]).when({ type: 'CompleteJob', data: { output }, metadata: { now: new Date(T1) } }).then([
        { type: 'SupplierJobDispatched', data: { ...ids, at: T1 } },
        { type: 'SupplierJobSucceeded', data: { ...ids, output, at: T1 } },
      ]));
    it('fails a queued or dispatched job', () => {
      const error = { code: 'SUPPLIER_TIMEOUT', message: 'late' };
      spec.given([queued]).when({ type: 'FailJob', data: { error }, metadata: { now: new Date(T1) } }).then([{ type: 'SupplierJobFailed', data: { ...ids, error, at: T1 } }]);
      spec.given([queued, dispatched]).when({ type: 'FailJob', data: { error }, metadata: { now: new Date(T1) } }).then([{ type: 'SupplierJobFailed', data: { ...ids, error, at: T1 } }]);
    });
    it('a finished job takes no further outcome', () => {
      const done: SupplierJobEvent = { type: 'SupplierJobSucceeded', data: { ...ids, output, at: T1 } };
      spec.given([queued, dispatched, done]).when({ type: 'FailJob', data: { error: { code: 'X', message: 'x' } }, metadata: { now: new Date(T1) } }).then([]);
      spec.given([queued, dispatched, done]).when({ type: 'CompleteJob', data: { output }, metadata: { now: new Date(T1) } }).then([]);
      spec.given([queued, dispatched, done]).when({ type: 'DispatchJob', data: {}, metadata: { now: new Date(T1) } }).then([]);
    });
  });

  describe('cancellation', () => {
    it('cancels a queued job at once', () => spec.given([queued]).when(cancel).then([{ type: 'SupplierJobCanceled', data: { ...ids, at: T1 } }]));
    it('records a tombstone for a job never submitted', () =>
      spec.given([]).when(cancel).then([{ type: 'SupplierJobCanceled', data: { ...ids, at: T1 } }]));
    it('a canceled queued job is never dispatched', () =>
      spec.given([queued, { type: 'SupplierJobCanceled', data: { ...ids, at: T1 } }]).when({ type: 'DispatchJob', data: {}, metadata: { now: new Date(T1) } }).then([]));
    it('asks the supplier when it holds the job', () => spec.given([queued, dispatched]).when(cancel).then([{ type: 'SupplierCancelChecking', data: { ...ids, at: T1 } }]));
    it('repeating a cancel is harmless', () => {
      spec.given([queued, dispatched, checking]).when(cancel).then([]);
      spec.given([queued, dispatched, checking, { type: 'SupplierCancelRefused', data: { ...ids, at: T1 } }]).when(cancel).then([]);
      spec.given([queued, { type: 'SupplierJobCanceled', data: { ...ids, at: T1 } }]).when(cancel).then([]);
    });
    it('a cancel after the end changes nothing', () =>
      spec.given([queued, dispatched, { type: 'SupplierJobSucceeded', data: { ...ids, output, at: T1 } }]).when(cancel).then([]));
    it.each([
      ['canceled', 'SupplierJobCanceled'],
      ['refused', 'SupplierCancelRefused'],
      ['unconfirmed', 'SupplierCancelUnconfirmed'],
    ] as const)('resolves a check as %s', (outcome, type) =>
      spec.given([queued, dispatched, checking]).when({ type: 'ResolveCancel', data: { outcome }, metadata: { now: new Date(T1) } }).then([{ type, data: { ...ids, at: T1 } } as SupplierJobEvent]));
    it('resolves a check only once', () =>
      spec.given([queued, dispatched, checking, { type: 'SupplierCancelRefused', data: { ...ids, at: T1 } }]).when({ type: 'ResolveCancel', data: { outcome: 'unconfirmed' }, metadata: { now: new Date(T1) } }).then([]));
    it('a supplier that cancels after an unconfirmed answer still confirms', () =>
      spec
        .given([queued, dispatched, checking, { type: 'SupplierCancelUnconfirmed', data: { ...ids, at: T1 } }])
        .when({ type: 'ResolveCancel', data: { outcome: 'canceled' }, metadata: { now: new Date(T1) } })
        .then([{ type: 'SupplierJobCanceled', data: { ...ids, at: T1 } }]));
    it('a job nobody asked to cancel is not canceled by a resolution', () =>
      spec.given([queued, dispatched]).when({ type: 'ResolveCancel', data: { outcome: 'canceled' }, metadata: { now: new Date(T1) } }).then([]));
    it('completion during the check refuses the cancellation, then succeeds', () =>
      spec.given([queued, dispatched, checking]).when({ type: 'CompleteJob', data: { output }, metadata: { now: new Date(T1) } }).then([
        { type: 'SupplierCancelRefused', data: { ...ids, at: T1 } },
        { type: 'SupplierJobSucceeded', data: { ...ids, output, at: T1 } },
      ]));
    it('confirmed cancellation wins over a later completion (exactly one outcome)', () =>
      spec.given([queued, dispatched, checking, { type: 'SupplierJobCanceled', data: { ...ids, at: T1 } }]).when({ type: 'CompleteJob', data: { output }, metadata: { now: new Date(T1) } }).then([]));
  });

  it('folds to the terminal state and keeps the first outcome', () => {
    const s = fold(supplierJobDecider, [
      queued,
      dispatched,
      { type: 'SupplierJobCanceled', data: { ...ids, at: T1 } },
      { type: 'SupplierJobSucceeded', data: { ...ids, output, at: T1 } },
    ]);
    expect(s.status).toBe('canceled');
  });
});
