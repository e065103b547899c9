import { AppError, type Command, type Decider } from '@gensvc/kernel';

/** One message to one endpoint: stream `webhookdelivery-<delivery_id>`. */
export const DELIVERY_STREAM = 'webhookdelivery';

/**
 * The delivery state machine:
 *
 *   pending ──start──► attempting ──2xx──► delivered
 *      ▲                  │  ▲  └──other──► retrying ──due──► attempting …
 *      │                  │  └─ lease expired (the process died mid-attempt): start again
 *      │                  └──other, schedule spent or 410──► failed
 *   retry requested (from delivered, failed or retrying; same message)
 *
 * An endpoint that is disabled or deleted abandons its open deliveries (failed). Every
 * attempt is recorded with its time, status code, duration and error.
 */
export type DeliveryStatus = 'pending' | 'attempting' | 'delivered' | 'retrying' | 'failed';

export interface Attempt {
  readonly at: string;
  readonly status_code: number | null;
  readonly duration_ms: number;
  readonly error: string | null;
}

type Ref = { delivery_id: string; endpoint_id: string; account_id: string };

export type DeliveryEvent =
  | {
      type: 'WebhookDeliveryQueued';
      data: Ref & { message_id: string; event_type: string; source_event_id: string; body: string; created_at: string };
    }
  | { type: 'WebhookDeliveryAttemptStarted'; data: Ref & { at: string; lease_until: string } }
  /** `next_attempt_at` null: no attempt follows (failed). `interrupted`: the attempt's outcome was lost. */
  | { type: 'WebhookDeliveryAttemptFailed'; data: Ref & { attempt: Attempt; next_attempt_at: string | null; interrupted?: boolean } }
  | { type: 'WebhookDeliverySucceeded'; data: Ref & { attempt: Attempt } }
  | { type: 'WebhookDeliveryAbandoned'; data: Ref & { reason: string; at: string } }
  | { type: 'WebhookDeliveryRetryRequested'; data: Ref & { at: string } };

export const DELIVERY_EVENT_TYPES: readonly DeliveryEvent['type'][] = [
  'WebhookDeliveryQueued',
  'WebhookDeliveryAttemptStarted',
  'WebhookDeliveryAttemptFailed',
  'WebhookDeliverySucceeded',
  'WebhookDeliveryAbandoned',
  'WebhookDeliveryRetryRequested',
];

/** Events that end an attempt (the endpoints' health follows them). */
export const DELIVERY_OUTCOME_EVENT_TYPES: readonly DeliveryEvent['type'][] = ['WebhookDeliveryAttemptFailed', 'WebhookDeliverySucceeded'];

export interface Delivery {
  readonly deliveryId: string;
  readonly messageId: string;
  readonly endpointId: string;
  readonly accountId: string;
  readonly eventType: string;
  readonly body: string;
  readonly createdAt: string;
  readonly attempts: readonly Attempt[];
  /** When the next attempt is due (null once delivered or failed). */
  readonly nextAttemptAt: string | null;
  /** Failed attempts since the delivery was queued or a retry was requested. */
  readonly failures: number;
  readonly attemptStartedAt: string | null;
  readonly leaseUntil: string | null;
  readonly failedReason: string | null;
}

export type DeliveryState = { readonly status: 'none' } | ({ readonly status: DeliveryStatus } & Delivery);

export type DeliveryCommand =
  | Command<
      'QueueDelivery',
      {
        delivery_id: string;
        message_id: string;
        endpoint_id: string;
        account_id: string;
        event_type: string;
        source_event_id: string;
        body: string;
      }
    >
  /** Claims the next attempt until `now + lease_ms`; nothing when not due or claimed by a live attempt. */
  | Command<'StartAttempt', { lease_ms: number }>
  | Command<
      'RecordAttempt',
      {
        /** `final`: no retry whatever the schedule (410 Gone). */
        outcome: 'delivered' | 'retry' | 'final';
        status_code: number | null;
        duration_ms: number;
        error: string | null;
        /** Seconds to wait after the 1st, 2nd, … failed attempt. */
        schedule: readonly number[];
        /** Waits vary by up to this fraction either way; `random` in [0, 1) picks where. */
        jitter: number;
        random: number;
      }
    >
  /** The attempt in flight was cut off by a shutdown: attempt again at once. */
  | Command<'ReleaseAttempt', Record<string, never>>
  | Command<'AbandonDelivery', { reason: string }>
  | Command<'RequestRetry', Record<string, never>>;

export const isOpen = (s: DeliveryState): boolean => s.status === 'pending' || s.status === 'attempting' || s.status === 'retrying';

const INTERRUPTED = 'interrupted: the service stopped during this attempt';

const plus = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

/** The wait before attempt `failures + 1`, or null when the schedule is spent. */
export function retryDelayMs(failures: number, schedule: readonly number[], jitter: number, random: number): number | null {
  if (failures < 1 || failures > schedule.length) return null;
  const base = schedule[failures - 1] * 1000;
  return Math.max(0, Math.round(base * (1 + jitter * (2 * random - 1))));
}

export function decide(command: DeliveryCommand, state: DeliveryState): DeliveryEvent[] {
  const now = command.metadata.now.toISOString();
  if (command.type === 'QueueDelivery') {
    if (state.status !== 'none') return [];
    return [
      {
        type: 'WebhookDeliveryQueued',
        data: {
          delivery_id: command.data.delivery_id,
          endpoint_id: command.data.endpoint_id,
          account_id: command.data.account_id,
          message_id: command.data.message_id,
          event_type: command.data.event_type,
          source_event_id: command.data.source_event_id,
          body: command.data.body,
          created_at: now,
        },
      },
    ];
  }
  if (state.status === 'none') throw new AppError('NOT_FOUND', 'delivery not found');
  const ref: Ref = { delivery_id: state.deliveryId, endpoint_id: state.endpointId, account_id: state.accountId };
  switch (command.type) {
    case 'StartAttempt': {
      const started: DeliveryEvent = { type: 'WebhookDeliveryAttemptStarted', data: { ...ref, at: now, lease_until: plus(now, command.data.lease_ms) } };
      if (state.status === 'attempting') {
        if (state.leaseUntil !== null && state.leaseUntil > now) return [];
        const since = state.attemptStartedAt ?? now;
        return [
          {
            type: 'WebhookDeliveryAttemptFailed',
            data: {
              ...ref,
              attempt: { at: since, status_code: null, duration_ms: Math.max(0, Date.parse(now) - Date.parse(since)), error: INTERRUPTED },
              next_attempt_at: now,
              interrupted: true,
            },
          },
          started,
        ];
      }
      if (state.status !== 'pending' && state.status !== 'retrying') return [];
      if (state.nextAttemptAt !== null && state.nextAttemptAt > now) return [];
      return [started];
    }
    case 'RecordAttempt': {
      if (state.status !== 'attempting') return [];
      const attempt: Attempt = { at: state.attemptStartedAt ?? now, status_code: command.data.status_code, duration_ms: Math.max(0, Math.round(command.data.duration_ms)), error: command.data.error };
      if (command.data.outcome === 'delivered') return [{ type: 'WebhookDeliverySucceeded', data: { ...ref, attempt } }];
      const wait = command.data.outcome === 'final' ? null : retryDelayMs(state.failures + 1, command.data.schedule, command.data.jitter, command.data.random);
      return [{ type: 'WebhookDeliveryAttemptFailed', data: { ...ref, attempt, next_attempt_at: wait === null ? null : plus(now, wait) } }];
    }
    case 'ReleaseAttempt': {
      if (state.status !== 'attempting') return [];
      const since = state.attemptStartedAt ?? now;
      return [
        {
          type: 'WebhookDeliveryAttemptFailed',
          data: {
            ...ref,
            attempt: { at: since, status_code: null, duration_ms: Math.max(0, Date.parse(now) - Date.parse(since)), error: INTERRUPTED },
            next_attempt_at: now,
            interrupted: true,
          },
        },
      ];
    }
    case 'AbandonDelivery':
      if (!isOpen(state)) return [];
      return [{ type: 'WebhookDeliveryAbandoned', data: { ...ref, reason: command.data.reason, at: now } }];
    case 'RequestRetry':
      if (state.status === 'attempting') return [];
      return [{ type: 'WebhookDeliveryRetryRequested', data: { ...ref, at: now } }];
    default: {
      const never: never = command;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

export function evolve(state: DeliveryState, event: DeliveryEvent): DeliveryState {
  if (event.type === 'WebhookDeliveryQueued') {
    if (state.status !== 'none') return state;
    const d = event.data;
    return {
      status: 'pending',
      deliveryId: d.delivery_id,
      messageId: d.message_id,
      endpointId: d.endpoint_id,
      accountId: d.account_id,
      eventType: d.event_type,
      body: d.body,
      createdAt: d.created_at,
      attempts: [],
      nextAttemptAt: d.created_at,
      failures: 0,
      attemptStartedAt: null,
      leaseUntil: null,
      failedReason: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'WebhookDeliveryAttemptStarted':
      return { ...state, status: 'attempting', attemptStartedAt: event.data.at, leaseUntil: event.data.lease_until };
    case 'WebhookDeliveryAttemptFailed': {
      const next = event.data.next_attempt_at;
      return {
        ...state,
        status: next === null ? 'failed' : 'retrying',
        attempts: [...state.attempts, event.data.attempt],
        nextAttemptAt: next,
        failures: event.data.interrupted ? state.failures : state.failures + 1,
        attemptStartedAt: null,
        leaseUntil: null,
        failedReason: next === null ? 'every attempt failed' : null,
      };
    }
    case 'WebhookDeliverySucceeded':
      return { ...state, status: 'delivered', attempts: [...state.attempts, event.data.attempt], nextAttemptAt: null, attemptStartedAt: null, leaseUntil: null, failedReason: null };
    case 'WebhookDeliveryAbandoned':
      return { ...state, status: 'failed', nextAttemptAt: null, attemptStartedAt: null, leaseUntil: null, failedReason: event.data.reason };
    case 'WebhookDeliveryRetryRequested':
      return { ...state, status: 'pending', nextAttemptAt: event.data.at, failures: 0, failedReason: null };
    default: {
      const never: never = event;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}

export const deliveryDecider: Decider<DeliveryState, DeliveryCommand, DeliveryEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

/** The status the API shows: an attempt in flight is still pending (or retrying after a failure). */
export function apiStatus(status: DeliveryStatus, attempts: number): 'pending' | 'delivered' | 'retrying' | 'failed' {
  if (status === 'attempting') return attempts === 0 ? 'pending' : 'retrying';
  return status;
}
