import { eventStoreContract } from '@gensvc/event-sourcing/testing/contracts/event-store.contract';
import { EsdbLogModel } from '@gensvc/event-sourcing/testing/esdb-log-model';
import { EsdbEventStore } from './esdb-event-store';

/*
 * The adapter's own logic (positions from commit positions, paging over $all, skipping
 * system events, error mapping) against an in-process model of EventStoreDB's log. This is
 * not a substitute for the server: event-store.contract.int.spec.ts runs the same contract
 * against EventStoreDB when EVENTSTORE_URL is set.
 */
eventStoreContract('EsdbEventStore logic on an in-process model of the EventStoreDB log', async () => {
  const log = new EsdbLogModel({ systemEventsEvery: 3 });
  return { fresh: false, open: async (schemas) => new EsdbEventStore(log.client(), schemas) };
});

describe('EsdbEventStore positions', () => {
  it('are strictly increasing and resumable inside multi-event appends, across system events', async () => {
    const log = new EsdbLogModel({ systemEventsEvery: 2 });
    const store = new EsdbEventStore(log.client());
    const results = [];
    for (let i = 0; i < 20; i++) {
      const n = 1 + (i % 4);
      results.push(await store.appendToStream(`s-${i % 3}`, Array.from({ length: n }, (_, k) => ({ type: 'E', data: { i, k } }))));
    }
    const all = await store.readAll({ maxCount: 10_000 });
    expect(all).toHaveLength(results.reduce((a, _, i) => a + 1 + (i % 4), 0));
    expect(all.every((e) => !e.type.startsWith('$'))).toBe(true);
    for (let i = 1; i < all.length; i++) expect(all[i].position).toBeGreaterThan(all[i - 1].position);
    // The position an append reports is its last event's.
    const lastOfAppend = new Set(results.map((r) => r.position));
    expect(all.filter((e) => lastOfAppend.has(e.position))).toHaveLength(results.length);
    // Resuming after every single position yields exactly the rest.
    for (let i = 0; i < all.length; i++) {
      const rest = await store.readAll({ after: all[i].position, maxCount: 3 });
      expect(rest.map((e) => e.id)).toEqual(all.slice(i + 1, i + 4).map((e) => e.id));
    }
    expect(await store.headPosition()).toBe(all[all.length - 1].position);
    for (const s of ['s-0', 's-1', 's-2']) {
      const fromStream = await store.readStream(s);
      expect(fromStream.map((e) => e.position)).toEqual(all.filter((e) => e.streamName === s).map((e) => e.position));
    }
    expect(Number.isSafeInteger(Number(all[all.length - 1].position))).toBe(true);
  });

  it('an empty log has head -1', async () => {
    const store = new EsdbEventStore(new EsdbLogModel().client());
    expect(await store.headPosition()).toBe(-1n);
    expect(await store.readAll()).toEqual([]);
  });
});
