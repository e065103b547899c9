import { randomUUID } from 'node:crypto';
import type { ConsumerGroups, ConsumerGroupSpec, GroupConsumer, GroupMessage } from '../../consumer-groups.port';
import type { EventStore } from '../../event-store.port';

export interface ConsumerGroupsFixture {
  /** The event store the groups read (appends go here). */
  readonly events: EventStore;
  /** Another handle on the same server, as another process holds it. */
  open(): Promise<ConsumerGroups>;
  /** Ends a handle's connections as a killed process would (without leaving the group); by default closes it. */
  kill?(groups: ConsumerGroups): Promise<void>;
  cleanup?(): Promise<void>;
}

async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One consumer that records what it was given and what happened to its connection. */
class Recorder {
  readonly messages: GroupMessage[] = [];
  readonly drops: Error[] = [];
  consumer!: GroupConsumer;
  constructor(groups: ConsumerGroups, group: string, inFlight = 50, readonly autoAck = false) {
    this.consumer = groups.consume(group, {
      inFlight,
      onMessage: (m) => {
        this.messages.push(m);
        if (this.autoAck) void m.ack();
      },
      onDropped: (err) => this.drops.push(err),
    });
  }
  ids(): string[] {
    return this.messages.map((m) => (m.data as { n: string }).n);
  }
}

/**
 * The consumer-groups contract (competing consumers with ack/nack and redelivery), for
 * EventStoreDB's persistent subscriptions and the in-process model of them. Group names and
 * event types are unique per run, so it also runs against a shared server.
 */
export function consumerGroupsContract(name: string, makeFixture: () => Promise<ConsumerGroupsFixture>): void {
  describe(`ConsumerGroups contract: ${name}`, () => {
    jest.setTimeout(60_000);
    let f: ConsumerGroupsFixture;
    let a: ConsumerGroups;
    let b: ConsumerGroups;
    const handles: ConsumerGroups[] = [];
    const run = `c${randomUUID().slice(0, 8)}`;
    let n = 0;
    const recorders: Recorder[] = [];

    /** A fresh group of a fresh event type. */
    const spec = (changes: Partial<ConsumerGroupSpec> = {}): ConsumerGroupSpec & { type: string } => {
      n++;
      return { group: `gensvc-contract-${run}-${n}`, eventTypes: [`Work${run}x${n}`], type: `Work${run}x${n}`, messageTimeoutMs: 30_000, maxRetryCount: 10, ...changes };
    };
    const append = async (type: string, ...ids: string[]) => {
      for (const id of ids) await f.events.appendToStream(`work-${run}-${id}`, [{ type, data: { n: id } }]);
    };
    const consumer = (groups: ConsumerGroups, group: string, inFlight?: number, autoAck?: boolean) => {
      const r = new Recorder(groups, group, inFlight, autoAck);
      recorders.push(r);
      return r;
    };
    const open = async () => {
      const h = await f.open();
      handles.push(h);
      return h;
    };

    beforeAll(async () => {
      f = await makeFixture();
      a = await open();
      b = await open();
    });

    afterEach(async () => {
      await Promise.allSettled(recorders.splice(0).map((r) => r.consumer.close()));
    });

    afterAll(async () => {
      await Promise.allSettled(handles.map((h) => h.close()));
      await f?.cleanup?.();
    });

    it('ensure creates a group once; calling it again unchanged leaves its consumers connected', async () => {
      const s = spec();
      await a.ensure(s);
      await Promise.all([a.ensure(s), b.ensure(s)]);
      const r = consumer(a, s.group, 50, true);
      await pause(300);
      await b.ensure(s);
      await append(s.type, '1', '2');
      await until('two messages', () => r.messages.length >= 2);
      expect(r.ids().sort()).toEqual(['1', '2']);
      expect(r.drops).toEqual([]);
    });

    it('ensure with other settings updates the group: its consumers are dropped and connect again', async () => {
      const s = spec();
      await a.ensure(s);
      const r = consumer(a, s.group, 50, true);
      await pause(300);
      await b.ensure({ ...s, messageTimeoutMs: 45_000 });
      await until('the drop', () => r.drops.length >= 1);
      await append(s.type, 'after');
      await until('a message after reconnecting', () => r.ids().includes('after'), 20_000);
    });

    it('delivers each event of the group’s types to one of the competing consumers, and no other types', async () => {
      const s = spec();
      await a.ensure(s);
      const one = consumer(a, s.group, 50, true);
      const two = consumer(b, s.group, 50, true);
      await pause(500);
      const ids = Array.from({ length: 20 }, (_, i) => `m${i}`);
      await append(s.type, ...ids);
      await append(`Other${run}`, 'x1', 'x2');
      await until('all twenty', () => one.messages.length + two.messages.length >= 20);
      await pause(500);
      const all = [...one.ids(), ...two.ids()];
      expect(all.sort()).toEqual([...ids].sort());
      expect(one.messages.length).toBeGreaterThan(0);
      expect(two.messages.length).toBeGreaterThan(0);
      expect([...one.messages, ...two.messages].every((m) => m.type === s.type && m.retryCount === 0 && m.streamName.startsWith(`work-${run}-`))).toBe(true);
    });

    it('gives a refused message again with a higher retry count; a parked one never again', async () => {
      const s = spec();
      await a.ensure(s);
      const r = consumer(a, s.group);
      await append(s.type, 'retry-me', 'park-me');
      await until('both', () => r.messages.length >= 2);
      await r.messages.find((m) => (m.data as { n: string }).n === 'retry-me')!.nack('retry', 'not now');
      await r.messages.find((m) => (m.data as { n: string }).n === 'park-me')!.nack('park', 'cannot be handled');
      await until('the retried one', () => r.messages.length >= 3);
      const again = r.messages[2];
      expect((again.data as { n: string }).n).toBe('retry-me');
      expect(again.retryCount).toBe(1);
      await again.ack();
      await pause(1500);
      expect(r.messages).toHaveLength(3);
    });

    it('parks a message refused more than maxRetryCount times', async () => {
      const s = spec({ maxRetryCount: 1 });
      await a.ensure(s);
      const r = consumer(a, s.group);
      await append(s.type, 'poison');
      await until('first delivery', () => r.messages.length >= 1);
      await r.messages[0].nack('retry', 'fails');
      await until('second delivery', () => r.messages.length >= 2);
      expect(r.messages[1].retryCount).toBe(1);
      await r.messages[1].nack('retry', 'fails again');
      await pause(1500);
      expect(r.messages).toHaveLength(2);
    });

    it('hands the unacknowledged messages of a consumer that leaves to the others', async () => {
      const s = spec();
      await a.ensure(s);
      const c = await open();
      const leaving = consumer(c, s.group);
      await pause(300);
      await append(s.type, 'l1', 'l2');
      await until('both at the first consumer', () => leaving.messages.length >= 2);
      await leaving.messages[0].ack();
      const staying = consumer(b, s.group, 50, true);
      await pause(300);
      await (f.kill ? f.kill(c) : c.close());
      await until('the unacknowledged one at the other consumer', () => staying.messages.length >= 1);
      await pause(500);
      expect(staying.ids()).toEqual([(leaving.messages[1].data as { n: string }).n]);
      expect(staying.messages[0].retryCount).toBeGreaterThanOrEqual(1);
    });

    it('gives a message not acknowledged within the message timeout again', async () => {
      const s = spec({ messageTimeoutMs: 1000 });
      await a.ensure(s);
      const r = consumer(a, s.group);
      await append(s.type, 'slow');
      await until('first delivery', () => r.messages.length >= 1);
      const first = Date.now();
      await until('redelivery after the timeout', () => r.messages.length >= 2, 20_000);
      expect(Date.now() - first).toBeGreaterThanOrEqual(900);
      expect(r.messages[1].retryCount).toBe(1);
      expect(r.ids()).toEqual(['slow', 'slow']);
    });

    it('keeps at most inFlight unacknowledged messages at a consumer', async () => {
      const s = spec();
      await a.ensure(s);
      const r = consumer(a, s.group, 2);
      await append(s.type, 'f1', 'f2', 'f3', 'f4');
      await until('two', () => r.messages.length >= 2);
      await pause(700);
      expect(r.messages).toHaveLength(2);
      await r.messages[0].ack();
      await until('a third after an ack', () => r.messages.length >= 3);
      await pause(500);
      expect(r.messages).toHaveLength(3);
    });
  });
}
