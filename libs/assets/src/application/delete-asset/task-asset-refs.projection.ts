import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { TASK_TERMINAL_EVENTS, type TaskIntegrationEvent } from '@gensvc/kernel';

/** Tasks that reference assets: `active` while the task has not ended (ASSET_IN_USE). */
export const TASK_ASSET_REFS = 'assets_task_refs';
export type TaskAssetRefDoc = {
  _id: string;
  account_id: string;
  asset_ids: string[];
  active: boolean;
} & Record<string, unknown>;

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
