import type { RecordedEvent } from '@gensvc/kernel';
import type { AssetRecords } from '../asset-records';
import { UploadAssetsReactor } from './upload-assets.reactor';

describe('UploadAssetsReactor', () => {
  it('registers the asset of a completed upload (once per asset id: the records decide)', async () => {
    const records = { register: jest.fn(async () => undefined) };
    const reactor = new UploadAssetsReactor(records as unknown as AssetRecords);
    expect(reactor.handles).toEqual(['UploadCompleted']);
    const data = { upload_id: 'upl_1', asset_id: 'ast_1', account_id: 'acc_1', name: 'a.png', mime: 'image/png', size: 3, checksum: 'c', blob_key: 'k', completed_at: 'T' };
    await reactor.handle({ type: 'UploadCompleted', data } as unknown as RecordedEvent);
    expect(records.register).toHaveBeenCalledWith({
      asset_id: 'ast_1',
      account_id: 'acc_1',
      name: 'a.png',
      mime: 'image/png',
      size: 3,
      checksum: 'c',
      blob_key: 'k',
      source: { kind: 'upload', upload_id: 'upl_1' },
      created_at: 'T',
    });
  });
});
