import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppError, Clock, newId } from '@gensvc/kernel';
import { BlobStore } from '@gensvc/blob-store';
import type { AssetSource } from '../domain/asset';
import { UploadLimits } from '../domain/limits';
import { AssetRecords, type AssetView } from './asset-records';
import { loadFileType, type InspectionTarget } from './content-inspector';
import type { ReceiveSlot } from './receive-slots';
import { storeInspected } from './store-inspected';

/** How a one-step receive is watched: its slot (to give way), the size it announced, and the errors to report. */
export interface IngestOptions {
  readonly slot?: ReceiveSlot;
  /** Bytes announced (Content-Length), when known: a small file may arrive slowly and still in time. */
  readonly expectedBytes?: number;
  readonly timeoutError?: () => Error;
  readonly slowError?: () => Error;
  readonly yieldError?: () => Error;
}

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
  async ingest(accountId: string, name: string, body: Readable, target: InspectionTarget, source: AssetSource, options: IngestOptions = {}): Promise<AssetView> {
    const assetId = newId('ast');
    const blobKey = `assets/${assetId}`;
    const checked = await storeInspected(this.blobs, blobKey, body, target, {
      maxBytes: this.limits.maxFileBytes,
      timeoutMs: source.kind === 'import' ? this.limits.importTimeoutMs : this.limits.receiveTimeoutMs,
      timeoutError: options.timeoutError,
      pace: { windowMs: this.limits.paceWindowMs, minBytes: this.limits.paceMinBytes, expectedBytes: options.expectedBytes, error: options.slowError },
      yielded: options.slot?.yielded,
      yieldError:
        options.yieldError ??
        (() => new AppError('UPLOAD_BUSY', 'the service gave this receive\'s place to another account waiting for one; send the file again later', { 'Retry-After': String(this.limits.retryAfterSeconds) })),
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
