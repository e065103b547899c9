import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppError, BlobStore, Clock, newId } from '@gensvc/shared';
import type { AssetSource } from '../domain/asset';
import { UploadLimits } from '../domain/limits';
import { AssetRecords, type AssetView } from './asset-records';
import { loadFileType, type InspectionTarget } from './content-inspector';
import { storeInspected } from './store-inspected';

/** The one-step ways in (direct upload, import): checked bytes into storage, then one asset. */
@Injectable()
export class AssetIngest implements OnModuleInit {
  constructor(
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly limits: UploadLimits,
    private readonly records: AssetRecords,
  ) {}

  /** Loads the file-type recogniser at start: a broken install fails the start, not an upload. */
  async onModuleInit(): Promise<void> {
    await loadFileType();
  }

  /** Streams checked bytes into storage and registers them as the account's asset. */
  async ingest(accountId: string, name: string, body: Readable, target: InspectionTarget, source: AssetSource, timeoutError?: () => Error): Promise<AssetView> {
    const assetId = newId('ast');
    const blobKey = `assets/${assetId}`;
    const checked = await storeInspected(this.blobs, blobKey, body, target, {
      maxBytes: this.limits.maxFileBytes,
      timeoutMs: source.kind === 'import' ? this.limits.importTimeoutMs : this.limits.receiveTimeoutMs,
      timeoutError,
    });
    const state = await this.records.register({
      asset_id: assetId,
      account_id: accountId,
      name,
      mime: checked.mime,
      size: checked.size,
      checksum: checked.checksum,
      blob_key: blobKey,
      source,
      created_at: this.clock.now().toISOString(),
    });
    if (state.status !== 'active') throw new AppError('INTERNAL', 'asset was not registered');
    return this.records.view(state);
  }
}
