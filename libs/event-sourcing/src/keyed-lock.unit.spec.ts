import { KeyedLock } from './keyed-lock';

/** A promise the test settles by hand: work that ends when the test says so. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Lets every promise callback that is ready run (the lock hands over through a few of them). */
const flush = () => new Promise((r) => setImmediate(r));

describe('KeyedLock', () => {
  it('runs the work of one key one at a time in arrival order, of different keys side by side', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const gates = { a1: gate(), a2: gate(), b1: gate() };
    const work = (key: string, name: keyof typeof gates) =>
      lock.run(key, async () => {
        log.push(`${name}+`);
        await gates[name].promise;
        log.push(`${name}-`);
        return name;
      });
    const results = Promise.all([work('a', 'a1'), work('a', 'a2'), work('b', 'b1')]);
    await flush();
    expect(log).toEqual(['a1+', 'b1+']); // a2 waits for a1; b1 runs beside it
    expect([lock.has('a'), lock.has('b'), lock.has('c')]).toEqual([true, true, false]);
    gates.a2.open(); // a2 may finish, but it has not started
    gates.b1.open();
    await flush();
    expect(log).toEqual(['a1+', 'b1+', 'b1-']);
    gates.a1.open();
    await flush();
    expect(log).toEqual(['a1+', 'b1+', 'b1-', 'a1-', 'a2+', 'a2-']);
    expect(await results).toEqual(['a1', 'a2', 'b1']);
    expect(lock.size).toBe(0);
    expect(lock.has('a')).toBe(false);
  });

  it('a failure reaches its caller only and the next work of the key still runs', async () => {
    const lock = new KeyedLock();
    const failed = lock.run('k', async () => {
      throw new Error('boom');
    });
    const next = lock.run('k', async () => 'ran');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  it('idle() waits for the work running and waiting now, failures included', async () => {
    const lock = new KeyedLock();
    const first = gate();
    let done = 0;
    void lock.run('a', async () => {
      await first.promise;
      done++;
    });
    void lock
      .run('a', async () => {
        done++;
        throw new Error('ignored');
      })
      .catch(() => undefined);
    let idle = false;
    const waiting = lock.idle().then(() => (idle = true));
    await flush();
    expect(idle).toBe(false);
    first.open();
    await waiting;
    expect(done).toBe(2);
    expect(lock.size).toBe(0);
  });

  it('idle(timeoutMs) gives up after its timeout while work still runs', async () => {
    jest.useFakeTimers();
    try {
      const lock = new KeyedLock();
      const slow = gate();
      void lock.run('slow', () => slow.promise);
      let gaveUp = false;
      const waiting = lock.idle(50).then(() => (gaveUp = true));
      await jest.advanceTimersByTimeAsync(49);
      expect(gaveUp).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await waiting;
      expect(gaveUp).toBe(true);
      expect(lock.size).toBe(1); // the work is still running
      slow.open();
    } finally {
      jest.useRealTimers();
    }
  });
});
