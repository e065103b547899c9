import { FixedClock } from '@gensvc/kernel';
import { handleCommand, type SubscriptionEngine } from '@gensvc/event-sourcing';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { InMemoryReadStore } from '@gensvc/event-sourcing/testing/in-memory-read-store';
import { uploadDecider, type Upload } from '../../domain/upload';
import type { AssetRecords } from '../asset-records';
import { UploadSessions } from '../upload-sessions';
import { UPLOADS } from '../uploads.projection';
import { ExpireUploadsHandler } from './expire-uploads.handler';

describe('ExpireUploadsHandler', () => {
  const prepared = new Date('2026-03-01T10:00:00.000Z');
  let events: InMemoryEventStore;
  let readStore: InMemoryReadStore;
  let handler: ExpireUploadsHandler;

  /** An upload prepared at `prepared`, valid for `validityMs`, as the event store and the uploads read model hold it. */
  const given = async (uploadId: string, validityMs: number) => {
    const data = { upload_id: uploadId, account_id: 'acc_1', connection_id: 'key_1', idempotency_key: `key-${uploadId}`, name: 'a.png', mime: 'image/png', size: 3, checksum: 'c'.repeat(64), validity_ms: validityMs };
    const { state } = await handleCommand(events, `upload-${uploadId}`, uploadDecider, { type: 'PrepareUpload', data, metadata: { now: prepared } });
    await readStore.collection(UPLOADS).insertOne({ _id: uploadId, ...(state as Upload) });
  };
  const expire = (now: Date) => handler.execute({ type: 'ExpireUploads', data: {}, metadata: { now } });
  const types = async (uploadId: string) => (await events.readStream(`upload-${uploadId}`)).map((e) => e.type);

  beforeEach(() => {
    events = new InMemoryEventStore();
    readStore = new InMemoryReadStore();
    const engine = { waitFor: async () => undefined } as unknown as SubscriptionEngine;
    const sessions = new UploadSessions(events, engine, new FixedClock(prepared), {} as AssetRecords);
    handler = new ExpireUploadsHandler(readStore, sessions);
  });
  afterEach(async () => {
    await readStore.close();
    await events.close();
  });

  it('expires the open uploads past their validity at metadata.now, once', async () => {
    await given('up_short', 60_000);
    await given('up_long', 3_600_000);
    expect(await expire(new Date('2026-03-01T10:00:59.000Z'))).toBe(0);
    expect(await expire(new Date('2026-03-01T10:01:00.000Z'))).toBe(1);
    expect(await types('up_short')).toEqual(['UploadPrepared', 'UploadExpired']);
    expect(await types('up_long')).toEqual(['UploadPrepared']);
    // The read model still lists it as open until the projection runs: a repeat records nothing.
    expect(await expire(new Date('2026-03-01T10:02:00.000Z'))).toBe(0);
  });
});
