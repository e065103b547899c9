import { Limiter } from './limiter';

const tick = () => new Promise((r) => setImmediate(r));

describe('delivery concurrency limiter', () => {
  it('given a slow endpoint holding its slots, when another endpoint asks, then it is served at once', async () => {
    const limiter = new Limiter(
      () => 3,
      () => 2,
    );
    const slow = [await limiter.acquire('slow'), await limiter.acquire('slow')];
    let third = false;
    void limiter.acquire('slow').then(() => (third = true));
    const other = await limiter.acquire('fast');
    await tick();
    expect(third).toBe(false);
    expect(limiter.inUse).toBe(3);
    other();
    await tick();
    expect(third).toBe(false); // still two of "slow" in flight
    slow[0]();
    await tick();
    expect(third).toBe(true);
  });

  it('given the overall bound reached, when a slot frees, then the first waiter gets it; releasing twice frees one slot', async () => {
    const limiter = new Limiter(
      () => 1,
      () => 1,
    );
    const a = await limiter.acquire('a');
    const order: string[] = [];
    void limiter.acquire('b').then((r) => (order.push('b'), r));
    void limiter.acquire('c').then(() => order.push('c'));
    a();
    a();
    await tick();
    expect(order).toEqual(['b']);
    expect(limiter.inUse).toBe(1);
    expect(limiter.queued).toBe(1);
  });
});
