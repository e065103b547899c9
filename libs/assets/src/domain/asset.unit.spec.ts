import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { assetDecider, type AssetEvent, type AssetFacts } from './asset';

const facts: AssetFacts = {
  asset_id: 'ast_1',
  account_id: 'acc_1',
  name: 'a.png',
  mime: 'image/png',
  size: 10,
  checksum: 'a'.repeat(64),
  blob_key: 'assets/ast_1',
  source: { kind: 'direct' },
  created_at: '2026-01-01T00:00:00.000Z',
};
const registered: AssetEvent = { type: 'AssetRegistered', data: facts };
const deleted: AssetEvent = { type: 'AssetDeleted', data: { asset_id: 'ast_1', account_id: 'acc_1', blob_key: 'assets/ast_1', deleted_at: '2026-01-01T01:00:00.000Z' } };
const del = (over: { account_id?: string; in_use?: boolean } = {}) => ({ type: 'DeleteAsset' as const, data: { account_id: 'acc_1', in_use: false, ...over }, metadata: { now: new Date('2026-01-01T01:00:00.000Z') } });
const spec = DeciderSpecification.for(assetDecider);

describe('asset decider', () => {
  it('registers once; a repeat registers nothing', () => {
    spec.given([]).when({ type: 'RegisterAsset', data: facts, metadata: { now: new Date(facts.created_at) } }).then([registered]);
    spec.given([registered]).when({ type: 'RegisterAsset', data: facts, metadata: { now: new Date(facts.created_at) } }).then([]);
  });

  it('never recreates a deleted asset', () => {
    spec.given([registered, deleted]).when({ type: 'RegisterAsset', data: facts, metadata: { now: new Date(facts.created_at) } }).then([]);
  });

  it('deletes, queueing the storage cleanup once', () => {
    spec.given([registered]).when(del()).then([deleted]);
    spec.given([registered, deleted]).when(del()).then([]);
  });

  it('refuses to delete while an unfinished task uses it', () => {
    spec.given([registered]).when(del({ in_use: true })).thenThrows('ASSET_IN_USE');
  });

  it("hides other accounts' and unknown assets", () => {
    spec.given([registered]).when(del({ account_id: 'acc_2' })).thenThrows('NOT_FOUND');
    spec.given([]).when(del()).thenThrows('NOT_FOUND');
  });
});
