import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { apiStatus, deliveryDecider, retryDelayMs, type DeliveryCommand, type DeliveryEvent, type DeliveryState } from './delivery';

const spec = DeliveryCommandSpec();
function DeliveryCommandSpec() {
  return DeciderSpecification.for(deliveryDecider);
}
const T0 = '2026-01-01T00:00:00.000Z';
const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();
const ref = { delivery_id: 'whd_0000000000001', endpoint_id: 'whe_0000000000001', account_id: 'acc_1' };
const queued: DeliveryEvent = {
  type: 'WebhookDeliveryQueued',
  data: { ...ref, message_id: 'msg_0000000000001', event_type: 'task.succeeded', source_event_id: 'evt_1', body: '{"type":"task.succeeded"}', created_at: T0 },
};
const started = (s: number, leaseS = 20): DeliveryEvent => ({ type: 'WebhookDeliveryAttemptStarted', data: { ...ref, at: at(s), lease_until: at(s + leaseS) } });
const failed = (s: number, code: number | null, next: string | null, error = `the receiver answered HTTP ${code}`): DeliveryEvent => ({
  type: 'WebhookDeliveryAttemptFailed',
  data: { ...ref, attempt: { at: at(s), status_code: code, duration_ms: 0, error }, next_attempt_at: next },
});
const schedule = [5, 300];
const record = (s: number, outcome: 'delivered' | 'retry' | 'final', statusCode: number | null, random = 0.5): DeliveryCommand => ({ type: 'RecordAttempt', data: { outcome, status_code: statusCode, duration_ms: 0, error: outcome === 'delivered' ? null : `the receiver answered HTTP ${statusCode}`, schedule, jitter: 0.1, random }, metadata: { now: new Date(at(s)) } });
const fold = (events: DeliveryEvent[]): DeliveryState => events.reduce(deliveryDecider.evolve, deliveryDecider.initialState());
const queue: DeliveryCommand = { type: 'QueueDelivery', data: { delivery_id: ref.delivery_id, message_id: 'msg_0000000000001', endpoint_id: ref.endpoint_id, account_id: 'acc_1', event_type: 'task.succeeded', source_event_id: 'evt_1', body: '{"type":"task.succeeded"}' }, metadata: { now: new Date(T0) } };

describe('webhook delivery state machine', () => {
  it('given nothing, when queued, then pending and due at once; queuing again adds nothing', () => {
    spec.given([]).when(queue).then([queued]);
    spec.given([queued]).when(queue).then([]);
    expect(fold([queued])).toMatchObject({ status: 'pending', nextAttemptAt: T0 });
  });

  it('given a pending delivery, when an attempt starts, then it is claimed until the lease ends; a second claim gets nothing', () => {
    spec.given([queued]).when({ type: 'StartAttempt', data: { lease_ms: 20_000 }, metadata: { now: new Date(T0) } }).then([started(0)]);
    spec.given([queued, started(0)]).when({ type: 'StartAttempt', data: { lease_ms: 20_000 }, metadata: { now: new Date(at(19)) } }).then([]);
  });

  it('given an attempt in flight, when it answers 2xx, then delivered with the attempt recorded', () => {
    spec
      .given([queued, started(0)])
      .when(record(1, 'delivered', 204))
      .then([{ type: 'WebhookDeliverySucceeded', data: { ...ref, attempt: { at: T0, status_code: 204, duration_ms: 0, error: null } } }]);
    const state = fold([queued, started(0), { type: 'WebhookDeliverySucceeded', data: { ...ref, attempt: { at: T0, status_code: 204, duration_ms: 0, error: null } } }]);
    expect(state).toMatchObject({ status: 'delivered', nextAttemptAt: null });
  });

  it('given an attempt in flight, when it fails, then retrying after the first wait of the schedule (with jitter)', () => {
    spec.given([queued, started(0)]).when(record(1, 'retry', 500, 0.5)).then([failed(0, 500, at(6))]);
    spec.given([queued, started(0)]).when(record(1, 'retry', 500, 0)).then([failed(0, 500, at(1 + 4.5))]);
    expect(fold([queued, started(0), failed(0, 500, at(6))])).toMatchObject({ status: 'retrying', failures: 1, nextAttemptAt: at(6) });
  });

  it('given a retrying delivery, when it is not yet due, then no attempt starts', () => {
    spec.given([queued, started(0), failed(0, 500, at(6))]).when({ type: 'StartAttempt', data: { lease_ms: 20_000 }, metadata: { now: new Date(at(5)) } }).then([]);
    spec.given([queued, started(0), failed(0, 500, at(6))]).when({ type: 'StartAttempt', data: { lease_ms: 20_000 }, metadata: { now: new Date(at(6)) } }).then([started(6)]);
  });

  it('given the schedule is spent, when the last attempt fails, then failed', () => {
    const history = [queued, started(0), failed(0, 500, at(6)), started(6), failed(6, 503, at(306)), started(306)];
    spec.given(history).when(record(307, 'retry', 502)).then([failed(306, 502, null)]);
    expect(fold([...history, failed(306, 502, null)])).toMatchObject({ status: 'failed', attempts: expect.arrayContaining([expect.objectContaining({ status_code: 502 })]) });
  });

  it('given an attempt in flight, when the receiver answers 410, then failed without retry', () => {
    spec.given([queued, started(0)]).when(record(1, 'final', 410)).then([failed(0, 410, null)]);
  });

  it('given an attempt whose process died (lease expired), when started again, then the lost attempt is recorded and a new one claimed', () => {
    spec
      .given([queued, started(0)])
      .when({ type: 'StartAttempt', data: { lease_ms: 20_000 }, metadata: { now: new Date(at(20)) } })
      .then([
        {
          type: 'WebhookDeliveryAttemptFailed',
          data: { ...ref, attempt: { at: T0, status_code: null, duration_ms: 20_000, error: 'interrupted: the service stopped during this attempt' }, next_attempt_at: at(20), interrupted: true },
        },
        started(20),
      ]);
    // An interrupted attempt does not use up the schedule.
    const state = fold([queued, started(0), { type: 'WebhookDeliveryAttemptFailed', data: { ...failed(0, null, at(20)).data, interrupted: true } } as DeliveryEvent]);
    expect(state).toMatchObject({ status: 'retrying', failures: 0 });
  });

  it('given an attempt cut off by a shutdown, when released, then due again at once', () => {
    spec.given([queued, started(0)]).when({ type: 'ReleaseAttempt', data: {}, metadata: { now: new Date(at(2)) } }).thenReturns((events) => {
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'WebhookDeliveryAttemptFailed', data: { next_attempt_at: at(2), interrupted: true } });
    });
    spec.given([queued]).when({ type: 'ReleaseAttempt', data: {}, metadata: { now: new Date(at(2)) } }).then([]);
  });

  it('given a delivered or failed delivery, when a retry is requested, then pending again with a fresh schedule and the same message', () => {
    const done = [queued, started(0), failed(0, 410, null)];
    const retried: DeliveryEvent = { type: 'WebhookDeliveryRetryRequested', data: { ...ref, at: at(100) } };
    spec.given(done).when({ type: 'RequestRetry', data: {}, metadata: { now: new Date(at(100)) } }).then([retried]);
    expect(fold([...done, retried])).toMatchObject({ status: 'pending', failures: 0, nextAttemptAt: at(100), messageId: 'msg_0000000000001' });
    spec.given([queued, started(0)]).when({ type: 'RequestRetry', data: {}, metadata: { now: new Date(at(1)) } }).then([]);
  });

  it('given an open delivery, when its endpoint is gone, then abandoned (failed) once', () => {
    const abandoned: DeliveryEvent = { type: 'WebhookDeliveryAbandoned', data: { ...ref, reason: 'the endpoint was deleted', at: at(1) } };
    spec.given([queued]).when({ type: 'AbandonDelivery', data: { reason: 'the endpoint was deleted' }, metadata: { now: new Date(at(1)) } }).then([abandoned]);
    spec.given([queued, abandoned]).when({ type: 'AbandonDelivery', data: { reason: 'again' }, metadata: { now: new Date(at(2)) } }).then([]);
    expect(fold([queued, abandoned]).status).toBe('failed');
  });

  it('given an unknown delivery, when anything but queuing, then NOT_FOUND', () => {
    spec.given([]).when({ type: 'RequestRetry', data: {}, metadata: { now: new Date(T0) } }).thenThrows('NOT_FOUND');
  });

  it('retry waits: the schedule entry for the n-th failure, varied by at most the jitter; none after the last', () => {
    expect(retryDelayMs(1, [5, 300], 0.1, 0)).toBe(4500);
    expect(retryDelayMs(1, [5, 300], 0.1, 0.999999)).toBe(5500);
    expect(retryDelayMs(2, [5, 300], 0, 0.3)).toBe(300_000);
    expect(retryDelayMs(3, [5, 300], 0.1, 0.5)).toBeNull();
  });

  it('the API shows an attempt in flight as pending (first) or retrying (later)', () => {
    expect(apiStatus('attempting', 0)).toBe('pending');
    expect(apiStatus('attempting', 2)).toBe('retrying');
    expect(apiStatus('delivered', 1)).toBe('delivered');
  });
});
