import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppError } from '@gensvc/kernel';
import { BlobStore } from '@gensvc/blob-store';
import { AssetRecords } from '../asset-records';

export interface OpenAssetQuery {
  readonly asset_id: string;
}

/** The bytes of an undeleted asset of any account: suppliers read the input files of the task they run. */
@Injectable()
export class OpenAssetHandler {
  constructor(
    private readonly records: AssetRecords,
    private readonly blobs: BlobStore,
  ) {}

  async execute(query: OpenAssetQuery): Promise<Readable> {
    const asset = await this.records.findActive(null, query.asset_id);
    if (!asset) throw new AppError('NOT_FOUND', 'asset not found');
    return this.blobs.get(asset.blob_key);
  }
}
