import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteLeaseStore } from '@gensvc/storage';
import { RequestBudget } from './request-budget';

describe('RequestBudget (a channel budget shared by processes through leases)', () => {
  let dir: string;
  let stores: SqliteLeaseStore[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gensvc-budget-'));
    stores = [];
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const store = () => {
    const s = new SqliteLeaseStore(join(dir, 'leases.db'));
    stores.push(s);
    return s;
  };

  it('gives every request of two processes a slot of its own, so no minute holds more than the budget', async () => {
    // 6,000 a minute: a slot every 10 ms. Two "processes" on the same lease file ask for 40 requests each at once.
    const a = new RequestBudget(store(), 'rep', 6000, 'proc-a');
    const b = new RequestBudget(store(), 'rep', 6000, 'proc-b');
    const slots = await Promise.all([...Array.from({ length: 40 }, () => a.take()), ...Array.from({ length: 40 }, () => b.take())]);
    expect(new Set(slots).size).toBe(80);
    // Any 6,000 consecutive slots (one minute) hold at most 6,000 requests: here, the 80 span more than 80 slots.
    expect(Math.max(...slots) - Math.min(...slots)).toBeGreaterThanOrEqual(79);
  });

  it('lets a waiting request go when its signal aborts, and keeps serving the others', async () => {
    const budget = new RequestBudget(store(), 'fal', 60, 'proc-a'); // a slot a second
    const first = await budget.take();
    const abort = new AbortController();
    const waiting = budget.take(abort.signal);
    expect(budget.queued).toBe(1);
    abort.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    expect(budget.queued).toBe(0);
    budget.stop();
    expect(first).toBeGreaterThan(0);
  });

  it('serves new jobs and running ones in turn, so a burst of submits never holds back the others', async () => {
    const budget = new RequestBudget(store(), 'ark', 6000, 'proc-a');
    const order: string[] = [];
    const submits = Array.from({ length: 6 }, () => budget.take(undefined, 'submit').then(() => order.push('submit')));
    const follows = Array.from({ length: 3 }, () => budget.take(undefined, 'follow').then(() => order.push('follow')));
    await Promise.all([...submits, ...follows]);
    expect(order.slice(0, 6)).toEqual(['submit', 'follow', 'submit', 'follow', 'submit', 'follow']);
    expect(order.slice(6)).toEqual(['submit', 'submit', 'submit']);
  });
});
