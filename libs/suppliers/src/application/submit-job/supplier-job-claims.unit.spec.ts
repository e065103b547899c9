import { type ConsumerGroups, type ConsumeOptions, type ConsumerGroupSpec, type GroupMessage, type LeaseStore } from '@gensvc/event-sourcing';
import { ReadStoreLeaseStore } from '@gensvc/storage';
import { InMemoryReadStore } from '@gensvc/event-sourcing/testing/in-memory-read-store';
import { SupplierSettings } from '../../supplier-settings';
import { GroupJobClaims, LeaseJobClaims, SUPPLIER_JOB_GROUP, supplierJobClaims } from './supplier-job-claims';

const settings = () =>
  new SupplierSettings({ jobDeadlineMs: 600_000, callbackWindowSeconds: 300, channels: new Map(), publicBaseUrl: 'http://127.0.0.1:3000', signingSecret: 's'.repeat(40), jobLeaseMs: 30_000 });

/** Consumer groups that record what the claims ask and let the test deliver messages. */
class RecordingGroups implements ConsumerGroups {
  readonly ensured: ConsumerGroupSpec[] = [];
  consumer: ConsumeOptions | undefined;
  closed = 0;
  async ensure(spec: ConsumerGroupSpec) {
    this.ensured.push(spec);
  }
  consume(_group: string, options: ConsumeOptions) {
    this.consumer = options;
    return { close: async () => void this.closed++ };
  }
  async close() {}
}

function message(data: unknown, retryCount = 0) {
  const m = { eventId: 'e1', type: 'SupplierJobQueued', streamName: 'supplierjob-x', data, retryCount, acks: 0, nacks: [] as string[] };
  return Object.assign(m, {
    ack: async () => void m.acks++,
    nack: async (action: 'retry' | 'park') => void m.nacks.push(action),
  }) as GroupMessage & typeof m;
}

describe('supplier job claims', () => {
  const leases = () => new ReadStoreLeaseStore(new InMemoryReadStore());

  it('are a persistent subscription when the event store offers consumer groups (EventStoreDB), leases otherwise', () => {
    expect(supplierJobClaims(new RecordingGroups(), leases(), settings())).toBeInstanceOf(GroupJobClaims);
    expect(supplierJobClaims(null, leases(), settings())).toBeInstanceOf(LeaseJobClaims);
  });

  describe('as leases', () => {
    it('claim a free job, tell another process when to look again, and free it when finished', async () => {
      const store = leases();
      const [a, b] = [new LeaseJobClaims(store, settings()), new LeaseJobClaims(store, settings())];
      expect(await a.claim('task_1')).toBe(true);
      const other = await b.claim('task_1');
      expect(other).toEqual({ retryInMs: expect.any(Number) });
      expect((other as { retryInMs: number }).retryInMs).toBeGreaterThan(29_000);
      await a.finished('task_1');
      expect(await b.claim('task_1')).toBe(true);
      await Promise.all([a.stop(), b.stop()]);
    });

    it('renew every held claim in slices, with the event loop free between them, and let go of a claim another took', async () => {
      const store = leases();
      const calls: number[] = [];
      const events: string[] = [];
      const recording = Object.assign(Object.create(store) as LeaseStore, {
        renew: (keys: readonly string[], owner: string, ttlMs: number) => {
          calls.push(keys.length);
          events.push(`renew ${keys.length}`);
          return store.renew(keys, owner, ttlMs);
        },
      });
      const a = new LeaseJobClaims(recording, settings());
      const b = new LeaseJobClaims(store, settings());
      const ids = Array.from({ length: 1_200 }, (_, i) => `task_${i}`);
      for (const id of ids) expect(await a.claim(id)).toBe(true);
      await store.release('supplier-job:task_7', (a as unknown as { owner: string }).owner); // as if it expired and
      expect(await b.claim('task_7')).toBe(true); // another worker took it
      const renewal = (a as unknown as { renew(): Promise<void> }).renew();
      setImmediate(() => events.push('other work'));
      await renewal;
      expect(calls).toEqual([500, 500, 200]);
      expect(events.indexOf('other work')).toBeGreaterThan(0);
      expect(events.indexOf('other work')).toBeLessThan(events.length - 1);
      expect((a as unknown as { held: Set<string> }).held.has('task_7')).toBe(false);
      expect((a as unknown as { held: Set<string> }).held.size).toBe(1_199);
      await Promise.all([a.stop(), b.stop()]);
    });
  });

  describe('as a persistent subscription', () => {
    it('ensures the group, holds delivered jobs until they finish, and acknowledges them then', async () => {
      const groups = new RecordingGroups();
      const claims = new GroupJobClaims(groups, settings());
      const offered: string[] = [];
      await claims.start({ offer: (id) => offered.push(id), giveUp: async () => undefined });
      expect(groups.ensured).toEqual([{ group: SUPPLIER_JOB_GROUP, eventTypes: ['SupplierJobQueued'], messageTimeoutMs: 660_000, maxRetryCount: 10 }]);
      expect(await claims.claim('task_1')).toBe(false);
      const m = message({ task_id: 'task_1' });
      groups.consumer!.onMessage(m);
      expect(offered).toEqual(['task_1']);
      expect(await claims.claim('task_1')).toBe(true);
      await claims.finished('task_1');
      expect(m.acks).toBe(1);
      expect(await claims.claim('task_1')).toBe(false);
    });

    it('parks a message without a task id, gives up a job on its last delivery, forgets its jobs when the connection drops', async () => {
      const groups = new RecordingGroups();
      const claims = new GroupJobClaims(groups, settings());
      const offered: string[] = [];
      const givenUp: [string, number][] = [];
      await claims.start({ offer: (id) => offered.push(id), giveUp: async (id, n) => void givenUp.push([id, n]) });
      const broken = message({});
      groups.consumer!.onMessage(broken);
      expect(broken.nacks).toEqual(['park']);
      groups.consumer!.onMessage(message({ task_id: 'task_2' }, 10));
      expect(givenUp).toEqual([['task_2', 11]]);
      expect(offered).toEqual([]);
      groups.consumer!.onMessage(message({ task_id: 'task_3' }, 3));
      expect(offered).toEqual(['task_3']);
      groups.consumer!.onDropped(new Error('connection lost'));
      expect(await claims.claim('task_3')).toBe(false);
    });

    it('hands every held job back at a stop', async () => {
      const groups = new RecordingGroups();
      const claims = new GroupJobClaims(groups, settings());
      await claims.start({ offer: () => undefined, giveUp: async () => undefined });
      const held = [message({ task_id: 'task_4' }), message({ task_id: 'task_5' })];
      for (const m of held) groups.consumer!.onMessage(m);
      await claims.stop();
      expect(held.map((m) => m.nacks)).toEqual([['retry'], ['retry']]);
      expect(groups.closed).toBe(1);
    });
  });
});
