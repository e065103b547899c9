import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, runsBackgroundWork } from '@gensvc/config';
import { Clock, isoTime, streamName } from '@gensvc/kernel';
import { EventStore, KeyedLock, KeyedTimers, ReadStore, RequestContexts, SubscriptionEngine, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { DELIVERY_STREAM, deliveryDecider, isOpen, type DeliveryCommand, type DeliveryState } from '../../domain/delivery';
import { failingTooLong, signingSecrets } from '../../domain/endpoints';
import { signatureHeader } from '../../domain/signature';
import { WebhookSender, type WebhookResponse } from '../../infrastructure/webhook-sender';
import { NotificationSettings } from '../../notification-settings';
import { WEBHOOK_ENDPOINTS, type EndpointDoc } from '../endpoints/endpoints.projection';
import { EndpointsService } from '../endpoints/endpoints.service';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from './deliveries.projection';
import { DeliveryMetrics, type AttemptOutcome } from './delivery-metrics';
import { Limiter } from './limiter';

/** Longest sleep before a waiting delivery is looked at again (bounds the effect of wall-clock steps). */
const MAX_SLEEP_MS = 60_000;
/** An attempt's claim lasts its time limit plus this margin; after that another process may take it over. */
const LEASE_MARGIN_MS = 5_000;

type Known = Exclude<DeliveryState, { status: 'none' }>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Sends webhook deliveries: a scheduler over the delivery streams. When a delivery is due it
 * re-reads the stream, claims the attempt (`WebhookDeliveryAttemptStarted`, optimistic
 * concurrency, so two processes never both attempt), signs the stored body for this attempt,
 * sends it and records the outcome with the next due time. Nothing lives only in memory: after
 * a crash the open deliveries are found in the `webhook_deliveries` read model and an attempt
 * whose claim expired is made again (at least once, with the same webhook-id).
 *
 * Runs only in processes whose role runs background work (`all`, `worker`; CONTRACT §13), like
 * the supplier jobs: an `api` process records retry requests but never sends; a worker's
 * dispatch reactor picks them up from the store.
 */
@Injectable()
export class DeliveryRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly timers = new KeyedTimers((id) => void this.exclusive(id, () => this.step(id)), MAX_SLEEP_MS);
  private readonly chains = new KeyedLock();
  private readonly failures = new Map<string, number>();
  private readonly abort = new AbortController();
  private readonly limiter: Limiter;
  private bootTimer: NodeJS.Timeout | undefined;
  private stopWatchingClock: (() => void) | undefined;
  private resumed = false;
  private stopped = false;

  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly clock: Clock,
    private readonly endpoints: EndpointsService,
    private readonly sender: WebhookSender,
    private readonly settings: NotificationSettings,
    private readonly metrics: DeliveryMetrics,
    private readonly config: AppConfig,
  ) {
    this.limiter = new Limiter(
      () => settings.concurrency,
      () => settings.concurrencyPerEndpoint,
    );
  }

  onApplicationBootstrap(): void {
    if (!runsBackgroundWork(this.config.processRole)) return;
    const tick = async () => {
      this.bootTimer = undefined;
      if (this.stopped) return;
      try {
        if (this.active && this.engine.projectedPosition() >= (await this.events.headPosition())) {
          await this.resumeAll();
          return;
        }
      } catch (err) {
        this.logger.error({ err }, 'resuming webhook deliveries failed; retrying');
      }
      this.bootTimer = setTimeout(tick, 100);
      this.bootTimer.unref();
    };
    this.bootTimer = setTimeout(tick, 0);
    this.bootTimer.unref();
    this.stopWatchingClock = this.clock.onJump(() => this.timers.fireAllNow());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.stopWatchingClock?.();
    if (this.bootTimer) clearTimeout(this.bootTimer);
    this.timers.clear();
    this.abort.abort();
    await this.chains.idle(5000);
  }

  /** Whether this process sends deliveries (its role runs background work and the subscriptions run here). */
  get active(): boolean {
    return !this.stopped && runsBackgroundWork(this.config.processRole) && this.engine.health().started;
  }

  /** Looks at the delivery after `delayMs` (default now), or earlier if already due earlier. */
  schedule(deliveryId: string, delayMs = 0): void {
    if (this.active) this.timers.schedule(deliveryId, delayMs);
  }

  /** Looks at every open delivery of an endpoint now (after it was disabled or deleted). */
  async scheduleEndpoint(endpointId: string): Promise<void> {
    const open = await this.readStore
      .collection<DeliveryDoc & { _id: string }>(WEBHOOK_DELIVERIES)
      .find({ endpoint_id: endpointId, state: { $in: ['pending', 'attempting', 'retrying'] } });
    for (const d of open) this.schedule(d.id, 0);
  }

  /** Work in flight (tests and the benchmark wait for it to drain). */
  get busy(): number {
    return this.timers.size + this.chains.size;
  }

  private exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    return this.chains.run(id, fn);
  }

  private async resumeAll(): Promise<void> {
    if (this.resumed) return;
    this.resumed = true;
    const open = await this.readStore.collection<DeliveryDoc & { _id: string }>(WEBHOOK_DELIVERIES).find({ state: { $in: ['pending', 'attempting', 'retrying'] } });
    if (open.length) this.logger.log(`resuming ${open.length} open webhook deliveries`);
    const now = this.clock.now().getTime();
    for (const d of open) this.schedule(d.id, d.next_attempt_at ? Date.parse(d.next_attempt_at) - now : 0);
  }

  private load(id: string): Promise<{ state: DeliveryState }> {
    return loadAggregate(this.events, streamName(DELIVERY_STREAM, id), deliveryDecider);
  }

  private record(id: string, command: DistributiveOmit<DeliveryCommand, 'metadata'>) {
    return handleCommand(this.events, streamName(DELIVERY_STREAM, id), deliveryDecider, { ...command, metadata: { now: this.clock.now() } } as DeliveryCommand);
  }

  /** Schedules the next look at a delivery from its state; forgets it once closed. */
  private follow(id: string, state: DeliveryState): void {
    if (state.status === 'none' || !isOpen(state)) {
      this.failures.delete(id);
      return;
    }
    const now = this.clock.now().getTime();
    const due = state.status === 'attempting' ? state.leaseUntil : state.nextAttemptAt;
    this.schedule(id, due ? Date.parse(due) - now : 0);
  }

  private async step(id: string): Promise<void> {
    if (this.stopped) return;
    await RequestContexts.run({ requestId: `webhook_${id}`, actor: 'system:notifications' }, async () => {
      try {
        await this.attempt(id);
        this.failures.delete(id);
      } catch (err) {
        if (this.stopped) return;
        const n = (this.failures.get(id) ?? 0) + 1;
        this.failures.set(id, n);
        this.logger.error({ err, deliveryId: id, failures: n }, 'webhook delivery step failed; retrying');
        this.schedule(id, Math.min(200 * 2 ** n, 30_000));
      }
    });
  }

  private async attempt(id: string): Promise<void> {
    const { state } = await this.load(id);
    if (state.status === 'none' || !isOpen(state)) return this.follow(id, state);
    const nowIso = isoTime(this.clock.now());
    const due = state.status === 'attempting' ? state.leaseUntil : state.nextAttemptAt;
    if (due && due > nowIso) return this.follow(id, state);
    const delivery: Known = state;
    const endpoints = await this.endpoints.load(delivery.accountId);
    const endpoint = endpoints.status === 'active' ? endpoints.endpoints[delivery.endpointId] : undefined;
    if (!endpoint || endpoint.status !== 'enabled') {
      const reason = !endpoint || endpoint.status === 'deleted' ? 'the endpoint was deleted' : 'the endpoint is disabled';
      return this.follow(id, (await this.record(id, { type: 'AbandonDelivery', data: { reason } })).state);
    }
    const release = await this.limiter.acquire(delivery.endpointId);
    const untrack = this.metrics.track();
    try {
      if (this.stopped) return;
      const claim = await this.record(id, { type: 'StartAttempt', data: { lease_ms: this.settings.attemptTimeoutMs + LEASE_MARGIN_MS } });
      if (!claim.events.some((e) => e.type === 'WebhookDeliveryAttemptStarted')) return this.follow(id, claim.state);
      if (claim.events.some((e) => e.type === 'WebhookDeliveryAttemptFailed')) this.metrics.attempt('interrupted');
      const now = this.clock.now();
      let secrets: string[] | null = null;
      try {
        secrets = this.endpoints.openSecrets(signingSecrets(endpoint, isoTime(now)).map((s) => s.sealed));
      } catch (err) {
        this.logger.error({ err, endpointId: endpoint.id }, 'a webhook endpoint secret cannot be opened with the configured key');
      }
      const timestamp = Math.floor(now.getTime() / 1000);
      const response: WebhookResponse = secrets
        ? await this.sender.send(
            { url: endpoint.url, messageId: delivery.messageId, timestamp, signature: signatureHeader(secrets, delivery.messageId, timestamp, delivery.body), body: delivery.body },
            this.abort.signal,
          )
        : { statusCode: null, durationMs: 0, error: 'secret_unreadable', kind: 'network_error', detail: 'the signing secret cannot be read with the configured key (WEBHOOK_SECRET_KEY changed?); rotate the secret' };
      if (this.stopped && response.statusCode === null && secrets) {
        // Cut off by the shutdown: attempt again at once after the restart.
        await this.record(id, { type: 'ReleaseAttempt', data: {} });
        return;
      }
      const code = response.statusCode;
      const delivered = code !== null && code >= 200 && code < 300;
      // The delivery records the short code only; the cause in words goes to the service's log.
      if (!delivered) this.logger.log({ deliveryId: id, endpointId: delivery.endpointId, error: response.error, detail: response.detail }, 'webhook attempt failed');
      const gone = code === 410;
      if (gone) {
        // Disabled before the attempt is recorded, so whoever sees the failed delivery sees the endpoint disabled.
        await this.endpoints.disable(delivery.accountId, delivery.endpointId, 'gone');
        this.logger.warn({ endpointId: delivery.endpointId }, 'webhook endpoint answered 410 Gone; disabled');
      }
      const recorded = await this.record(id, { type: 'RecordAttempt', data: { outcome: delivered ? 'delivered' : gone ? 'final' : 'retry', status_code: code, duration_ms: response.durationMs, error: response.error, schedule: this.settings.retrySchedule, jitter: this.settings.jitter, random: Math.random() } });
      this.metrics.attempt(outcomeOf(response.kind, code));
      if (delivered) this.metrics.delivered((this.clock.now().getTime() - Date.parse(delivery.createdAt)) / 1000);
      if (!delivered && !gone) await this.disableIfFailingTooLong(delivery);
      this.follow(id, recorded.state);
    } finally {
      untrack();
      release();
    }
  }

  /** Disables an endpoint whose every attempt failed for `disableAfterMs` (5 days). */
  private async disableIfFailingTooLong(delivery: Known): Promise<void> {
    const doc = await this.readStore.collection<EndpointDoc & { _id: string }>(WEBHOOK_ENDPOINTS).findOne({ _id: delivery.endpointId });
    if (!doc || doc.status !== 'enabled' || !failingTooLong(doc.failing_since, this.clock.now(), this.settings.disableAfterMs)) return;
    await this.endpoints.disable(delivery.accountId, delivery.endpointId, 'failing');
    this.logger.warn({ endpointId: delivery.endpointId, failingSince: doc.failing_since }, 'webhook endpoint failed every attempt for too long; disabled');
  }
}

function outcomeOf(kind: string, code: number | null): AttemptOutcome {
  if (kind === 'answered') return code !== null && code >= 200 && code < 300 ? 'delivered' : code === 410 ? 'gone' : 'http_error';
  return kind === 'refused_address' ? 'refused_address' : kind === 'timeout' ? 'timeout' : 'network_error';
}
