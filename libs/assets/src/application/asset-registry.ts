import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { AppError, BlobStore, Clock } from '@gensvc/shared';
import { AssetRegistry, type UsableAsset } from '../contracts/asset-registry';
import { AssetRecords, outputAssetId } from './asset-records';

/** The assets context's contract for other contexts (quoting, tasks, suppliers). */
@Injectable()
export class AssetRegistryService extends AssetRegistry {
  constructor(
    private readonly records: AssetRecords,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {
    super();
  }

  override async requireUsable(accountId: string, assetIds: readonly string[], field = 'input.asset_ids'): Promise<UsableAsset[]> {
    const out: UsableAsset[] = [];
    for (const [i, id] of assetIds.entries()) {
      const asset = typeof id === 'string' ? await this.records.findActive(accountId, id) : null;
      if (!asset) {
        throw new AppError('VALIDATION_ERROR', `${field}[${i}]: ${JSON.stringify(id)} is not a registered asset of this account (complete the upload first)`);
      }
      out.push({ id: asset.asset_id, name: asset.name, mime: asset.mime, size: asset.size, checksum: asset.checksum });
    }
    return out;
  }

  override async open(assetId: string): Promise<Readable> {
    const asset = await this.records.findActive(null, assetId);
    if (!asset) throw new AppError('NOT_FOUND', 'asset not found');
    return this.blobs.get(asset.blob_key);
  }

  override async registerOutput(output: { accountId: string; taskId: string; index: number; name: string; mime: string; body: Buffer }): Promise<string> {
    const assetId = outputAssetId(output.taskId, output.index);
    if ((await this.records.load(assetId)).status !== 'none') return assetId;
    const blobKey = `assets/${assetId}`;
    await this.blobs.put(blobKey, Readable.from([output.body]), { contentType: output.mime, size: output.body.length });
    await this.records.register({
      asset_id: assetId,
      account_id: output.accountId,
      name: output.name,
      mime: output.mime,
      size: output.body.length,
      checksum: createHash('sha256').update(output.body).digest('hex'),
      blob_key: blobKey,
      source: { kind: 'task_output', task_id: output.taskId, index: output.index },
      created_at: this.clock.now().toISOString(),
    });
    return assetId;
  }
}
