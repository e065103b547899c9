import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { endpointsDecider, failingTooLong, MAX_ENDPOINTS, signingSecrets, subscribes, type EndpointsState, type WebhookEndpointEvent } from './endpoints';

const spec = DeciderSpecification.for(endpointsDecider);
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T06:00:00.000Z';
const created = (n: number): WebhookEndpointEvent => ({
  type: 'WebhookEndpointCreated',
  data: { account_id: 'acc_1', endpoint_id: `whe_${String(n).padStart(12, '0')}`, url: `https://h.example.com/${n}`, events: ['*'], description: null, secret: `sealed-${n}`, created_at: T0 },
});
const create = (n: number) => ({ type: 'CreateEndpoint' as const, data: { account_id: 'acc_1', endpoint_id: `whe_${String(n).padStart(12, '0')}`, url: `https://h.example.com/${n}`, events: ['*'], description: null, sealed_secret: `sealed-${n}` }, metadata: { now: new Date(T0) } });
const id1 = 'whe_000000000001';
const fold = (events: WebhookEndpointEvent[]): EndpointsState => events.reduce(endpointsDecider.evolve, endpointsDecider.initialState());

describe('webhook endpoints decider', () => {
  it('given no endpoints, when one is created, then it is created; creating the same id again changes nothing', () => {
    spec.given([]).when(create(1)).then([created(1)]);
    spec.given([created(1)]).when(create(1)).then([]);
  });

  it(`given ${MAX_ENDPOINTS} endpoints, when another is created, then it is refused; after a deletion it is accepted`, () => {
    const full = Array.from({ length: MAX_ENDPOINTS }, (_, i) => created(i + 1));
    spec.given(full).when(create(99)).thenThrows('WEBHOOK_ENDPOINT_LIMIT_REACHED');
    const deleted: WebhookEndpointEvent = { type: 'WebhookEndpointDeleted', data: { account_id: 'acc_1', endpoint_id: id1, at: T1 } };
    spec.given([...full, deleted]).when(create(99)).thenReturns((events) => expect(events.map((e) => e.type)).toEqual(['WebhookEndpointCreated']));
  });

  it('given an endpoint, when its secret is rotated, then the old secret signs for 24 hours beside the new one', () => {
    const rotated: WebhookEndpointEvent = {
      type: 'WebhookEndpointSecretRotated',
      data: { account_id: 'acc_1', endpoint_id: id1, secret: 'sealed-new', previous_expires_at: '2026-01-02T06:00:00.000Z', at: T1 },
    };
    spec.given([created(1)]).when({ type: 'RotateSecret', data: { endpoint_id: id1, sealed_secret: 'sealed-new' }, metadata: { now: new Date(T1) } }).then([rotated]);
    const state = fold([created(1), rotated]);
    const e = state.status === 'active' ? state.endpoints[id1] : undefined;
    expect(signingSecrets(e!, '2026-01-02T06:00:00.000Z').map((s) => s.sealed)).toEqual(['sealed-new']);
    expect(signingSecrets(e!, '2026-01-02T05:59:59.999Z').map((s) => s.sealed)).toEqual(['sealed-new', 'sealed-1']);
  });

  it('given a second rotation within a day, then every earlier secret stops at the new overlap end', () => {
    const r = (secret: string, at: string, until: string): WebhookEndpointEvent => ({
      type: 'WebhookEndpointSecretRotated',
      data: { account_id: 'acc_1', endpoint_id: id1, secret, previous_expires_at: until, at },
    });
    const state = fold([created(1), r('s2', T1, '2026-01-02T06:00:00.000Z'), r('s3', '2026-01-01T07:00:00.000Z', '2026-01-02T07:00:00.000Z')]);
    const e = state.status === 'active' ? state.endpoints[id1]! : undefined;
    expect(e!.secrets).toEqual([
      { sealed: 's3', expires_at: null },
      { sealed: 's2', expires_at: '2026-01-02T07:00:00.000Z' },
      { sealed: 'sealed-1', expires_at: '2026-01-02T06:00:00.000Z' },
    ]);
  });

  it('given an enabled endpoint, when it is disabled, then once only', () => {
    const disabled: WebhookEndpointEvent = { type: 'WebhookEndpointDisabled', data: { account_id: 'acc_1', endpoint_id: id1, reason: 'gone', at: T1 } };
    spec.given([created(1)]).when({ type: 'DisableEndpoint', data: { endpoint_id: id1, reason: 'gone' }, metadata: { now: new Date(T1) } }).then([disabled]);
    spec.given([created(1), disabled]).when({ type: 'DisableEndpoint', data: { endpoint_id: id1, reason: 'failing' }, metadata: { now: new Date(T1) } }).then([]);
    spec.given([]).when({ type: 'DisableEndpoint', data: { endpoint_id: id1, reason: 'gone' }, metadata: { now: new Date(T1) } }).then([]);
  });

  it('given a deleted or unknown endpoint, when it is rotated or deleted, then NOT_FOUND', () => {
    const deleted: WebhookEndpointEvent = { type: 'WebhookEndpointDeleted', data: { account_id: 'acc_1', endpoint_id: id1, at: T1 } };
    spec.given([created(1), deleted]).when({ type: 'DeleteEndpoint', data: { endpoint_id: id1 }, metadata: { now: new Date(T1) } }).thenThrows('NOT_FOUND');
    spec.given([created(1), deleted]).when({ type: 'RotateSecret', data: { endpoint_id: id1, sealed_secret: 'x' }, metadata: { now: new Date(T1) } }).thenThrows('NOT_FOUND');
    spec.given([]).when({ type: 'DeleteEndpoint', data: { endpoint_id: id1 }, metadata: { now: new Date(T1) } }).thenThrows('NOT_FOUND');
  });

  it('subscriptions: "*" takes every type, a list only its own', () => {
    expect(subscribes({ events: ['*'] }, 'voice.deleted')).toBe(true);
    expect(subscribes({ events: ['task.failed'] }, 'task.failed')).toBe(true);
    expect(subscribes({ events: ['task.failed'] }, 'task.succeeded')).toBe(false);
  });

  it('an endpoint failing every attempt for 5 days is due to be disabled, not a moment before', () => {
    const fiveDays = 5 * 86_400_000;
    expect(failingTooLong('2026-01-01T00:00:00.000Z', new Date('2026-01-05T23:59:59.999Z'), fiveDays)).toBe(false);
    expect(failingTooLong('2026-01-01T00:00:00.000Z', new Date('2026-01-06T00:00:00.000Z'), fiveDays)).toBe(true);
    expect(failingTooLong(null, new Date('2027-01-01T00:00:00.000Z'), fiveDays)).toBe(false);
  });
});
