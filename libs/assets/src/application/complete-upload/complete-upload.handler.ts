import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, Clock, newId, type Command } from '@gensvc/kernel';
import { BlobNotFoundError, BlobStore } from '@gensvc/blob-store';
import { effectiveStatus, type Upload, type UploadState } from '../../domain/upload';
import { AssetRecords } from '../asset-records';
import { UploadSessions, type UploadView } from '../upload-sessions';

/** POST /v1/uploads/{id}/complete (its body must be empty). */
export type CompleteUploadCommand = Command<'CompleteUpload', { readonly account_id: string; readonly upload_id: string }>;

/**
 * Completes an upload (spec "Uploads" rules 9–11): rereads the stored object, and when size
 * and SHA-256 still match records the completion and registers the upload's one asset at
 * once (`UploadAssetsReactor` makes sure of it after a crash in between). Lost or damaged
 * content puts the upload back to `prepared` (UPLOAD_CONTENT_MISMATCH). A repeat answers the
 * completed upload. `metadata.now` decides; the completion, recorded after the reread, takes
 * the clock's time then.
 */
@Injectable()
export class CompleteUploadHandler {
  constructor(
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly records: AssetRecords,
    private readonly sessions: UploadSessions,
  ) {}

  async execute(cmd: CompleteUploadCommand): Promise<UploadView> {
    const { account_id: accountId, upload_id: uploadId } = cmd.data;
    const state = await this.sessions.owned(accountId, uploadId);
    if (state.status === 'completed') {
      await this.registerAsset(state);
      return this.sessions.view(state);
    }
    const status = effectiveStatus(state, cmd.metadata.now);
    if (status === 'expired') throw new AppError('UPLOAD_EXPIRED', `the upload expired at ${state.expires_at}; prepare again with a new idempotency_key`);
    if (status === 'uploading') throw new AppError('UPLOAD_IN_PROGRESS', `the upload's content is being received; query the upload later`);
    if (status === 'prepared' || !state.blob_key) throw new AppError('UPLOAD_NOT_READY', 'the upload has no content yet; PUT the file first');
    const intact = await this.storedIntact(state.blob_key, state.size, state.checksum);
    const result = await this.sessions.record(uploadId, {
      type: 'CompleteUpload',
      data: { blob_key: state.blob_key, intact, asset_id: newId('ast') },
      metadata: { now: this.clock.now() },
    });
    if (result.events.some((e) => e.type === 'UploadContentMismatched')) {
      throw new AppError('UPLOAD_CONTENT_MISMATCH', 'the stored content is lost or damaged; the upload is prepared again: send the file again');
    }
    const final = result.state as Upload;
    if (final.status === 'completed') await this.registerAsset(final);
    return this.sessions.view(final);
  }

  /** Rereads the stored object: true when it is there with the declared size and SHA-256. */
  private async storedIntact(blobKey: string, size: number, checksum: string): Promise<boolean> {
    const stat = await this.blobs.stat(blobKey);
    if (!stat || stat.size !== size) return false;
    let body: Readable;
    try {
      body = await this.blobs.get(blobKey);
    } catch (err) {
      if (err instanceof BlobNotFoundError) return false;
      throw err;
    }
    const hash = createHash('sha256');
    let n = 0;
    for await (const chunk of body) {
      hash.update(chunk as Buffer);
      n += (chunk as Buffer).length;
    }
    return n === size && hash.digest('hex') === checksum;
  }

  private async registerAsset(state: UploadState): Promise<void> {
    if (state.status !== 'completed' || !state.asset_id || !state.blob_key) return;
    await this.records.register({
      asset_id: state.asset_id,
      account_id: state.account_id,
      name: state.name,
      mime: state.mime,
      size: state.size,
      checksum: state.checksum,
      blob_key: state.blob_key,
      source: { kind: 'upload', upload_id: state.upload_id },
      created_at: state.completed_at ?? this.clock.now().toISOString(),
    });
  }
}
