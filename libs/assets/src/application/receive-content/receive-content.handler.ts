import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, Clock, type Command } from '@gensvc/kernel';
import { BlobStore } from '@gensvc/blob-store';
import { UploadLimits } from '../../domain/limits';
import { parseContentType } from '../../domain/media-types';
import { effectiveStatus, type Upload } from '../../domain/upload';
import { ReceiveSlots } from '../receive-slots';
import { ReceiveInterrupted, storeInspected } from '../store-inspected';
import { UploadSessions, type UploadView } from '../upload-sessions';

/** PUT /v1/uploads/{id}/content: the request's body and headers, and the upload its token grants. */
export type ReceiveContentCommand = Command<
  'ReceiveContent',
  {
    readonly upload_id: string;
    readonly account_id: string;
    /** The upload the caller's X-Upload-Token was issued for; null for any other credential. */
    readonly token_upload_id: string | null;
    readonly body: Readable;
    readonly content_type: string | undefined;
    readonly content_length: number | undefined;
  }
>;

/**
 * The content write of a prepared upload (spec "Uploads" rules 5–8): streams the body
 * through the content checks into storage (never whole in memory) under a receive slot,
 * recording the receive's start, then its success or failure. `metadata.now` decides the
 * start; what is recorded after the transfer takes the clock's time then.
 */
@Injectable()
export class ReceiveContentHandler {
  private readonly logger = new Logger('Uploads');

  constructor(
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly limits: UploadLimits,
    private readonly slots: ReceiveSlots,
    private readonly sessions: UploadSessions,
  ) {}

  async execute(cmd: ReceiveContentCommand): Promise<UploadView> {
    const { upload_id: uploadId, account_id: accountId, content_length: contentLength } = cmd.data;
    if (cmd.data.token_upload_id === null || cmd.data.token_upload_id !== uploadId) {
      throw new AppError('UNAUTHORIZED', 'a valid X-Upload-Token for this upload is required');
    }
    const state = await this.sessions.owned(accountId, uploadId);
    const status = effectiveStatus(state, cmd.metadata.now);
    if (status === 'completed') return this.sessions.view(state);
    if (status === 'expired') throw new AppError('UPLOAD_EXPIRED', `the upload expired at ${state.expires_at}; prepare again with a new idempotency_key`);
    if (status === 'uploading') throw new AppError('UPLOAD_IN_PROGRESS', `the upload's content is being received; query the upload later`);
    const type = parseContentType(cmd.data.content_type);
    const charset = type?.params.charset?.toLowerCase();
    if (!type || type.essence !== state.mime || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${state.mime}, the MIME the upload was prepared with`);
    }

    const slot = await this.slots.acquire(accountId);
    try {
      const receiveId = randomUUID().replace(/-/g, '');
      const blobKey = `uploads/${uploadId}/${receiveId}`;
      const started = await this.sessions.record(uploadId, {
        type: 'StartReceive',
        data: { receive_id: receiveId, blob_key: blobKey, receive_timeout_ms: this.limits.receiveTimeoutMs },
        metadata: { now: this.clock.now() },
      });
      if (!started.events.length) return this.sessions.view(started.state as Upload); // completed meanwhile
      try {
        if (contentLength !== undefined && contentLength > Math.min(state.size, this.limits.maxFileBytes)) {
          throw new AppError('PAYLOAD_TOO_LARGE', `Content-Length ${contentLength} is over the declared size of ${state.size} bytes`);
        }
        if (contentLength !== undefined && contentLength < state.size) {
          throw new AppError('SIZE_MISMATCH', `Content-Length ${contentLength} is not the declared size of ${state.size} bytes`);
        }
        await storeInspected(
          this.blobs,
          blobKey,
          cmd.data.body,
          { mode: 'declared', mime: state.mime as never, size: state.size, checksum: state.checksum },
          {
            maxBytes: this.limits.maxFileBytes,
            timeoutMs: this.limits.receiveTimeoutMs,
            pace: { windowMs: this.limits.paceWindowMs, minBytes: this.limits.paceMinBytes, expectedBytes: state.size },
            yielded: slot.yielded,
            yieldError: () =>
              new AppError('UPLOAD_BUSY', 'the service gave this receive\'s place to another account waiting for one; send the file again later', {
                'Retry-After': String(this.limits.retryAfterSeconds),
              }),
          },
        );
      } catch (err) {
        const code = err instanceof ReceiveInterrupted ? null : err instanceof AppError ? err.code : null;
        await this.sessions
          .record(uploadId, { type: 'FailReceive', data: { receive_id: receiveId, error_code: code }, metadata: { now: this.clock.now() } })
          .catch((e: unknown) => this.logger.error(`could not record a failed content write of ${uploadId}: ${(e as Error).message}`));
        throw err;
      }
      try {
        const finished = await this.sessions.record(uploadId, { type: 'FinishReceive', data: { receive_id: receiveId }, metadata: { now: this.clock.now() } });
        return this.sessions.view(finished.state as Upload);
      } catch (err) {
        await this.blobs.delete(blobKey).catch(() => undefined);
        throw err;
      }
    } finally {
      slot.release();
    }
  }
}
