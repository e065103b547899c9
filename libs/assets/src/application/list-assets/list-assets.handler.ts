import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppError, BlobStore, Clock, EventStore, ReadStore, SubscriptionEngine, handleCommand, newId, streamName } from '@gensvc/shared';
import { ASSET_STREAM, assetDecider, type AssetSource } from '../../domain/asset';
import { decodeFileNameHeader } from '../../domain/file-name';
import { UploadLimits } from '../../domain/limits';
import { acceptedContentType } from '../../domain/media-types';
import { ASSET_LIST, TASK_ASSET_REFS, type AssetListDoc, type TaskAssetRefDoc } from '../uploads.projection';
import { AssetLinks } from '../asset-links';
import type { InspectionTarget } from '../content-inspector';
import { storeInspected } from '../store-inspected';
import { ReceiveSlots } from '../receive-slots';
import { AssetRecords, type AssetView } from '../asset-records';

export interface DeleteResult {
  id: string;
  deleted: true;
  deleted_at: string;
}

/** Asset reads, deletes and the one-step ways in (direct upload; import uses `ingest`). */
@Injectable()
export class AssetsService {
  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly limits: UploadLimits,
    private readonly slots: ReceiveSlots,
    private readonly records: AssetRecords,
    private readonly links: AssetLinks,
  ) {}

  /** The account's assets, newest first, with fresh links (GET /v1/assets). */
  async list(accountId: string, query: Record<string, unknown>): Promise<{ data: (AssetView & { source: string; task_id: string | null })[]; page: number; limit: number; has_more: boolean }> {
    const int = (name: string, max: number, fallback: number): number => {
      const raw = query[name];
      if (raw === undefined) return fallback;
      if (typeof raw !== 'string' || !/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw new AppError('VALIDATION_ERROR', `${name}: must be an integer from 1 to ${max}`);
      return Number(raw);
    };
    for (const k of Object.keys(query)) if (!['page', 'limit', 'q'].includes(k)) throw new AppError('VALIDATION_ERROR', `${k}: unknown query parameter`);
    const page = int('page', 100000, 1);
    const limit = int('limit', 100, 30);
    const q = query.q;
    if (q !== undefined && (typeof q !== 'string' || q.length > 200)) throw new AppError('VALIDATION_ERROR', 'q: must be a string of at most 200 characters');
    const filter: Record<string, unknown> = { account_id: accountId, status: 'active' };
    if (q) filter.name = { $regex: q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' };
    const docs = await this.readStore.collection<AssetListDoc>(ASSET_LIST).find(filter, { sort: { created_at: -1, _id: -1 }, skip: (page - 1) * limit, limit: limit + 1 });
    const data = docs.slice(0, limit).map((d) => {
      const links = this.links.issue(d._id);
      return {
        id: d._id,
        name: d.name,
        mime: d.mime,
        size: d.size,
        checksum: d.checksum,
        created_at: d.created_at,
        url: links.url,
        download_url: links.download_url,
        download_name: d.name,
        links_expire_at: links.links_expire_at,
        source: d.source,
        task_id: d.task_id,
      };
    });
    return { data, page, limit, has_more: docs.length > limit };
  }

  async get(accountId: string, assetId: string): Promise<AssetView> {
    const asset = await this.records.findActive(accountId, assetId);
    if (!asset) throw new AppError('NOT_FOUND', 'asset not found');
    return this.records.view(asset);
  }

  /** DELETE: unreadable and unreferenceable at once; the bytes are removed by the cleanup reactor. */
  async delete(accountId: string, assetId: string): Promise<DeleteResult> {
    const inUse = (await this.readStore.collection<TaskAssetRefDoc>(TASK_ASSET_REFS).count({ asset_ids: assetId, active: true })) > 0;
    const state = await this.records.load(assetId);
    if (state.status === 'none' || state.account_id !== accountId) throw new AppError('NOT_FOUND', 'asset not found');
    const result = await handleCommand(this.events, streamName(ASSET_STREAM, assetId), assetDecider, { type: 'DeleteAsset', data: { account_id: accountId, in_use: inUse }, metadata: { now: this.clock.now() } });
    await this.engine.waitFor(result.position);
    if (result.state.status !== 'deleted') throw new AppError('INTERNAL', 'asset was not deleted');
    return { id: assetId, deleted: true, deleted_at: result.state.deleted_at };
  }

  /** POST /v1/uploads: raw bytes with Content-Type and X-Filename, checked, one asset (201). */
  async directUpload(
    accountId: string,
    request: { body: Readable; contentType: string | undefined; contentLength: number | undefined; fileName: string | string[] | undefined },
  ): Promise<AssetView> {
    const mime = acceptedContentType(request.contentType);
    const name = decodeFileNameHeader(request.fileName);
    if (request.contentLength !== undefined && request.contentLength > this.limits.maxFileBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `the file is larger than ${this.limits.maxFileBytes} bytes`);
    }
    const release = await this.slots.acquire(accountId);
    try {
      return await this.ingest(accountId, name, request.body, { mode: 'declared', mime }, { kind: 'direct' });
    } finally {
      release();
    }
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
