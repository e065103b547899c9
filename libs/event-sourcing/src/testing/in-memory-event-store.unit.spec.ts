import { ConcurrencyError, EventSchemas, FixedClock } from '@gensvc/kernel';
import { eventStoreContract } from './contracts/event-store.contract';
import { InMemoryCheckpointStore, InMemoryEventLog, InMemoryEventStore } from './in-memory-event-store';

/** Every store the suite opens shares one log, as connections share one SQLite file. */
eventStoreContract('in memory (stores sharing one log)', async () => {
  const log = new InMemoryEventLog();
  return { fresh: true, open: async (schemas) => new InMemoryEventStore({ schemas, log }) };
});

describe('InMemoryEventStore beyond the contract', () => {
  const ev = (type: string, id?: string) => ({ type, data: {}, ...(id ? { id } : {}) });

  it('checks expectedLastEventId and after, as a store with pipelined appends must', async () => {
    const store = new InMemoryEventStore();
    expect(store.pipelinedAppends).toBe(true);
    await store.appendToStream('s-1', [ev('A', 'e1')]);
    await expect(store.appendToStream('s-1', [ev('B')], { expectedLastEventId: 'other' })).rejects.toBeInstanceOf(ConcurrencyError);
    await store.appendToStream('s-1', [ev('B', 'e2')], { expectedLastEventId: 'e1' });
    await expect(store.appendToStream('s-2', [ev('C')], { after: ['e2', 'e9'] })).rejects.toBeInstanceOf(ConcurrencyError);
    await store.appendToStream('s-2', [ev('C')], { after: ['e1', 'e2'] });
    expect((await store.readAll()).map((e) => e.type)).toEqual(['A', 'B', 'C']);
  });

  it('refuses an event id that is stored already, storing nothing of that append', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('s-1', [ev('A', 'same')]);
    await expect(store.appendToStream('s-2', [ev('B'), ev('C', 'same')])).rejects.toThrow(/same/);
    expect(await store.readStream('s-2')).toEqual([]);
  });

  it('wakes only the listeners of the store that appended (another store on the log is like another process)', async () => {
    const log = new InMemoryEventLog();
    const [mine, theirs] = [new InMemoryEventStore({ log }), new InMemoryEventStore({ log })];
    const heard: string[] = [];
    mine.onAppended(() => heard.push('mine'));
    const theirsHeard = new Promise<void>((resolve) => theirs.onAppended(resolve));
    await theirs.appendToStream('s-1', [ev('A')]);
    await theirsHeard;
    expect(heard).toEqual([]);
    expect((await mine.readAll()).map((e) => e.type)).toEqual(['A']);
    const mineHeard = new Promise<void>((resolve) => mine.onAppended(resolve));
    await mine.appendToStream('s-1', [ev('B')]);
    await mineHeard;
    expect(heard).toEqual(['mine']);
  });

  it('stamps occurredAt from its clock unless the event brings one', async () => {
    const clock = new FixedClock(new Date('2026-03-01T10:00:00.000Z'));
    const store = new InMemoryEventStore({ clock, schemas: new EventSchemas() });
    await store.appendToStream('s-1', [ev('A'), { type: 'B', data: {}, metadata: { occurredAt: '2020-01-01T00:00:00.000Z' } }]);
    expect((await store.readStream('s-1')).map((e) => e.metadata.occurredAt)).toEqual(['2026-03-01T10:00:00.000Z', '2020-01-01T00:00:00.000Z']);
  });

  it('refuses every call once closed', async () => {
    const store = new InMemoryEventStore();
    await store.close();
    await expect(store.appendToStream('s-1', [ev('A')])).rejects.toThrow(/closed/);
    await expect(store.readAll()).rejects.toThrow(/closed/);
    await expect(store.ping()).rejects.toThrow(/closed/);
  });
});

describe('InMemoryCheckpointStore', () => {
  it('loads what was stored, and nothing for an unknown name', async () => {
    const checkpoints = new InMemoryCheckpointStore();
    expect(await checkpoints.load('reactor:x')).toBeUndefined();
    await checkpoints.store('reactor:x', 7n);
    await checkpoints.store('reactor:x', 9n);
    expect(await checkpoints.load('reactor:x')).toBe(9n);
  });
});
