import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { ReadStore } from '@gensvc/event-sourcing';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from './deliveries.projection';

/** Outcome label of one attempt. */
export type AttemptOutcome = 'delivered' | 'http_error' | 'gone' | 'timeout' | 'network_error' | 'refused_address' | 'interrupted';

/**
 * Webhook metrics: messages queued, attempts by outcome, delivery latency (queued →
 * delivered), the oldest open delivery and attempts in flight. They live in a registry of
 * their own; the API app adds them to the service's (`GET /metrics` on the admin port).
 */
@Injectable()
export class DeliveryMetrics implements OnModuleInit {
  readonly registry = new Registry();
  private queuedTotal!: Counter<'event_type'>;
  private attemptsTotal!: Counter<'outcome'>;
  private latency!: Histogram;
  private inFlight!: Gauge;
  private metrics: Metric[] = [];

  constructor(private readonly readStore: ReadStore) {}

  onModuleInit(): void {
    const registers = [this.registry];
    this.queuedTotal = new Counter({ name: 'gensvc_webhook_messages_queued_total', help: 'Webhook deliveries queued (one per message and endpoint), by event type', labelNames: ['event_type'] as const, registers });
    this.attemptsTotal = new Counter({ name: 'gensvc_webhook_attempts_total', help: 'Webhook delivery attempts, by outcome', labelNames: ['outcome'] as const, registers });
    this.latency = new Histogram({
      name: 'gensvc_webhook_delivery_latency_seconds',
      help: 'Time from queuing a webhook delivery to its successful attempt',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 1800, 7200, 36000, 172800],
      registers,
    });
    this.inFlight = new Gauge({ name: 'gensvc_webhook_attempts_in_flight', help: 'Webhook attempts waiting for their receiver in this process', registers });
    const readStore = this.readStore;
    const oldest = new Gauge({
      name: 'gensvc_webhook_oldest_pending_seconds',
      help: 'Age of the oldest webhook delivery neither delivered nor failed (0 when none)',
      registers,
      async collect() {
        const [first] = await readStore
          .collection<DeliveryDoc & { _id: string }>(WEBHOOK_DELIVERIES)
          .find({ state: { $in: ['pending', 'attempting', 'retrying'] } }, { sort: { created_at: 1 }, limit: 1 });
        this.set(first ? Math.max(0, (Date.now() - Date.parse(first.created_at)) / 1000) : 0);
      },
    });
    this.metrics = [this.queuedTotal, this.attemptsTotal, this.latency, this.inFlight, oldest];
  }

  /** Every metric of this context (the app registers them in the service's registry). */
  all(): Metric[] {
    return this.metrics;
  }

  queued(eventType: string): void {
    this.queuedTotal?.inc({ event_type: eventType });
  }

  attempt(outcome: AttemptOutcome): void {
    this.attemptsTotal?.inc({ outcome });
  }

  delivered(seconds: number): void {
    this.latency?.observe(Math.max(0, seconds));
  }

  /** Counts an attempt in flight until the returned function is called. */
  track(): () => void {
    this.inFlight?.inc();
    let done = false;
    return () => {
      if (!done) this.inFlight?.dec();
      done = true;
    };
  }
}
