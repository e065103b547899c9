import type { BlobStore } from '@gensvc/blob-store';
import type { RecordedEvent } from '@gensvc/kernel';
import { StorageCleanupReactor, objectsFreedBy } from './storage-cleanup.reactor';

describe('StorageCleanupReactor', () => {
  it.each([
    ['UploadReceiveFailed', { blob_key: 'b1' }, ['b1']],
    ['UploadReceived', { superseded_blob_key: 'b0' }, ['b0']],
    ['UploadReceived', { superseded_blob_key: null }, []],
    ['UploadContentMismatched', { blob_key: 'b2' }, ['b2']],
    ['UploadExpired', { blob_keys: ['b3', 'b4'] }, ['b3', 'b4']],
    ['AssetDeleted', { blob_key: 'b5' }, ['b5']],
    ['AssetRegistered', { blob_key: 'b6' }, []],
  ])('%s frees %j', (type, data, freed) => {
    expect(objectsFreedBy({ type, data })).toEqual(freed);
  });

  it('deletes every freed object, and a storage failure throws (the engine retries)', async () => {
    const blobs = { delete: jest.fn(async () => undefined) };
    const reactor = new StorageCleanupReactor(blobs as unknown as BlobStore);
    await reactor.handle({ type: 'UploadExpired', data: { blob_keys: ['b3', 'b4'] } } as unknown as RecordedEvent);
    expect(blobs.delete.mock.calls).toEqual([['b3'], ['b4']]);
    blobs.delete.mockRejectedValueOnce(new Error('storage down'));
    await expect(reactor.handle({ type: 'AssetDeleted', data: { blob_key: 'b5' } } as unknown as RecordedEvent)).rejects.toThrow('storage down');
  });
});
