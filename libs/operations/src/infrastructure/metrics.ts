import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { EventStore, SubscriptionEngine } from '@gensvc/event-sourcing';

/** Most events counted per scrape for a lag or backlog gauge; the gauge shows at least this many then. */
export const LAG_COUNT_CAP = 10_000;

/** Counts events after `position`, reading at most `cap` (stores' positions need not be dense). */
export async function countEventsAfter(events: EventStore, position: bigint, cap = LAG_COUNT_CAP): Promise<number> {
  if ((await events.headPosition()) <= position) return 0;
  let n = 0;
  let after = position;
  while (n < cap) {
    const batch = await events.readAll({ after, maxCount: Math.min(1000, cap - n) });
    n += batch.length;
    if (batch.length === 0) break;
    after = batch[batch.length - 1].position;
  }
  return n;
}

/**
 * The service's Prometheus metrics, served on the admin port (`GET /metrics`). Other
 * contexts may inject it (it is exported by the global OperationsModule), e.g. the uploads
 * code wraps each receive in `const done = metrics.trackUpload(); try { ... } finally { done(); }`.
 */
@Injectable()
export class Metrics implements OnModuleInit {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'gensvc_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly requestSeconds = new Histogram({
    name: 'gensvc_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route pattern and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  private readonly appendSeconds = new Histogram({
    name: 'gensvc_event_store_append_duration_seconds',
    help: 'Latency of event store appends (one atomic append of one or more events)',
    labelNames: ['outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });

  private readonly uploads = new Gauge({
    name: 'gensvc_uploads_in_flight',
    help: 'File uploads whose bytes are being received right now',
    registers: [this.registry],
  });

  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    private readonly engine: SubscriptionEngine,
  ) {}

  onModuleInit(): void {
    const { events, engine } = this;
    new Gauge({
      name: 'gensvc_projection_lag_events',
      help: `Events stored but not yet applied by every projection (counted up to ${LAG_COUNT_CAP})`,
      registers: [this.registry],
      async collect() {
        this.set(engine.health().started ? await countEventsAfter(events, engine.projectedPosition()) : await countEventsAfter(events, -1n));
      },
    });
    new Gauge({
      name: 'gensvc_reactor_backlog_events',
      help: `Events a saga or reactor has not yet handled (counted up to ${LAG_COUNT_CAP}), by reactor`,
      labelNames: ['reactor'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [name, position] of await engine.reactorPositions()) this.set({ reactor: name }, await countEventsAfter(events, position));
      },
    });
    new Gauge({
      name: 'gensvc_event_store_head_position',
      help: 'Global position of the newest stored event',
      registers: [this.registry],
      async collect() {
        this.set(Number(await events.headPosition()));
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'gensvc_' });
  }

  /** Records one answered HTTP request. `route` is the route pattern (`/v1/tasks/:id`), never the raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.requestSeconds.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, seconds);
  }

  observeAppend(seconds: number, ok: boolean): void {
    this.appendSeconds.observe({ outcome: ok ? 'ok' : 'error' }, seconds);
  }

  /** Marks one upload as receiving; call the returned function once when it ends (idempotent). */
  trackUpload(): () => void {
    this.uploads.inc();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.uploads.dec();
    };
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
