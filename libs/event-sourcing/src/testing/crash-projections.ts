import type { RecordedEvent } from '@gensvc/kernel';
import { documentProjection, type Projection, type ProjectionTarget } from '../projection';

/**
 * Projections for the crash and multi-process tests of the embedded read store: a counter that
 * is not idempotent by itself (`$inc` per event, so an event applied twice or lost shows) and a
 * document projection. With `stopAt`, the counter announces that it is inside the batch holding
 * that position (after writing for it) and never returns, so the process can be killed there.
 */
export function crashProjections(stopAt?: bigint, announce?: () => void): Projection[] {
  const counter: Projection = {
    name: 'crash.counter',
    collections: ['crash_counts'],
    handles: ['Tick'],
    async apply(event: RecordedEvent, target: ProjectionTarget) {
      const { key } = event.data as { key: string };
      await target.collection('crash_counts').updateOne({ _id: key }, { $inc: { n: 1 } }, { upsert: true });
      if (stopAt !== undefined && event.position === stopAt) {
        announce?.();
        await new Promise(() => undefined);
      }
    },
  };
  const last = documentProjection<{ value: number; seen: number }>({
    name: 'crash.last',
    collection: 'crash_last',
    handles: ['Tick'],
    documentId: (e) => (e.data as { key: string }).key,
    evolve: (doc, e) => ({ value: (e.data as { value: number }).value, seen: (doc?.seen ?? 0) + 1 }),
  });
  return [counter, last];
}
