import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, TASK_TERMINAL_EVENTS, type TaskIntegrationEvent, documentProjection } from '@gensvc/shared';
import { UPLOAD_EVENT_TYPES, uploadDecider, type Upload, type UploadEvent } from '../domain/upload';
import type { AssetEvent } from '../domain/asset';

/** Upload sessions by account: the session limit and the expiry job read it. */
export const UPLOADS = 'assets_uploads';
export type UploadDoc = Upload & { _id: string } & Record<string, unknown>;

/** Tasks that reference assets: `active` while the task has not ended (ASSET_IN_USE). */
export const TASK_ASSET_REFS = 'assets_task_refs';
export type TaskAssetRefDoc = {
  _id: string;
  account_id: string;
  asset_ids: string[];
  active: boolean;
} & Record<string, unknown>;

/** One document per upload: the upload's state, folded by the decider's own `evolve`. */
@AsProjection()
@Injectable()
export class UploadsProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Upload & Record<string, unknown>, UploadEvent>({
    name: 'assets.uploads',
    collection: UPLOADS,
    handles: UPLOAD_EVENT_TYPES,
    documentId: (e) => e.data.upload_id,
    indexes: [{ keys: { account_id: 1, status: 1 } }, { keys: { status: 1, expires_at: 1 } }],
    evolve(doc, e) {
      const next = uploadDecider.evolve(doc ?? uploadDecider.initialState(), e);
      return next.status === 'none' ? null : (next as Upload & Record<string, unknown>);
    },
  });
}

/** Which unfinished tasks read which assets (from the tasks context's integration events). */
@AsProjection()
@Injectable()
export class TaskAssetRefsProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Omit<TaskAssetRefDoc, '_id'>, TaskIntegrationEvent>({
    name: 'assets.task_refs',
    collection: TASK_ASSET_REFS,
    handles: ['TaskCreated', ...TASK_TERMINAL_EVENTS],
    documentId: (e) => e.data.task_id,
    indexes: [{ keys: { asset_ids: 1, active: 1 } }],
    evolve(doc, e) {
      if (e.type === 'TaskCreated') {
        if (!e.data.asset_ids?.length) return null;
        return { account_id: e.data.account_id, asset_ids: [...e.data.asset_ids], active: true };
      }
      return doc ? { ...doc, active: false } : null;
    },
  });
}

/** The account's assets for the list (GET /v1/assets); a deleted asset stays as `deleted` (never listed). */
export const ASSET_LIST = 'assets_list';
export type AssetListDoc = {
  _id: string;
  account_id: string;
  name: string;
  mime: string;
  size: number;
  checksum: string;
  created_at: string;
  source: string;
  task_id: string | null;
  status: 'active' | 'deleted';
} & Record<string, unknown>;

@AsProjection()
@Injectable()
export class AssetListProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Omit<AssetListDoc, '_id'>, AssetEvent>({
    name: 'assets.list',
    collection: ASSET_LIST,
    handles: ['AssetRegistered', 'AssetDeleted'],
    documentId: (e) => e.data.asset_id,
    indexes: [{ keys: { account_id: 1, status: 1, created_at: -1 } }],
    evolve(doc, e) {
      if (e.type === 'AssetRegistered') {
        if (doc) return doc;
        const f = e.data;
        return {
          account_id: f.account_id,
          name: f.name,
          mime: f.mime,
          size: f.size,
          checksum: f.checksum,
          created_at: f.created_at,
          source: f.source.kind,
          task_id: f.source.kind === 'task_output' ? f.source.task_id : null,
          status: 'active',
        };
      }
      return doc ? { ...doc, status: 'deleted' } : null;
    },
  });
}
