import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { ReadStore, type Collection } from '@gensvc/event-sourcing';
import { SUPPLIER_JOBS, type SupplierJobDoc } from '../job-list/supplier-jobs.projection';
import { ProviderChannels } from './provider-channels';
import { ROUTE_PROBES, type RouteProbeDoc } from './route-prober';

/** One process's counts for one channel, published every few seconds (so `admin channels` sees every process). */
interface ChannelStatsDoc {
  _id: string;
  channel: string;
  process: string;
  requests: Record<string, number>;
  recent_errors: Record<string, number>;
  budget_used_last_minute: number;
  latency_ms_sum: number;
  latency_count: number;
  updated_at: string;
  [key: string]: unknown;
}

export const CHANNEL_STATS = 'supplier_channel_stats';
const PUBLISH_MS = 5_000;
/** A process's counts older than this are of a process that stopped. */
const STALE_MS = 60_000;

/** What `admin channels` prints for one channel (CONTRACT §15). */
export interface ChannelReport {
  name: string;
  type: string;
  base_url: string;
  requests_per_minute: number | null;
  /** Requests sent in the last minute by every live process. */
  requests_last_minute: number;
  open_jobs: number;
  requests: Record<string, number>;
  recent_errors: Record<string, number>;
  mean_latency_ms: number | null;
  routes: { model: string; supplier_model: string; priority: number; last_probe: { at: string; ok: boolean; outcome: string } | null }[];
}

/**
 * The per-request metrics of the provider channels (their clients report every request
 * here): requests by channel, kind and outcome, and answer latency.
 */
@Injectable()
export class ChannelMetrics {
  readonly registry = new Registry();
  readonly requestsTotal = new Counter({
    name: 'gensvc_supplier_channel_requests_total',
    help: 'Requests to provider channels, by channel, kind (submit, status, result, cancel, probe) and outcome (ok, http_<status>, connect_failed, timeout, reset)',
    labelNames: ['channel', 'kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'gensvc_supplier_channel_request_seconds',
    help: 'Time to a provider channel answer, by channel',
    labelNames: ['channel'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  /** Counts one request (called by the channels' clients). */
  observe(channel: string, kind: string, outcome: string, seconds: number | null): void {
    this.requestsTotal.inc({ channel, kind, outcome });
    if (seconds !== null) this.latency.observe({ channel }, seconds);
  }
}

/**
 * Channel status for operators: each process publishes its per-channel counts to the read
 * store every five seconds; `report()` (the `admin channels` command) adds them up with the
 * open jobs of each channel and the routes' last probes. The same counts are Prometheus
 * metrics of the process (`gensvc_supplier_channel_*` on `/metrics`).
 */
@Injectable()
export class ChannelStatus implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChannelStatus');
  private readonly process = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly stats: Collection<ChannelStatsDoc>;
  private timer: NodeJS.Timeout | undefined;
  private metrics: Metric[] = [];

  constructor(
    private readonly providers: ProviderChannels,
    private readonly catalogue: Catalogue,
    private readonly readStore: ReadStore,
    private readonly requestMetrics: ChannelMetrics,
  ) {
    this.stats = readStore.collection<ChannelStatsDoc>(CHANNEL_STATS);
    this.defineMetrics();
  }

  onApplicationBootstrap(): void {
    if (!this.providers.all().length) return;
    const tick = () => {
      this.timer = setTimeout(() => void this.publish().finally(tick), PUBLISH_MS);
      this.timer.unref();
    };
    tick();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.publish();
  }

  /** Every metric of the channels (the app registers them in the service's registry). */
  all(): Metric[] {
    return this.metrics;
  }

  async report(): Promise<{ channels: ChannelReport[] }> {
    const since = new Date(Date.now() - STALE_MS).toISOString();
    const [stats, probes] = await Promise.all([this.stats.find({ updated_at: { $gte: since } }), this.readStore.collection<RouteProbeDoc>(ROUTE_PROBES).find({})]);
    const jobs = this.readStore.collection<SupplierJobDoc & { _id: string }>(SUPPLIER_JOBS);
    const channels: ChannelReport[] = [];
    for (const ch of this.providers.all()) {
      const mine = stats.filter((s) => s.channel === ch.name);
      const sum = (pick: (s: ChannelStatsDoc) => Record<string, number>) => {
        const out: Record<string, number> = {};
        for (const s of mine) for (const [k, v] of Object.entries(pick(s))) out[k] = (out[k] ?? 0) + v;
        return out;
      };
      const latencySum = mine.reduce((a, s) => a + s.latency_ms_sum, 0);
      const latencyCount = mine.reduce((a, s) => a + s.latency_count, 0);
      const routes = this.catalogue.models().flatMap((m) =>
        (m.routes ?? [])
          .filter((r) => r.channel === ch.name)
          .map((r) => {
            const probe = probes.find((p) => p.channel === ch.name && p.supplier_model === r.supplier_model);
            return { model: m.id, supplier_model: r.supplier_model, priority: r.priority ?? 0, last_probe: probe ? { at: probe.at, ok: probe.ok, outcome: probe.outcome } : null };
          }),
      );
      channels.push({
        name: ch.name,
        type: ch.config.type,
        base_url: ch.config.baseUrl,
        requests_per_minute: ch.config.requestsPerMinute ?? null,
        requests_last_minute: mine.reduce((a, s) => a + s.budget_used_last_minute, 0),
        open_jobs: await jobs.count({ channel: ch.name, status: { $in: ['queued', 'dispatched'] } }),
        requests: sum((s) => s.requests),
        recent_errors: sum((s) => s.recent_errors),
        mean_latency_ms: latencyCount ? Math.round(latencySum / latencyCount) : null,
        routes,
      });
    }
    return { channels };
  }

  /** Writes this process's counts (skipped while it sent nothing, e.g. the admin CLI). */
  async publish(): Promise<void> {
    try {
      for (const ch of this.providers.all()) {
        const c = ch.client;
        if (!c.stats.latencyCount && !Object.keys(c.stats.requests).length) continue;
        const doc: ChannelStatsDoc = {
          _id: `${ch.name}|${this.process}`,
          channel: ch.name,
          process: this.process,
          requests: { ...c.stats.requests },
          recent_errors: c.recentErrors(),
          budget_used_last_minute: c.sentLastMinute(),
          latency_ms_sum: Math.round(c.stats.latencyMsSum),
          latency_count: c.stats.latencyCount,
          updated_at: new Date().toISOString(),
        };
        await this.stats.replaceOne({ _id: doc._id }, doc, { upsert: true });
      }
    } catch (err) {
      this.logger.warn({ err }, 'publishing the channel counts failed');
    }
  }

  private defineMetrics(): void {
    const registers = [this.requestMetrics.registry];
    const readStore = this.readStore;
    const providers = this.providers;
    const openJobs = new Gauge({
      name: 'gensvc_supplier_channel_open_jobs',
      help: 'Provider jobs queued or running, by channel',
      labelNames: ['channel'] as const,
      registers,
      async collect() {
        const jobs = readStore.collection<SupplierJobDoc & { _id: string }>(SUPPLIER_JOBS);
        for (const ch of providers.all()) this.set({ channel: ch.name }, await jobs.count({ channel: ch.name, status: { $in: ['queued', 'dispatched'] } }));
      },
    });
    const probe = new Gauge({
      name: 'gensvc_supplier_route_probe_ok',
      help: 'Whether the last probe of a route passed (1) or failed (0), by channel and catalogue model',
      labelNames: ['channel', 'model'] as const,
      registers,
      collect: async () => {
        const probes = await readStore.collection<RouteProbeDoc>(ROUTE_PROBES).find({});
        for (const m of this.catalogue.models()) {
          for (const r of m.routes ?? []) {
            const p = probes.find((x) => x.channel === r.channel && x.supplier_model === r.supplier_model);
            if (p) probe.set({ channel: r.channel, model: m.id }, p.ok ? 1 : 0);
          }
        }
      },
    });
    const budget = new Gauge({
      name: 'gensvc_supplier_channel_budget_used',
      help: "Requests this process sent in the last minute, by channel (the budget is requests_per_minute across the processes)",
      labelNames: ['channel'] as const,
      registers,
      collect() {
        for (const ch of providers.all()) this.set({ channel: ch.name }, ch.client.sentLastMinute());
      },
    });
    this.metrics = [this.requestMetrics.requestsTotal, this.requestMetrics.latency, openJobs, probe, budget];
  }
}
