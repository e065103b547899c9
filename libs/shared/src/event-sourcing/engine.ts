import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { RequestContexts } from '../request-context';
import { ReadStore } from '../read-store/read-store.port';
import type { RecordedEvent } from './event';
import { CheckpointStore, EventStore } from './event-store.port';
import { targetOf, type Projection } from './projection';
import type { Reactor } from './reactor';

/** Class decorator: the provider is a projection (implements `Projection`). */
export const AsProjection = DiscoveryService.createDecorator();
/** Class decorator: the provider is a reactor (implements `Reactor`). */
export const AsReactor = DiscoveryService.createDecorator();

const CHECKPOINTS = 'projection_checkpoints';
const BATCH = 500;
const POLL_MS = 200;

interface Loop {
  stop(): Promise<void>;
}

/**
 * Runs projections and reactors from the event store: the only way events reach read
 * models and sagas. Each subscription keeps a checkpoint and polls the store (woken early
 * by appends of this process), so events written by other processes arrive too.
 */
@Injectable()
export class SubscriptionEngine implements OnApplicationShutdown {
  private readonly logger = new Logger('Subscriptions');
  private projections: Projection[] = [];
  private reactors: Reactor[] = [];
  private readonly loops: Loop[] = [];
  /** Position every projection has applied. */
  private projected = -1n;
  private readonly waiters = new Set<{ position: bigint; resolve: () => void }>();
  private started = false;
  private lastError: string | undefined;

  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly checkpoints: CheckpointStore,
    private readonly discovery: DiscoveryService,
  ) {}

  /** Discovers the projections and reactors of the composed modules. */
  discover(): void {
    const providers = (decorator: typeof AsProjection) =>
      this.discovery.getProviders({ metadataKey: decorator.KEY }).map((w) => w.instance).filter(Boolean);
    this.projections = providers(AsProjection) as Projection[];
    this.reactors = providers(AsReactor) as Reactor[];
    const names = [...this.projections, ...this.reactors].map((p) => p.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new Error(`two subscriptions are named ${dup}`);
  }

  listProjections(): readonly Projection[] {
    return this.projections;
  }

  /** Starts the projection loop and one loop per reactor. Resolves once projections caught up. */
  async start(options: { reactors?: boolean } = {}): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (!this.projections.length && !this.reactors.length) this.discover();
    const target = targetOf(this.readStore);
    for (const p of this.projections) await p.setup?.(target);
    const caughtUp = new Promise<void>((resolve) => {
      this.loops.push(this.projectionLoop(resolve));
    });
    await caughtUp;
    if (options.reactors !== false) for (const r of this.reactors) this.loops.push(this.reactorLoop(r));
  }

  /** Resolves when every projection has applied `position` (read-your-writes for commands). */
  async waitFor(position: bigint | undefined, timeoutMs = 5000): Promise<void> {
    if (position === undefined || !this.started || this.projected >= position) return;
    await new Promise<void>((resolve) => {
      const w = {
        position,
        resolve: () => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.resolve, timeoutMs);
      this.waiters.add(w);
    });
  }

  /** Position the projections have applied (-1n before any). */
  projectedPosition(): bigint {
    return this.projected;
  }

  health(): { started: boolean; projected: bigint; lastError?: string } {
    return { started: this.started, projected: this.projected, lastError: this.lastError };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.splice(0).map((l) => l.stop()));
    this.started = false;
  }

  private async loadProjectionCheckpoint(name: string): Promise<bigint> {
    const doc = await this.readStore.collection<{ _id: string; position: string }>(CHECKPOINTS).findOne({ _id: name });
    return doc ? BigInt(doc.position) : -1n;
  }

  private projectionLoop(onCaughtUp: () => void): Loop {
    const target = targetOf(this.readStore);
    const positions = new Map<string, bigint>();
    return this.loop('projections', async () => {
      if (positions.size === 0) {
        for (const p of this.projections) positions.set(p.name, await this.loadProjectionCheckpoint(p.name));
        this.projected = this.projections.length ? [...positions.values()].reduce((a, b) => (a < b ? a : b)) : await this.events.headPosition();
      }
      if (!this.projections.length) {
        this.projected = await this.events.headPosition();
        this.release();
        onCaughtUp();
        return false;
      }
      const batch = await this.events.readAll({ after: this.projected, maxCount: BATCH });
      for (const event of batch) {
        for (const p of this.projections) {
          if ((positions.get(p.name) ?? -1n) >= event.position) continue;
          if (p.handles.includes(event.type)) await p.apply(event, target);
          positions.set(p.name, event.position);
        }
        this.projected = event.position;
      }
      if (batch.length) {
        const cps = this.readStore.collection(CHECKPOINTS);
        for (const p of this.projections) {
          await cps.replaceOne({ _id: p.name }, { _id: p.name, position: String(positions.get(p.name)) }, { upsert: true });
        }
        this.release();
      }
      if (batch.length < BATCH) {
        this.release();
        onCaughtUp();
      }
      return batch.length === BATCH;
    });
  }

  private reactorLoop(reactor: Reactor): Loop {
    let position: bigint | undefined;
    return this.loop(`reactor ${reactor.name}`, async () => {
      position ??= (await this.checkpoints.load(`reactor:${reactor.name}`)) ?? -1n;
      const batch = await this.events.readAll({ after: position, maxCount: 100 });
      for (const event of batch) {
        if (reactor.handles.includes(event.type)) await this.deliver(reactor, event);
        position = event.position;
        await this.checkpoints.store(`reactor:${reactor.name}`, position);
      }
      return batch.length === 100;
    });
  }

  private deliver(reactor: Reactor, event: RecordedEvent): Promise<void> {
    return RequestContexts.run(
      { requestId: event.metadata.correlationId ?? event.id, causationId: event.id, actor: `system:${reactor.name}` },
      () => reactor.handle(event),
    );
  }

  /**
   * Runs `step` until stopped: again at once while it reports more work, otherwise on the
   * next append of this process or after the poll interval. Failures back off and retry.
   */
  private loop(name: string, step: () => Promise<boolean>): Loop {
    let stopped = false;
    let wake: (() => void) | undefined;
    const unsubscribe = this.events.onAppended(() => wake?.());
    let failures = 0;
    const done = (async () => {
      while (!stopped) {
        let more = false;
        try {
          more = await step();
          failures = 0;
        } catch (err) {
          failures++;
          this.lastError = `${name}: ${(err as Error).message}`;
          this.logger.error({ err, subscription: name, failures }, 'subscription step failed; retrying');
        }
        if (stopped) break;
        if (more) continue;
        const delay = failures ? Math.min(100 * 2 ** failures, 10_000) : POLL_MS;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delay);
          wake = failures
            ? undefined
            : () => {
                clearTimeout(t);
                resolve();
              };
        });
        wake = undefined;
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        wake?.();
        unsubscribe();
        await done;
      },
    };
  }

  private release(): void {
    for (const w of [...this.waiters]) if (this.projected >= w.position) w.resolve();
  }
}
