import { Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import { AssetRecords, type AssetView } from '../asset-records';

export interface GetAssetQuery {
  readonly account_id: string;
  readonly asset_id: string;
}

/** GET /v1/assets/{id}: the caller's asset, read from its stream (a delete shows at once), with fresh signed links. */
@Injectable()
export class GetAssetHandler {
  constructor(private readonly records: AssetRecords) {}

  async execute(query: GetAssetQuery): Promise<AssetView> {
    const asset = await this.records.findActive(query.account_id, query.asset_id);
    if (!asset) throw new AppError('NOT_FOUND', 'asset not found');
    return this.records.view(asset);
  }
}
