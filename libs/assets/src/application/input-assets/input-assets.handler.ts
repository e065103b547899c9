import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppError, BlobStore } from '@gensvc/shared';
import type { UsableAsset } from '../../contracts/asset-registry';
import { AssetRecords } from '../asset-records';

export interface UsableAssetsQuery {
  readonly account_id: string;
  readonly asset_ids: readonly string[];
  /** The field named in a refusal: `${field}[i]`. */
  readonly field: string;
}

/**
 * Assets as the inputs of a task (quoting and tasks check them, suppliers read them): the
 * caller's completed, undeleted assets, and their bytes. Read from the asset streams, so a
 * delete is effective at once.
 */
@Injectable()
export class InputAssetsHandler {
  constructor(
    private readonly records: AssetRecords,
    private readonly blobs: BlobStore,
  ) {}

  /** The assets in the given order; VALIDATION_ERROR naming `${field}[i]` for an unknown, foreign, deleted or unfinished id. */
  async usable(query: UsableAssetsQuery): Promise<UsableAsset[]> {
    const out: UsableAsset[] = [];
    for (const [i, id] of query.asset_ids.entries()) {
      const asset = typeof id === 'string' ? await this.records.findActive(query.account_id, id) : null;
      if (!asset) {
        throw new AppError('VALIDATION_ERROR', `${query.field}[${i}]: ${JSON.stringify(id)} is not a registered asset of this account (complete the upload first)`);
      }
      out.push({ id: asset.asset_id, name: asset.name, mime: asset.mime, size: asset.size, checksum: asset.checksum });
    }
    return out;
  }

  /** The bytes of a usable asset of any account (suppliers read the inputs of the task they run). */
  async open(assetId: string): Promise<Readable> {
    const asset = await this.records.findActive(null, assetId);
    if (!asset) throw new AppError('NOT_FOUND', 'asset not found');
    return this.blobs.get(asset.blob_key);
  }
}
