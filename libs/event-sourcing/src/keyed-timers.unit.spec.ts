import { KeyedTimers } from './keyed-timers';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KeyedTimers', () => {
  it('keeps one wake-up per key, the earlier of the pending and the new one', async () => {
    const fired: string[] = [];
    const timers = new KeyedTimers((k) => fired.push(k));
    timers.schedule('a', 40);
    timers.schedule('a', 1000); // later: ignored
    timers.schedule('b', 5000);
    timers.schedule('b', 10); // earlier: replaces
    expect(timers.size).toBe(2);
    await tick(80);
    expect(fired.sort()).toEqual(['a', 'b']);
    expect(timers.size).toBe(0);
  });

  it('cancel drops one key, clear drops all, fireAllNow moves every wake-up to now', async () => {
    const fired: string[] = [];
    const timers = new KeyedTimers((k) => fired.push(k));
    timers.schedule('a', 5000);
    timers.schedule('b', 5000);
    timers.cancel('a');
    timers.fireAllNow();
    await tick(20);
    expect(fired).toEqual(['b']);
    timers.schedule('c', 10);
    timers.clear();
    await tick(30);
    expect(fired).toEqual(['b']);
  });

  it('a wait longer than maxSleepMs fires after maxSleepMs', async () => {
    const fired: string[] = [];
    const timers = new KeyedTimers((k) => fired.push(k), 20);
    timers.schedule('a', 60_000);
    await tick(60);
    expect(fired).toEqual(['a']);
  });
});
