import type { EventStore } from './event-store.port';

/** How long a subscription with nothing to do waits before it reads the store again (appends of this process wake it early). */
export const POLL_MS = 200;
/**
 * Checkpoints of projections and reactors are stored at most this often (and when the loop
 * stops): both are idempotent, so a crash only redelivers the events of the last interval.
 */
export const CHECKPOINT_EVERY_MS = 250;

/** A running subscription. */
export interface Loop {
  stop(): Promise<void>;
}

/**
 * Runs `step` until stopped: again at once while it reports more work, otherwise on the
 * next append of this process or after the poll interval. Failures back off and retry
 * (`onFailure` hears of each); `onStop` runs once the last step ended.
 */
export function subscriptionLoop(
  events: EventStore,
  step: () => Promise<boolean>,
  onFailure: (err: unknown, failures: number) => void,
  onStop?: () => Promise<void>,
): Loop {
  let stopped = false;
  let wake: (() => void) | undefined;
  const unsubscribe = events.onAppended(() => wake?.());
  let failures = 0;
  const done = (async () => {
    while (!stopped) {
      let more = false;
      try {
        more = await step();
        failures = 0;
      } catch (err) {
        failures++;
        onFailure(err, failures);
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
      await onStop?.();
    },
  };
}
