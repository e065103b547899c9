import { FixedClock } from '@gensvc/kernel';
import { ProjectionLagError, type SubscriptionEngine } from '@gensvc/event-sourcing';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import type { AssetRecords } from './asset-records';
import { UploadSessions } from './upload-sessions';

describe('UploadSessions.record', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');
  let events: InMemoryEventStore;
  beforeEach(() => (events = new InMemoryEventStore()));
  afterEach(() => events.close());

  it('returns the stored command when the read models lag: what follows it (storing the content, the answer) goes on', async () => {
    const engine = { waitFor: async (p?: bigint) => Promise.reject(new ProjectionLagError(p ?? 0n, -1n, 5000)) } as unknown as SubscriptionEngine;
    const sessions = new UploadSessions(events, engine, new FixedClock(now), {} as AssetRecords);
    const data = { upload_id: 'up_1', account_id: 'acc_1', connection_id: 'key_1', idempotency_key: 'key-00000001', name: 'a.png', mime: 'image/png', size: 3, checksum: 'c'.repeat(64), validity_ms: 60_000 };
    const result = await sessions.record('up_1', { type: 'PrepareUpload', data, metadata: { now } });
    expect(result.state).toMatchObject({ status: 'prepared', upload_id: 'up_1' });
    expect((await events.readStream('upload-up_1')).map((e) => e.type)).toEqual(['UploadPrepared']);
  });
});
