import { ProjectionLagError, type EventStore, type ReadStore, type SubscriptionEngine } from '@gensvc/event-sourcing';
import type { AssetRecords } from '../asset-records';
import { DeleteAssetHandler } from './delete-asset.handler';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const asset = { status: 'active', asset_id: 'ast_1', account_id: 'acc_1' };

function setup(lagging: boolean, refs = 0) {
  const events = { headPosition: jest.fn(async () => 9n), readStream: jest.fn(async () => [{ type: 'AssetRegistered', data: asset, revision: 0n }]), appendToStream: jest.fn(), pipelinedAppends: false };
  const count = jest.fn(async () => refs);
  const readStore = { collection: () => ({ count }) };
  const engine = { waitFor: jest.fn(async (p: bigint) => (lagging ? Promise.reject(new ProjectionLagError(p, 3n, 5000)) : undefined)) };
  const records = { load: jest.fn(async () => asset) };
  const handler = new DeleteAssetHandler(events as unknown as EventStore, readStore as unknown as ReadStore, engine as unknown as SubscriptionEngine, records as unknown as AssetRecords);
  return { handler, events, engine, count };
}

const cmd = { type: 'DeleteAsset' as const, data: { account_id: 'acc_1', asset_id: 'ast_1' }, metadata: { now: NOW } };

describe('DeleteAssetHandler: the in-use check reads task references caught up with every stored event', () => {
  it('waits for the read models to reach the head before counting the references', async () => {
    const { handler, engine, count } = setup(false, 1);
    await expect(handler.execute(cmd)).rejects.toMatchObject({ code: 'ASSET_IN_USE' });
    expect(engine.waitFor).toHaveBeenCalledWith(9n);
    expect(engine.waitFor.mock.invocationCallOrder[0]).toBeLessThan(count.mock.invocationCallOrder[0]);
  });

  it('answers 503 SERVICE_UNAVAILABLE and stores nothing when they do not catch up in time', async () => {
    const { handler, events, count } = setup(true);
    await expect(handler.execute(cmd)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } });
    expect(count).not.toHaveBeenCalled();
    expect(events.appendToStream).not.toHaveBeenCalled();
  });
});
