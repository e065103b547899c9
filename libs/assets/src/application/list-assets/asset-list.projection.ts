import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import type { AssetEvent } from '../../domain/asset';

/** The account's assets for the list (GET /v1/assets); a deleted asset stays as `deleted` (never listed). */
export const ASSET_LIST = 'assets_list';
export type AssetListDoc = {
  _id: string;
  account_id: string;
  name: string;
  mime: string;
  size: number;
  checksum: string;
  created_at: string;
  source: string;
  task_id: string | null;
  status: 'active' | 'deleted';
} & Record<string, unknown>;

@AsProjection()
@Injectable()
export class AssetListProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Omit<AssetListDoc, '_id'>, AssetEvent>({
    name: 'assets.list',
    collection: ASSET_LIST,
    handles: ['AssetRegistered', 'AssetDeleted'],
    documentId: (e) => e.data.asset_id,
    indexes: [{ keys: { account_id: 1, status: 1, created_at: -1 } }],
    evolve(doc, e) {
      if (e.type === 'AssetRegistered') {
        if (doc) return doc;
        const f = e.data;
        return {
          account_id: f.account_id,
          name: f.name,
          mime: f.mime,
          size: f.size,
          checksum: f.checksum,
          created_at: f.created_at,
          source: f.source.kind,
          task_id: f.source.kind === 'task_output' ? f.source.task_id : null,
          status: 'active',
        };
      }
      return doc ? { ...doc, status: 'deleted' } : null;
    },
  });
}
