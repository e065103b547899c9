import { AppError, type Command, type Decider } from '@gensvc/kernel';

/** The account's webhook endpoints: one aggregate per account, stream `webhooks-<account_id>`. */
export const WEBHOOKS_STREAM = 'webhooks';

/** Event types a caller can subscribe to (CONTRACT §10). */
export const WEBHOOK_EVENT_TYPES = [
  'task.created',
  'task.running',
  'task.succeeded',
  'task.failed',
  'task.canceled',
  'upload.completed',
  'asset.deleted',
  'voice.deleted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Endpoints an account may have at once (deleted ones do not count). */
export const MAX_ENDPOINTS = 16;
/** After a rotation the previous secret keeps signing this long. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export type DisableReason = 'gone' | 'failing';

/** An endpoint is disabled once every attempt since `failingSince` failed for `limitMs` (5 days). */
export const failingTooLong = (failingSince: string | null, now: Date, limitMs: number): boolean =>
  failingSince !== null && now.getTime() - Date.parse(failingSince) >= limitMs;

/** A signing secret as stored: encrypted (`sealed`), and until when it signs (null: current). */
export interface StoredSecret {
  readonly sealed: string;
  readonly expires_at: string | null;
}

export type WebhookEndpointEvent =
  | {
      type: 'WebhookEndpointCreated';
      data: { account_id: string; endpoint_id: string; url: string; events: string[]; description: string | null; secret: string; created_at: string };
    }
  | { type: 'WebhookEndpointSecretRotated'; data: { account_id: string; endpoint_id: string; secret: string; previous_expires_at: string; at: string } }
  | { type: 'WebhookEndpointDisabled'; data: { account_id: string; endpoint_id: string; reason: DisableReason; at: string } }
  | { type: 'WebhookEndpointDeleted'; data: { account_id: string; endpoint_id: string; at: string } };

export const WEBHOOK_ENDPOINT_EVENT_TYPES: readonly WebhookEndpointEvent['type'][] = [
  'WebhookEndpointCreated',
  'WebhookEndpointSecretRotated',
  'WebhookEndpointDisabled',
  'WebhookEndpointDeleted',
];

export interface Endpoint {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string | null;
  readonly status: 'enabled' | 'disabled' | 'deleted';
  readonly disabledReason: DisableReason | null;
  readonly createdAt: string;
  /** Newest first. */
  readonly secrets: readonly StoredSecret[];
}

export type EndpointsState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly accountId: string; readonly endpoints: Readonly<Record<string, Endpoint>> };

export type EndpointsCommand =
  | Command<
      'CreateEndpoint',
      {
        account_id: string;
        endpoint_id: string;
        url: string;
        events: string[];
        description: string | null;
        /** The new secret, already encrypted. */
        sealed_secret: string;
      }
    >
  | Command<'RotateSecret', { endpoint_id: string; sealed_secret: string }>
  | Command<'DisableEndpoint', { endpoint_id: string; reason: DisableReason }>
  | Command<'DeleteEndpoint', { endpoint_id: string }>;

const live = (e: Endpoint | undefined): e is Endpoint => !!e && e.status !== 'deleted';

export function liveEndpoints(state: EndpointsState): Endpoint[] {
  return state.status === 'none' ? [] : Object.values(state.endpoints).filter(live);
}

/** Secrets that sign at `now`, newest first. */
export function signingSecrets(endpoint: Endpoint, now: string): StoredSecret[] {
  return endpoint.secrets.filter((s) => s.expires_at === null || s.expires_at > now);
}

/** Whether `endpoint` wants messages of `type`. */
export const subscribes = (endpoint: Pick<Endpoint, 'events'>, type: string): boolean => endpoint.events.includes('*') || endpoint.events.includes(type);

function owned(state: EndpointsState, endpointId: string): Endpoint & { accountId: string } {
  const e = state.status === 'active' ? state.endpoints[endpointId] : undefined;
  if (state.status !== 'active' || !live(e)) throw new AppError('NOT_FOUND', `webhook endpoint ${endpointId} not found`);
  return { ...e, accountId: state.accountId };
}

export function decide(command: EndpointsCommand, state: EndpointsState): WebhookEndpointEvent[] {
  const now = command.metadata.now.toISOString();
  switch (command.type) {
    case 'CreateEndpoint': {
      if (state.status === 'active' && state.endpoints[command.data.endpoint_id]) return [];
      if (liveEndpoints(state).length >= MAX_ENDPOINTS) {
        throw new AppError('WEBHOOK_ENDPOINT_LIMIT_REACHED', `an account can have at most ${MAX_ENDPOINTS} webhook endpoints; delete one first`);
      }
      return [
        {
          type: 'WebhookEndpointCreated',
          data: {
            account_id: command.data.account_id,
            endpoint_id: command.data.endpoint_id,
            url: command.data.url,
            events: [...command.data.events],
            description: command.data.description,
            secret: command.data.sealed_secret,
            created_at: now,
          },
        },
      ];
    }
    case 'RotateSecret': {
      const e = owned(state, command.data.endpoint_id);
      const previousExpiresAt = new Date(Date.parse(now) + ROTATION_OVERLAP_MS).toISOString();
      return [
        {
          type: 'WebhookEndpointSecretRotated',
          data: { account_id: e.accountId, endpoint_id: e.id, secret: command.data.sealed_secret, previous_expires_at: previousExpiresAt, at: now },
        },
      ];
    }
    case 'DisableEndpoint': {
      const e = state.status === 'active' ? state.endpoints[command.data.endpoint_id] : undefined;
      if (state.status !== 'active' || !e || e.status !== 'enabled') return [];
      return [{ type: 'WebhookEndpointDisabled', data: { account_id: state.accountId, endpoint_id: e.id, reason: command.data.reason, at: now } }];
    }
    case 'DeleteEndpoint': {
      const e = owned(state, command.data.endpoint_id);
      return [{ type: 'WebhookEndpointDeleted', data: { account_id: e.accountId, endpoint_id: e.id, at: now } }];
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

export function evolve(state: EndpointsState, event: WebhookEndpointEvent): EndpointsState {
  const d = event.data;
  const accountId = state.status === 'active' ? state.accountId : d.account_id;
  const endpoints = state.status === 'active' ? state.endpoints : {};
  const current = endpoints[d.endpoint_id];
  const put = (e: Endpoint): EndpointsState => ({ status: 'active', accountId, endpoints: { ...endpoints, [e.id]: e } });
  switch (event.type) {
    case 'WebhookEndpointCreated':
      if (current) return state;
      return put({
        id: event.data.endpoint_id,
        url: event.data.url,
        events: event.data.events,
        description: event.data.description,
        status: 'enabled',
        disabledReason: null,
        createdAt: event.data.created_at,
        secrets: [{ sealed: event.data.secret, expires_at: null }],
      });
    case 'WebhookEndpointSecretRotated': {
      if (!current) return state;
      const previous = event.data.previous_expires_at;
      const kept = current.secrets
        .filter((s) => s.expires_at === null || s.expires_at > event.data.at)
        .map((s) => (s.expires_at === null || s.expires_at > previous ? { ...s, expires_at: previous } : s));
      return put({ ...current, secrets: [{ sealed: event.data.secret, expires_at: null }, ...kept] });
    }
    case 'WebhookEndpointDisabled':
      if (!current || current.status !== 'enabled') return state;
      return put({ ...current, status: 'disabled', disabledReason: event.data.reason });
    case 'WebhookEndpointDeleted':
      if (!current) return state;
      return put({ ...current, status: 'deleted', secrets: [] });
    default: {
      const never: never = event;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}

export const endpointsDecider: Decider<EndpointsState, EndpointsCommand, WebhookEndpointEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const isEndpointId = (id: string): boolean => typeof id === 'string' && /^whe_[0-9a-z]{10,60}$/.test(id);
export const isDeliveryId = (id: string): boolean => typeof id === 'string' && /^whd_[0-9a-z]{10,60}$/.test(id);
