import { afterAttempt, backoffMs, planSubmit, resendDelayMs, type QueuedRoutes, type RouteOption } from './route-failover';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const a: RouteOption = { channel: 'rep-a', route: 1, resendsLostAnswers: false };
const b: RouteOption = { channel: 'rep-b', route: 0, resendsLostAnswers: true };
const fresh: QueuedRoutes = { submitting: null, routes: {} };

describe('route failover', () => {
  describe('planning the next create request', () => {
    it('tries the first route of the order first', () => expect(planSubmit(fresh, [a, b], T0)).toEqual({ kind: 'submit', option: a, resend: false }));
    it('waits for a route that asked to be tried later, and tries it then', () => {
      const job: QueuedRoutes = { submitting: null, routes: { 'rep-a#1': { attempts: 1, since: iso(0), retryAt: iso(2_000), spent: false } } };
      expect(planSubmit(job, [a, b], T0 + 1_000)).toEqual({ kind: 'wait', untilMs: T0 + 2_000 });
      expect(planSubmit(job, [a, b], T0 + 2_000)).toEqual({ kind: 'submit', option: a, resend: false });
    });
    it('goes on with the next route once a route is spent, and is exhausted when all are', () => {
      const spentA: QueuedRoutes = { submitting: null, routes: { 'rep-a#1': { attempts: 3, since: iso(0), retryAt: null, spent: true } } };
      expect(planSubmit(spentA, [a, b], T0)).toEqual({ kind: 'submit', option: b, resend: false });
      const spentBoth: QueuedRoutes = { submitting: null, routes: { ...spentA.routes, 'rep-b#0': { attempts: 1, since: iso(0), retryAt: null, spent: true } } };
      expect(planSubmit(spentBoth, [a, b], T0)).toEqual({ kind: 'exhausted' });
      expect(planSubmit(fresh, [], T0)).toEqual({ kind: 'exhausted' });
    });
    it('follows the order it is given (routes whose probe passed first), whatever was tried before', () =>
      expect(planSubmit(fresh, [b, a], T0)).toEqual({ kind: 'submit', option: b, resend: false }));
    it('sends a request whose answer was lost again only to a provider that takes an idempotency key', () => {
      expect(planSubmit({ submitting: { channel: 'rep-b', route: 0, since: iso(0) }, routes: {} }, [a, b], T0)).toEqual({ kind: 'submit', option: b, resend: true });
      expect(planSubmit({ submitting: { channel: 'rep-a', route: 1, since: iso(0) }, routes: {} }, [a, b], T0)).toEqual({ kind: 'lost', channel: 'rep-a' });
      // The route is no longer configured: whatever the provider made cannot be asked about.
      expect(planSubmit({ submitting: { channel: 'gone', route: 0, since: iso(0) }, routes: {} }, [a, b], T0)).toEqual({ kind: 'lost', channel: 'gone' });
    });
    it('backs off between resends as long as the request has been out, from 1 s to 30 s', () => {
      expect(resendDelayMs({ since: iso(0) }, T0 + 200)).toBe(1_000);
      expect(resendDelayMs({ since: iso(0) }, T0 + 7_000)).toBe(7_000);
      expect(resendDelayMs({ since: iso(0) }, T0 + 90_000)).toBe(30_000);
    });
  });

  describe('after an attempt the route did not take', () => {
    const now = (ms: number) => new Date(T0 + ms);
    it('retries after an exponential backoff with a jitter within ±25 %, the same on every replay', () => {
      for (const attempt of [1, 2, 3]) {
        const ms = backoffMs('task_1', attempt);
        expect(ms).toBeGreaterThanOrEqual(750 * 2 ** (attempt - 1));
        expect(ms).toBeLessThanOrEqual(1250 * 2 ** (attempt - 1));
        expect(backoffMs('task_1', attempt)).toBe(ms);
      }
      const spread = new Set(Array.from({ length: 20 }, (_, i) => backoffMs(`task_${i}`, 1)));
      expect(spread.size).toBeGreaterThan(10);
      expect(afterAttempt('task_1', undefined, iso(0), now(100), {})).toEqual({ retryAt: iso(100 + backoffMs('task_1', 1)), spent: false });
    });
    it("honours the provider's Retry-After", () => expect(afterAttempt('task_1', undefined, iso(0), now(0), { retryAfterMs: 5_000 })).toEqual({ retryAt: iso(5_000), spent: false }));
    it('spends the route on its third attempt', () =>
      expect(afterAttempt('task_1', { attempts: 2, since: iso(0), retryAt: iso(3_000), spent: false }, iso(3_000), now(3_100), {})).toEqual({ retryAt: null, spent: true }));
    it('spends the route when the next try would fall more than 30 s after its first', () => {
      expect(afterAttempt('task_1', { attempts: 1, since: iso(0), retryAt: iso(20_000), spent: false }, iso(20_000), now(20_000), { retryAfterMs: 10_001 })).toEqual({ retryAt: null, spent: true });
      expect(afterAttempt('task_1', { attempts: 1, since: iso(0), retryAt: iso(20_000), spent: false }, iso(20_000), now(20_000), { retryAfterMs: 9_000 })).toEqual({ retryAt: iso(29_000), spent: false });
    });
    it('spends the route at once on a Retry-After over 30 s or when it cannot run the job', () => {
      expect(afterAttempt('task_1', undefined, iso(0), now(0), { retryAfterMs: 30_001 })).toEqual({ retryAt: null, spent: true });
      expect(afterAttempt('task_1', undefined, iso(0), now(0), { unusable: true })).toEqual({ retryAt: null, spent: true });
    });
  });
});
