import { Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import type { UsableAsset } from '../../contracts/asset-registry';
import { AssetRecords } from '../asset-records';

export interface UsableAssetsQuery {
  readonly account_id: string;
  readonly asset_ids: readonly string[];
  /** The field a refusal names: `${field}[i]`. */
  readonly field: string;
}

/**
 * Assets as the inputs of a task (quoting and tasks check them before a quote or a task):
 * the caller's completed, undeleted assets in the given order, read from their streams (a
 * delete is effective at once). VALIDATION_ERROR naming `${field}[i]` for an unknown,
 * foreign, deleted or unfinished id.
 */
@Injectable()
export class UsableAssetsHandler {
  constructor(private readonly records: AssetRecords) {}

  async execute(query: UsableAssetsQuery): Promise<UsableAsset[]> {
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
}
