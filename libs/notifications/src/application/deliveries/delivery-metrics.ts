import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ReadStore } from '@gensvc/shared';
import { Metrics } from '@gensvc/operations';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from './deliveries.projection';

/** Outcome label of one attempt. */
export type AttemptOutcome = 'delivered' | 'http_error' | 'gone' | 'timeout' | 'network_error' | 'refused_address' | 'interrupted';

/**
 * Webhook metrics, registered in the service's registry (`GET /metrics` on the admin port)
 * when the operations module is composed: messages queued, attempts by outcome, delivery
 * latency (queued → delivered), the oldest open delivery and attempts in flight.
 */
@Injectable()
export class DeliveryMetrics implements OnModuleInit {
  private registry = new Registry();
  private queuedTotal!: Counter<'event_type'>;
  private attemptsTotal!: Counter<'outcome'>;
  private latency!: Histogram;
  private inFlight!: Gauge;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly readStore: ReadStore,
  ) {}

  onModuleInit(): void {
    try {
      this.registry = this.moduleRef.get(Metrics, { strict: false }).registry;
    } catch {
      // No operations module (a bare test module): the metrics stay in a registry of their own.
    }
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
    new Gauge({
      name: 'gensvc_webhook_oldest_pending_seconds',
      help: 'Age of the oldest webhook delivery neither delivered nor failed (0 when none)',
      registers,
      async collect() {
        const [oldest] = await readStore
          .collection<DeliveryDoc & { _id: string }>(WEBHOOK_DELIVERIES)
          .find({ state: { $in: ['pending', 'attempting', 'retrying'] } }, { sort: { created_at: 1 }, limit: 1 });
        this.set(oldest ? Math.max(0, (Date.now() - Date.parse(oldest.created_at)) / 1000) : 0);
      },
    });
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
