import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AppConfig,
  AppError,
  BlobNotFoundError,
  BlobStore,
  Clock,
  EventStore,
  KeyedLock,
  LeaseBusyError,
  LeaseStore,
  ReadStore,
  SubscriptionEngine,
  handleCommand,
  loadAggregate,
  newId,
  streamName,
  withLease,
  type Principal,
} from '@gensvc/shared';
import { UploadTokens } from '@gensvc/identity/contracts';
import { checkFileName } from '../../domain/file-name';
import { UploadLimits } from '../../domain/limits';
import { ACCEPTED_MIMES, isAcceptedMime, parseContentType } from '../../domain/media-types';
import { UPLOAD_STREAM, effectiveStatus, uploadDecider, type Upload, type UploadCommand, type UploadState, type UploadStatus } from '../../domain/upload';
import { AssetRecords, type AssetView } from '../asset-records';
import { UPLOADS, type UploadDoc } from '../uploads.projection';
import { loadFileType } from '../content-inspector';
import { ReceiveInterrupted, storeInspected } from '../store-inspected';
import { ReceiveSlots } from '../receive-slots';

export interface PrepareUploadInput {
  readonly name: string;
  readonly mime: string;
  readonly size: number;
  readonly checksum: string;
  readonly idempotency_key: string;
}

/** The Upload object of the spec, exactly its fields. */
export interface UploadView {
  upload_id: string;
  status: UploadStatus;
  name: string;
  mime: string;
  size: number;
  checksum: string;
  expires_at: string;
  asset_id: string | null;
  error_code: string | null;
  upload?: { url: string; method: 'PUT'; headers: Record<string, string> };
  asset?: AssetView;
}

/** What a content write reads from the HTTP request. */
export interface ContentRequest {
  readonly body: Readable;
  readonly contentType: string | undefined;
  readonly contentLength: number | undefined;
}

const OPEN: readonly UploadStatus[] = ['prepared', 'uploading', 'uploaded'];

/** Upload id for (account, idempotency_key): a repeat of prepare lands on the same stream. */
export function uploadIdFor(accountId: string, idempotencyKey: string): string {
  return `up_${createHash('sha256').update(`upload\n${accountId}\n${idempotencyKey}`).digest('hex').slice(0, 32)}`;
}

/**
 * Prepared uploads: prepare, content write (PUT), complete, status read. The spec's
 * "Upload" state table and Uploads rules 1–11.
 */
@Injectable()
export class UploadsService implements OnModuleInit {
  private readonly logger = new Logger('Uploads');
  /** Per account: the session count and the prepare run one at a time. */
  private readonly accountLocks = new KeyedLock();

  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly limits: UploadLimits,
    private readonly slots: ReceiveSlots,
    private readonly tokens: UploadTokens,
    private readonly assets: AssetRecords,
    private readonly config: AppConfig,
    private readonly leases: LeaseStore,
  ) {}

  /** Loads the file-type recogniser at start: a broken install fails the start, not an upload. */
  async onModuleInit(): Promise<void> {
    await loadFileType();
  }

  async prepare(principal: Principal, input: PrepareUploadInput): Promise<UploadView> {
    checkFileName(input.name, 'name');
    if (!isAcceptedMime(input.mime)) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `mime: ${input.mime} is not accepted; use one of ${ACCEPTED_MIMES.join(', ')}`);
    }
    if (input.size > this.limits.maxFileBytes) throw new AppError('PAYLOAD_TOO_LARGE', `size: at most ${this.limits.maxFileBytes} bytes`);
    const uploadId = uploadIdFor(principal.accountId, input.idempotency_key);
    const stream = streamName(UPLOAD_STREAM, uploadId);
    // The unfinished-uploads limit holds across processes: the count and the new session's
    // append happen under the account's prepare lease, after this process's read model caught
    // up with everything any process stored, so two processes cannot both take the last place.
    const prepareOnce = async () => {
      const now = this.clock.now();
      const current = await loadAggregate(this.events, stream, uploadDecider);
      if (current.state.status === 'none') {
        await this.engine.waitFor(await this.events.headPosition());
        await this.checkSessionLimit(principal.accountId, now);
      }
      const result = await handleCommand(this.events, stream, uploadDecider, { type: 'PrepareUpload', data: { ...input, upload_id: uploadId, account_id: principal.accountId, connection_id: principal.connectionId, validity_ms: this.limits.uploadValidityMs }, metadata: { now } });
      await this.engine.waitFor(result.position);
      return result.state as Upload;
    };
    const state = await this.accountLocks.run(principal.accountId, () =>
      withLease(this.leases, `upload-prepare:${principal.accountId}`, prepareOnce, { ttlMs: 15_000, waitMs: 10_000 }).catch((err: unknown) => {
        if (err instanceof LeaseBusyError) throw new AppError('UPLOAD_BUSY', 'another upload of this account is being prepared; try again', { 'Retry-After': '1' });
        throw err;
      }),
    );
    const view = await this.view(state);
    if (OPEN.includes(view.status)) {
      const token = await this.tokens.issue({
        accountId: state.account_id,
        connectionId: principal.connectionId,
        uploadId,
        expiresAt: new Date(state.expires_at),
      });
      view.upload = {
        url: `${this.config.publicBaseUrl}/v1/uploads/${uploadId}/content`,
        method: 'PUT',
        headers: { 'X-Upload-Token': token, 'Content-Type': state.mime },
      };
    }
    return view;
  }

  async get(accountId: string, uploadId: string): Promise<UploadView> {
    return this.view(await this.owned(accountId, uploadId));
  }

  /** PUT /v1/uploads/{id}/content: streams, checks and stores the file. */
  async receive(principal: Principal, uploadId: string, request: ContentRequest): Promise<UploadView> {
    if (principal.kind !== 'upload_token' || principal.uploadId !== uploadId) {
      throw new AppError('UNAUTHORIZED', 'a valid X-Upload-Token for this upload is required');
    }
    const state = await this.owned(principal.accountId, uploadId);
    const status = effectiveStatus(state, this.clock.now());
    if (status === 'completed') return this.view(state);
    if (status === 'expired') throw new AppError('UPLOAD_EXPIRED', `the upload expired at ${state.expires_at}; prepare again with a new idempotency_key`);
    if (status === 'uploading') throw new AppError('UPLOAD_IN_PROGRESS', `the upload's content is being received; query the upload later`);
    const type = parseContentType(request.contentType);
    const charset = type?.params.charset?.toLowerCase();
    if (!type || type.essence !== state.mime || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${state.mime}, the MIME the upload was prepared with`);
    }

    const release = await this.slots.acquire(principal.accountId);
    try {
      const receiveId = randomUUID().replace(/-/g, '');
      const blobKey = `uploads/${uploadId}/${receiveId}`;
      const started = await this.command(uploadId, { type: 'StartReceive', data: { receive_id: receiveId, blob_key: blobKey, receive_timeout_ms: this.limits.receiveTimeoutMs }, metadata: { now: this.clock.now() } });
      if (!started.events.length) return this.view(started.state as Upload); // completed meanwhile
      try {
        if (request.contentLength !== undefined && request.contentLength > Math.min(state.size, this.limits.maxFileBytes)) {
          throw new AppError('PAYLOAD_TOO_LARGE', `Content-Length ${request.contentLength} is over the declared size of ${state.size} bytes`);
        }
        if (request.contentLength !== undefined && request.contentLength < state.size) {
          throw new AppError('SIZE_MISMATCH', `Content-Length ${request.contentLength} is not the declared size of ${state.size} bytes`);
        }
        await storeInspected(
          this.blobs,
          blobKey,
          request.body,
          { mode: 'declared', mime: state.mime as never, size: state.size, checksum: state.checksum },
          { maxBytes: this.limits.maxFileBytes, timeoutMs: this.limits.receiveTimeoutMs },
        );
      } catch (err) {
        const code = err instanceof ReceiveInterrupted ? null : err instanceof AppError ? err.code : null;
        await this.command(uploadId, { type: 'FailReceive', data: { receive_id: receiveId, error_code: code }, metadata: { now: this.clock.now() } }).catch(
          (e: unknown) => this.logger.error(`could not record a failed content write of ${uploadId}: ${(e as Error).message}`),
        );
        throw err;
      }
      try {
        const finished = await this.command(uploadId, { type: 'FinishReceive', data: { receive_id: receiveId }, metadata: { now: this.clock.now() } });
        return this.view(finished.state as Upload);
      } catch (err) {
        await this.blobs.delete(blobKey).catch(() => undefined);
        throw err;
      }
    } finally {
      release();
    }
  }

  /** POST /v1/uploads/{id}/complete: rereads the stored object, then registers one asset. */
  async complete(accountId: string, uploadId: string): Promise<UploadView> {
    const state = await this.owned(accountId, uploadId);
    if (state.status === 'completed') {
      await this.registerAsset(state);
      return this.view(state);
    }
    const status = effectiveStatus(state, this.clock.now());
    if (status === 'expired') throw new AppError('UPLOAD_EXPIRED', `the upload expired at ${state.expires_at}; prepare again with a new idempotency_key`);
    if (status === 'uploading') throw new AppError('UPLOAD_IN_PROGRESS', `the upload's content is being received; query the upload later`);
    if (status === 'prepared' || !state.blob_key) throw new AppError('UPLOAD_NOT_READY', 'the upload has no content yet; PUT the file first');
    const intact = await this.storedIntact(state.blob_key, state.size, state.checksum);
    const result = await this.command(uploadId, { type: 'CompleteUpload', data: { blob_key: state.blob_key, intact, asset_id: newId('ast') }, metadata: { now: this.clock.now() } });
    if (result.events.some((e) => e.type === 'UploadContentMismatched')) {
      throw new AppError('UPLOAD_CONTENT_MISMATCH', 'the stored content is lost or damaged; the upload is prepared again: send the file again');
    }
    const final = result.state as Upload;
    if (final.status === 'completed') await this.registerAsset(final);
    return this.view(final);
  }

  /** The Upload object: effective status, and the asset while it exists. */
  async view(state: Upload): Promise<UploadView> {
    const view: UploadView = {
      upload_id: state.upload_id,
      status: effectiveStatus(state, this.clock.now()),
      name: state.name,
      mime: state.mime,
      size: state.size,
      checksum: state.checksum,
      expires_at: state.expires_at,
      asset_id: state.asset_id,
      error_code: state.error_code,
    };
    if (state.asset_id) {
      const asset = await this.assets.findActive(state.account_id, state.asset_id);
      if (asset) view.asset = this.assets.view(asset);
    }
    return view;
  }

  /** Marks unfinished uploads past their validity as expired (the background job). */
  async expireDue(): Promise<number> {
    const now = this.clock.now();
    const due = await this.readStore
      .collection<UploadDoc>(UPLOADS)
      .find({ status: { $in: [...OPEN] }, expires_at: { $lte: now.toISOString() } }, { limit: 500 });
    let expired = 0;
    for (const doc of due) {
      const r = await this.command(doc.upload_id, { type: 'ExpireUpload', data: {}, metadata: { now } });
      expired += r.events.length ? 1 : 0;
    }
    return expired;
  }

  private async checkSessionLimit(accountId: string, now: Date): Promise<void> {
    const open = await this.readStore
      .collection<UploadDoc>(UPLOADS)
      .find({ account_id: accountId, status: { $in: [...OPEN] }, expires_at: { $gt: now.toISOString() } }, { sort: { expires_at: 1 } });
    if (open.length < this.limits.maxIncompleteSessions) return;
    const retryAfter = Math.max(1, Math.ceil((Date.parse(open[0].expires_at) - now.getTime()) / 1000));
    throw new AppError(
      'UPLOAD_LIMIT_REACHED',
      `this account has ${open.length} unfinished uploads (at most ${this.limits.maxIncompleteSessions}); complete them or wait until they expire`,
      { 'Retry-After': String(retryAfter) },
    );
  }

  private async owned(accountId: string, uploadId: string): Promise<Upload> {
    if (typeof uploadId !== 'string' || !/^up_[a-z0-9]{1,64}$/.test(uploadId)) throw new AppError('NOT_FOUND', 'upload not found');
    const { state } = await loadAggregate(this.events, streamName(UPLOAD_STREAM, uploadId), uploadDecider);
    if (state.status === 'none' || state.account_id !== accountId) throw new AppError('NOT_FOUND', 'upload not found');
    return state;
  }

  private async command(uploadId: string, command: UploadCommand) {
    const result = await handleCommand(this.events, streamName(UPLOAD_STREAM, uploadId), uploadDecider, command);
    await this.engine.waitFor(result.position);
    return result;
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
    await this.assets.register({
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
