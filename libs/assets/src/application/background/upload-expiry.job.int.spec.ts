import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemClock } from '@gensvc/kernel';
import { type AppConfig } from '@gensvc/config';
import { type SubscriptionEngine } from '@gensvc/event-sourcing';
import { SqliteLeaseStore } from '@gensvc/storage';
import type { UploadLimits } from '../../domain/limits';
import type { ExpireUploadsHandler } from '../expire-uploads/expire-uploads.handler';
import { UploadExpiryJob } from './upload-expiry.job';

/**
 * The upload expiry timer with several processes on one data directory (each with its own
 * connection to DATA_DIR/leases.db): a pass runs in one of them per interval.
 */
describe('upload expiry timer across processes', () => {
  let dir: string;
  const INTERVAL = 60;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gensvc-expiry-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const process = (role: 'all' | 'api' | 'worker' = 'worker') => {
    const passes: number[] = [];
    const expire = { execute: async () => (passes.push(Date.now()), 0) } as unknown as ExpireUploadsHandler;
    const engine = { health: () => ({ started: true }) } as unknown as SubscriptionEngine;
    const leases = new SqliteLeaseStore(join(dir, 'leases.db'));
    const job = new UploadExpiryJob(expire, { expirySweepIntervalMs: INTERVAL } as UploadLimits, engine, leases, { processRole: role } as AppConfig, new SystemClock());
    job.onApplicationBootstrap();
    return { job, passes, leases, stop: async () => (await job.onApplicationShutdown(), await leases.close()) };
  };
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('fires once per interval across three worker processes, never in an api process, and moves when its process stops', async () => {
    const workers = [process(), process(), process()];
    const api = process('api');
    try {
      await pause(INTERVAL * 12);
      const counts = workers.map((w) => w.passes.length);
      const total = counts.reduce((a, b) => a + b, 0);
      // about one pass per interval in all (timers drift on a loaded machine), in one process
      expect(total).toBeGreaterThanOrEqual(3);
      expect(total).toBeLessThanOrEqual(12);
      expect(counts.filter((n) => n > 0)).toHaveLength(1);
      expect(api.passes).toEqual([]);

      const holder = workers.find((w) => w.passes.length > 0)!;
      await holder.stop();
      const stoppedAt = Date.now();
      const before = holder.passes.length;
      await pause(INTERVAL * 8);
      const others = workers.filter((w) => w !== holder);
      expect(holder.passes.length).toBe(before);
      const taken = others.map((w) => w.passes.filter((t) => t > stoppedAt).length);
      expect(taken.filter((n) => n > 0)).toHaveLength(1);
      // given back at the stop: another process sweeps within a couple of intervals
      expect(Math.min(...others.flatMap((w) => w.passes.filter((t) => t > stoppedAt)))).toBeLessThan(stoppedAt + 2.5 * INTERVAL);
    } finally {
      for (const w of [...workers, api]) await w.stop().catch(() => undefined);
    }
  });
});
