import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { AppConfig, runsBackgroundWork } from '@gensvc/config';
import { LeaseStore, ReadStore, type Collection } from '@gensvc/event-sourcing';
import { ProviderChannels } from './provider-channels';

/** The last probe of one (channel, provider model): shared by every process through the read store. */
export interface RouteProbeDoc {
  _id: string;
  channel: string;
  supplier_model: string;
  ok: boolean;
  /** `http_<status>`, `connect_failed`, `timeout`, … when it failed. */
  outcome: string;
  at: string;
  [key: string]: unknown;
}

export const ROUTE_PROBES = 'supplier_route_probes';

/** How often every process re-reads the probe results (a change shows within `probe_interval_s` + this). */
const WATCH_MS = 2_000;

const probeKey = (channel: string, supplierModel: string) => `${channel}|${supplierModel}`;

/**
 * Verified routes (CONTRACT §14): each (channel, provider model) of the catalogue's routes
 * is probed without spending money (an authenticated read the adapter names) at start and
 * every `probe_interval_s`; a 2xx passes, anything else fails. One process probes a route
 * per interval (a lease); results go to the read store, and every process (API-only ones
 * included) reads them every two seconds and tells the catalogue which routed models have
 * a passing route, which is what `available` shows. When the operator publishes another
 * catalogue version (`Catalogue.onChange`) the targets are read again: a new route is
 * probed at once, a route no longer in the catalogue is not probed any more.
 */
@Injectable()
export class RouteProber implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RouteProbes');
  private readonly owner = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private watcher: NodeJS.Timeout | undefined;
  private readonly probes: Collection<RouteProbeDoc>;
  /** Last result known here, by probe key. */
  private readonly known = new Map<string, RouteProbeDoc>();
  /** The probe loops running here, by probe key: a loop ends when its key leaves (or gets another loop). */
  private readonly loops = new Map<string, symbol>();
  private watching = false;
  private stopFollowing: (() => void) | undefined;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly channels: ProviderChannels,
    private readonly leases: LeaseStore,
    private readonly config: AppConfig,
    readStore: ReadStore,
  ) {
    this.probes = readStore.collection<RouteProbeDoc>(ROUTE_PROBES);
  }

  onApplicationBootstrap(): void {
    this.stopFollowing = this.catalogue.onChange(() => this.retarget());
    this.retarget();
  }

  /** Probes the routes of the catalogue version in service: loops for new ones, none for those gone; availability recomputed. */
  private retarget(): void {
    const targets = this.targets();
    const keys = new Set(targets.map((t) => probeKey(t.channel, t.supplierModel)));
    for (const key of [...this.loops.keys()]) if (!keys.has(key)) this.loops.delete(key);
    if (runsBackgroundWork(this.config.processRole)) {
      for (const t of targets) if (!this.loops.has(probeKey(t.channel, t.supplierModel))) this.loop(t.channel, t.supplierModel, t.capability);
    }
    // What is known already decides at once (a route a publish removed no longer counts).
    this.apply();
    if (!targets.length) return;
    if (this.watching) {
      void this.refresh();
      return;
    }
    this.watching = true;
    const watch = () => {
      this.watcher = setTimeout(() => void this.refresh().finally(watch), WATCH_MS);
      this.watcher.unref();
    };
    void this.refresh().finally(watch);
  }

  onApplicationShutdown(): void {
    this.stopFollowing?.();
    this.abort.abort();
    for (const t of this.timers) clearTimeout(t);
    if (this.watcher) clearTimeout(this.watcher);
    this.watcher = undefined;
  }

  /** The last probe of a route known in this process (for `admin channels`). */
  last(channel: string, supplierModel: string): RouteProbeDoc | undefined {
    return this.known.get(probeKey(channel, supplierModel));
  }

  /** Whether the route's last probe passed. */
  passed(channel: string, supplierModel: string): boolean {
    return this.known.get(probeKey(channel, supplierModel))?.ok === true;
  }

  /** Probes one route now (and records the result); true when it passed. */
  async probe(channel: string, supplierModel: string, capability: string): Promise<boolean> {
    const ch = this.channels.get(channel);
    if (!ch) return false;
    const outcome = await ch.probe(supplierModel, capability, this.abort.signal);
    const doc: RouteProbeDoc = { _id: probeKey(channel, supplierModel), channel, supplier_model: supplierModel, ok: outcome === 'ok', outcome, at: new Date().toISOString() };
    const before = this.known.get(doc._id);
    if (before?.ok !== doc.ok) this.logger[doc.ok ? 'log' : 'warn']({ channel, outcome }, `route probe of ${channel} ${doc.ok ? 'passed' : 'failed'}`);
    await this.probes.replaceOne({ _id: doc._id }, doc, { upsert: true });
    this.known.set(doc._id, doc);
    this.apply();
    return doc.ok;
  }

  /** Reads every process's results and updates the catalogue's availability. */
  async refresh(): Promise<void> {
    try {
      for (const doc of await this.probes.find({})) this.known.set(doc._id, doc);
      this.apply();
    } catch (err) {
      this.logger.warn({ err }, 'reading the route probes failed');
    }
  }

  private apply(): void {
    for (const m of this.catalogue.models()) {
      if (!m.routes) continue;
      this.catalogue.setVerified(m.id, m.routes.some((r) => this.channels.get(r.channel) !== undefined && this.passed(r.channel, r.supplier_model)));
    }
  }

  private targets(): { channel: string; supplierModel: string; capability: string }[] {
    const seen = new Map<string, { channel: string; supplierModel: string; capability: string }>();
    for (const m of this.catalogue.models()) {
      for (const r of m.routes ?? []) {
        if (!this.channels.get(r.channel)) continue;
        seen.set(probeKey(r.channel, r.supplier_model), { channel: r.channel, supplierModel: r.supplier_model, capability: m.capabilities[0] ?? '' });
      }
    }
    return [...seen.values()];
  }

  /** Probes a route now and every `probe_interval_s`, in one process at a time. */
  private loop(channel: string, supplierModel: string, capability: string): void {
    const intervalMs = (this.channels.get(channel)?.config.probeIntervalS ?? 300) * 1000;
    const key = probeKey(channel, supplierModel);
    const token = Symbol(key);
    this.loops.set(key, token);
    const run = async () => {
      if (this.abort.signal.aborted || this.loops.get(key) !== token) return;
      try {
        // One probe per route and interval across the processes: the lease lives a little less than the interval.
        if (await this.leases.acquire(`probe:${probeKey(channel, supplierModel)}`, this.owner, Math.max(500, intervalMs - 250))) {
          await this.probe(channel, supplierModel, capability);
        }
      } catch (err) {
        if (!this.abort.signal.aborted) this.logger.warn({ err, channel }, 'probing a route failed');
      }
      if (this.abort.signal.aborted) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        void run();
      }, intervalMs);
      t.unref();
      this.timers.add(t);
    };
    void run();
  }
}
