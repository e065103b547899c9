import { KeyedLock } from './keyed-lock';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('KeyedLock', () => {
  it('runs the work of one key one at a time in arrival order, of different keys side by side', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const work = (key: string, name: string, ms: number) =>
      lock.run(key, async () => {
        log.push(`${name}+`);
        await tick(ms);
        log.push(`${name}-`);
        return name;
      });
    const results = await Promise.all([work('a', 'a1', 30), work('a', 'a2', 0), work('b', 'b1', 0)]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a1-')).toBeLessThan(log.indexOf('a2+'));
    expect(log.indexOf('b1-')).toBeLessThan(log.indexOf('a1-'));
    expect(lock.size).toBe(0);
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

  it('idle() waits for the work running and waiting now; with a timeout it gives up after it', async () => {
    const lock = new KeyedLock();
    let done = 0;
    void lock.run('a', async () => {
      await tick(40);
      done++;
    });
    void lock.run('a', async () => {
      done++;
      throw new Error('ignored');
    }).catch(() => undefined);
    await lock.idle();
    expect(done).toBe(2);
    void lock.run('slow', () => tick(500));
    const t = Date.now();
    await lock.idle(50);
    expect(Date.now() - t).toBeLessThan(400);
    expect(lock.size).toBe(1);
  });
});
