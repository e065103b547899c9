import type { RecordedEvent } from '@gensvc/kernel';
import type { CheckpointStore, EventStore } from './event-store.port';
import type { LeaseStore } from './lease-store.port';
import type { Reactor } from './reactor';
import { RequestContexts } from './request-context';
import { CHECKPOINT_EVERY_MS, type Loop } from './subscription-loop';

/**
 * Time to live of the lease (`reactor:<name>`) by which one process at a time runs an
 * exclusive reactor; the holder renews it at least every third of it, and another process
 * takes the reactor over this long after the holder died.
 */
const REACTOR_LEASE_MS = 15_000;
/** How often a process that does not run an exclusive reactor looks whether it may. */
const REACTOR_LEASE_RETRY_MS = 1000;
/** Events a reactor reads at a time. */
const REACTOR_BATCH = 100;

/** The name of a reactor's checkpoint (and of its lease, when exclusive). */
export const reactorCheckpointName = (reactor: Reactor): string => `reactor:${reactor.name}`;

/** What a reactor's subscription works with (the engine's). */
export interface ReactorSubscriptionContext {
  readonly events: EventStore;
  readonly checkpoints: CheckpointStore;
  readonly leases: LeaseStore;
  /** Identifies this process in leases. */
  readonly instanceId: string;
  /** Runs a step until stopped (see `subscriptionLoop`). */
  loop(name: string, step: () => Promise<boolean>, onStop?: () => Promise<void>): Loop;
}

/**
 * One reactor's subscription. An exclusive reactor steps only while this process holds its
 * lease (`reactor:<name>`, renewed as it runs): one process across those sharing the stores
 * runs it. A process that takes it over (the holder stopped or died) reads the stored
 * checkpoint first, so it continues where the holder last stored (at least once, as after a
 * crash).
 */
export function reactorSubscription(reactor: Reactor, ctx: ReactorSubscriptionContext): Loop {
  const name = reactorCheckpointName(reactor);
  let position: bigint | undefined;
  let stored: bigint | undefined;
  let storedAt = 0;
  const store = async () => {
    if (position === undefined || position === stored) return;
    const at = position;
    storedAt = Date.now();
    await ctx.checkpoints.store(name, at);
    stored = at;
  };
  const leases = reactor.exclusive ? ctx.leases : undefined;
  let holdsUntil = 0;
  let nextTry = 0;
  /** Whether this process runs the exclusive reactor now (takes or renews its lease). */
  const mayRun = async (): Promise<boolean> => {
    if (!leases) return true;
    const now = Date.now();
    if (holdsUntil - now > (REACTOR_LEASE_MS * 2) / 3) return true;
    if (holdsUntil <= now && now < nextTry) return false;
    if (await leases.acquire(name, ctx.instanceId, REACTOR_LEASE_MS)) {
      if (holdsUntil <= now) position = stored = undefined; // taking over: read the stored checkpoint
      holdsUntil = now + REACTOR_LEASE_MS;
      return true;
    }
    holdsUntil = 0;
    nextTry = now + REACTOR_LEASE_RETRY_MS;
    return false;
  };
  return ctx.loop(
    `reactor ${reactor.name}`,
    async () => {
      if (!(await mayRun())) return false;
      if (position === undefined) stored = position = (await ctx.checkpoints.load(name)) ?? -1n;
      const batch = await ctx.events.readAll({ after: position, maxCount: REACTOR_BATCH });
      try {
        for (const event of batch) {
          if (reactor.handles.includes(event.type)) await deliver(reactor, event);
          position = event.position;
        }
      } finally {
        // A durable checkpoint at most every 250 ms (also when a handler failed part-way)
        // and when the loop stops: after a crash the events of the last interval are
        // delivered again, which idempotent handlers absorb.
        if (Date.now() - storedAt >= CHECKPOINT_EVERY_MS) await store();
      }
      return batch.length === REACTOR_BATCH;
    },
    async () => {
      await store();
      // Hand an exclusive reactor over at once instead of after the lease's time to live.
      if (leases && holdsUntil > Date.now()) await leases.release(name, ctx.instanceId).catch(() => undefined);
    },
  );
}

/** Delivers an event to a reactor in a request context of its own (correlated with the event). */
function deliver(reactor: Reactor, event: RecordedEvent): Promise<void> {
  return RequestContexts.run(
    { requestId: event.metadata.correlationId ?? event.id, causationId: event.id, actor: `system:${reactor.name}` },
    () => reactor.handle(event),
  );
}
