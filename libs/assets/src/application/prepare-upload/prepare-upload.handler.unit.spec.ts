import type { AppConfig } from '@gensvc/config';
import { AppError, FixedClock } from '@gensvc/kernel';
import { ProjectionLagError, type SubscriptionEngine } from '@gensvc/event-sourcing';
import type { UploadTokens } from '@gensvc/identity/contracts';
import { ReadStoreLeaseStore } from '@gensvc/storage';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { InMemoryReadStore } from '@gensvc/event-sourcing/testing/in-memory-read-store';
import { UploadLimits } from '../../domain/limits';
import type { AssetRecords } from '../asset-records';
import { UploadSessions } from '../upload-sessions';
import { UPLOADS } from '../uploads.projection';
import { PrepareUploadHandler, uploadIdFor, type PrepareUploadCommand } from './prepare-upload.handler';

describe('PrepareUploadHandler and the session limit', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');
  const limits = new UploadLimits();
  let events: InMemoryEventStore;
  let readStore: InMemoryReadStore;
  let handler: PrepareUploadHandler;
  /** Positions the read models have applied (waitFor beyond it lags). */
  let projected: bigint;
  const engine = {
    waitFor: jest.fn(async (position?: bigint) => {
      if (position !== undefined && position > projected) throw new ProjectionLagError(position, projected, 5000);
    }),
  };
  const prepare = (key: string): PrepareUploadCommand => ({
    type: 'PrepareUpload',
    data: { account_id: 'acc_1', connection_id: 'key_1', name: 'a.png', mime: 'image/png', size: 3, checksum: 'c'.repeat(64), idempotency_key: key },
    metadata: { now },
  });
  const types = async (key: string) => (await events.readStream(`upload-${uploadIdFor('acc_1', key)}`)).map((e) => e.type);
  const refusal = async (cmd: PrepareUploadCommand): Promise<AppError> => {
    const err = await handler.execute(cmd).catch((e: unknown) => e);
    if (!(err instanceof AppError)) throw new Error(`expected a refusal, got ${String(err)}`);
    return err;
  };

  beforeEach(() => {
    events = new InMemoryEventStore();
    readStore = new InMemoryReadStore();
    projected = -1n;
    const sessions = new UploadSessions(events, engine as unknown as SubscriptionEngine, new FixedClock(now), {} as AssetRecords);
    const tokens: UploadTokens = { issue: async () => 'token' };
    handler = new PrepareUploadHandler(
      events,
      readStore,
      engine as unknown as SubscriptionEngine,
      limits,
      tokens,
      { publicBaseUrl: 'https://api.test' } as AppConfig,
      new ReadStoreLeaseStore(readStore),
      sessions,
    );
  });
  afterEach(async () => {
    await readStore.close();
    await events.close();
  });

  it('refuses with UPLOAD_BUSY and stores nothing while the read model lags behind what is stored: it never counts on it', async () => {
    await events.appendToStream('elsewhere-1', [{ type: 'Something', data: {} }]);
    const err = await refusal(prepare('key-00000001'));
    expect(err.code).toBe('UPLOAD_BUSY');
    expect(err.headers['Retry-After']).toBe('1');
    expect(await types('key-00000001')).toEqual([]);
  });

  it('answers the prepared session from its stream when the read model lags after the session is stored', async () => {
    projected = await events.headPosition();
    const view = await handler.execute(prepare('key-00000001'));
    expect(view).toMatchObject({ upload_id: uploadIdFor('acc_1', 'key-00000001'), status: 'prepared', upload: { method: 'PUT', headers: { 'X-Upload-Token': 'token' } } });
    expect(await types('key-00000001')).toEqual(['UploadPrepared']);
  });

  it('counts the open sessions on a caught-up read model: UPLOAD_LIMIT_REACHED at the limit', async () => {
    const expires = new Date(now.getTime() + 60_000).toISOString();
    for (let i = 0; i < limits.maxIncompleteSessions; i++) {
      await readStore.collection(UPLOADS).insertOne({ _id: `up_${i}`, upload_id: `up_${i}`, account_id: 'acc_1', status: 'prepared', expires_at: expires });
    }
    expect((await refusal(prepare('key-00000001'))).code).toBe('UPLOAD_LIMIT_REACHED');
    expect(await types('key-00000001')).toEqual([]);
  });
});
