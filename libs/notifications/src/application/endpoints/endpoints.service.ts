import { Injectable } from '@nestjs/common';
import { AppError, Clock, checkPlainText, newId, streamName } from '@gensvc/kernel';
import { EventStore, ReadStore, SubscriptionEngine, caughtUp, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { endpointsDecider, isEndpointId, WEBHOOK_EVENT_TYPES, WEBHOOKS_STREAM, type DisableReason, type Endpoint, type EndpointsState } from '../../domain/endpoints';
import { newWebhookSecret } from '../../domain/signature';
import { SecretBox } from '../../infrastructure/secret-box';
import { NotificationSettings } from '../../notification-settings';
import { WEBHOOK_ENDPOINTS, type EndpointDoc } from './endpoints.projection';
import { checkWebhookUrl } from './webhook-address';

/** The endpoint object of CONTRACT §10 (`secret` only when created or rotated). */
export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  created_at: string;
  secret?: string;
}

export interface EndpointPage {
  data: EndpointView[];
  page: number;
  limit: number;
  has_more: boolean;
}

/** Checks `events`: a non-empty list of known event types (duplicates folded), or `["*"]`. */
export function checkEventTypes(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 32) throw new AppError('VALIDATION_ERROR', 'events: must be a non-empty array of event types, or ["*"]');
  const out: string[] = [];
  for (const [i, t] of raw.entries()) {
    if (typeof t !== 'string' || (t !== '*' && !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t))) {
      throw new AppError('VALIDATION_ERROR', `events[${i}]: unknown event type ${JSON.stringify(t)}; use one of ${WEBHOOK_EVENT_TYPES.join(', ')} or "*"`);
    }
    if (!out.includes(t)) out.push(t);
  }
  if (out.includes('*') && out.length > 1) throw new AppError('VALIDATION_ERROR', 'events: "*" stands alone (it means every event type)');
  return out;
}

/**
 * Webhook endpoints of an account (one aggregate per account). Commands and single reads
 * fold the account's stream (always current); the list reads the projection. Commands answer
 * from their own result (a new secret is shown once), so they wait for the projection but a
 * lag of it (ProjectionLagError) does not fail them.
 */
@Injectable()
export class EndpointsService {
  private readonly box: SecretBox;

  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly clock: Clock,
    private readonly settings: NotificationSettings,
  ) {
    this.box = new SecretBox(settings.secretKey);
  }

  async create(accountId: string, input: { url: unknown; events: unknown; description?: unknown }): Promise<EndpointView> {
    const url = checkWebhookUrl(input.url, this.settings.allowLocal, this.settings.allowedPorts);
    const events = checkEventTypes(input.events);
    if (input.description !== undefined && input.description !== null && (typeof input.description !== 'string' || input.description.length > 500)) {
      throw new AppError('VALIDATION_ERROR', 'description: must be a string of at most 500 characters');
    }
    const description = typeof input.description === 'string' ? checkPlainText(input.description.trim(), 'description') || null : null;
    const secret = newWebhookSecret();
    const endpointId = newId('whe');
    const result = await handleCommand(this.events, this.stream(accountId), endpointsDecider, { type: 'CreateEndpoint', data: { account_id: accountId, endpoint_id: endpointId, url, events, description, sealed_secret: this.box.seal(secret) }, metadata: { now: this.clock.now() } });
    await caughtUp(this.engine.waitFor(result.position));
    return { ...this.view(this.endpointOf(result.state, endpointId)), secret };
  }

  async list(accountId: string, query: { page: number; limit: number }): Promise<EndpointPage> {
    const docs = await this.readStore
      .collection<EndpointDoc & { _id: string }>(WEBHOOK_ENDPOINTS)
      .find({ account_id: accountId, status: { $in: ['enabled', 'disabled'] } }, { sort: { created_at: -1, _id: -1 }, skip: (query.page - 1) * query.limit, limit: query.limit + 1 });
    return {
      data: docs.slice(0, query.limit).map((d) => ({ id: d.id, url: d.url, events: [...d.events], description: d.description, status: d.status === 'disabled' ? 'disabled' : 'enabled', created_at: d.created_at })),
      page: query.page,
      limit: query.limit,
      has_more: docs.length > query.limit,
    };
  }

  async get(accountId: string, endpointId: string): Promise<EndpointView> {
    return this.view(await this.owned(accountId, endpointId));
  }

  async delete(accountId: string, endpointId: string): Promise<{ id: string; deleted: true }> {
    await this.owned(accountId, endpointId);
    const result = await handleCommand(this.events, this.stream(accountId), endpointsDecider, { type: 'DeleteEndpoint', data: { endpoint_id: endpointId }, metadata: { now: this.clock.now() } });
    await caughtUp(this.engine.waitFor(result.position));
    return { id: endpointId, deleted: true };
  }

  async rotate(accountId: string, endpointId: string): Promise<EndpointView> {
    await this.owned(accountId, endpointId);
    const secret = newWebhookSecret();
    const result = await handleCommand(this.events, this.stream(accountId), endpointsDecider, { type: 'RotateSecret', data: { endpoint_id: endpointId, sealed_secret: this.box.seal(secret) }, metadata: { now: this.clock.now() } });
    await caughtUp(this.engine.waitFor(result.position));
    return { ...this.view(this.endpointOf(result.state, endpointId)), secret };
  }

  /** Disables an enabled endpoint (410 from it, or failing for too long); idempotent. */
  async disable(accountId: string, endpointId: string, reason: DisableReason): Promise<void> {
    await handleCommand(this.events, this.stream(accountId), endpointsDecider, { type: 'DisableEndpoint', data: { endpoint_id: endpointId, reason }, metadata: { now: this.clock.now() } });
  }

  /** The account's endpoints as stored (for the delivery side), optionally as of before `position`. */
  async load(accountId: string, before?: bigint): Promise<EndpointsState> {
    if (before === undefined) return (await loadAggregate(this.events, this.stream(accountId), endpointsDecider)).state;
    const recorded = await this.events.readStream(this.stream(accountId));
    let state = endpointsDecider.initialState();
    for (const r of recorded) {
      if (r.position >= before) break;
      state = endpointsDecider.evolve(state, { type: r.type, data: r.data } as never);
    }
    return state;
  }

  /** The plain secrets of `sealed` values (newest first). */
  openSecrets(sealed: readonly string[]): string[] {
    return sealed.map((s) => this.box.open(s));
  }

  private stream(accountId: string): string {
    return streamName(WEBHOOKS_STREAM, accountId);
  }

  private endpointOf(state: EndpointsState, endpointId: string): Endpoint {
    const e = state.status === 'active' ? state.endpoints[endpointId] : undefined;
    if (!e) throw new Error(`endpoint ${endpointId} missing after its command`);
    return e;
  }

  private async owned(accountId: string, endpointId: string): Promise<Endpoint> {
    const state = isEndpointId(endpointId) ? await this.load(accountId) : null;
    const e = state?.status === 'active' ? state.endpoints[endpointId] : undefined;
    if (!e || e.status === 'deleted') throw new AppError('NOT_FOUND', `webhook endpoint ${endpointId} not found`);
    return e;
  }

  private view(e: Endpoint): EndpointView {
    return { id: e.id, url: e.url, events: [...e.events], description: e.description, status: e.status === 'disabled' ? 'disabled' : 'enabled', created_at: e.createdAt };
  }
}
