import { EventStore, ReadStore, SubscriptionEngine, type Doc } from '@gensvc/event-sourcing';
import type { TestApp } from './test-app';

/** Every document of every projection's collections, sorted by id (read-model equality checks). */
export async function snapshotReadModels(t: TestApp, options: { except?: string[] } = {}): Promise<Record<string, Doc[]>> {
  const store = t.app.get(ReadStore);
  const out: Record<string, Doc[]> = {};
  for (const p of t.app.get(SubscriptionEngine).listProjections()) {
    if (options.except?.includes(p.name)) continue;
    for (const c of p.collections) {
      out[c] = (await store.collection(c).find({}, { sort: { _id: 1 } })).map((d) => ({ ...d }));
    }
  }
  return out;
}

/** Waits until nothing has been appended for `quietMs` and the projections applied everything. */
export async function waitForQuiet(t: TestApp, quietMs = 300, timeoutMs = 20_000): Promise<void> {
  const events = t.app.get(EventStore);
  const engine = t.app.get(SubscriptionEngine);
  const deadline = Date.now() + timeoutMs;
  let last = await events.headPosition();
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const head = await events.headPosition();
    if (head !== last) {
      last = head;
      since = Date.now();
    } else if (Date.now() - since >= quietMs && engine.projectedPosition() >= head) {
      return;
    }
  }
  throw new Error('the app did not become quiet');
}
