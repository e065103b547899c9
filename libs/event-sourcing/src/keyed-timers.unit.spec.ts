import { KeyedTimers } from './keyed-timers';

describe('KeyedTimers', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-03-01T10:00:00.000Z') }));
  afterEach(() => jest.useRealTimers());

  it('keeps one wake-up per key, the earlier of the pending and the new one', async () => {
    const fired: string[] = [];
    const timers = new KeyedTimers((k) => fired.push(k));
    timers.schedule('a', 40);
    timers.schedule('a', 1000); // later: ignored
    timers.schedule('b', 5000);
    timers.schedule('b', 10); // earlier: replaces
    expect(timers.size).toBe(2);
    await jest.advanceTimersByTimeAsync(10);
    expect(fired).toEqual(['b']);
    await jest.advanceTimersByTimeAsync(30);
    expect(fired).toEqual(['b', 'a']);
    expect(timers.size).toBe(0);
  });

  it('tells when a key is due', () => {
    const timers = new KeyedTimers(() => undefined, 1000);
    timers.schedule('a', 60_000);
    expect(timers.dueAt('a')).toBe(Date.now() + 60_000); // the time asked for, not the shorter sleep
    expect(timers.dueAt('b')).toBeUndefined();
    timers.cancel('a');
    expect(timers.dueAt('a')).toBeUndefined();
  });

  it('cancel drops one key, clear drops all, fireAllNow moves every wake-up to now', async () => {
    const fired: string[] = [];
    const timers = new KeyedTimers((k) => fired.push(k));
    timers.schedule('a', 5000);
    timers.schedule('b', 5000);
    timers.cancel('a');
    timers.fireAllNow();
    await jest.advanceTimersByTimeAsync(0);
    expect(fired).toEqual(['b']);
    timers.schedule('c', 10);
    timers.clear();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(fired).toEqual(['b']);
  });

  it('a wait longer than maxSleepMs fires after maxSleepMs', async () => {
    const fired: string[] = [];
    const timers = new KeyedTimers((k) => fired.push(k), 20);
    timers.schedule('a', 60_000);
    await jest.advanceTimersByTimeAsync(19);
    expect(fired).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(['a']);
  });
});
