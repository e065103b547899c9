import { Injectable } from '@nestjs/common';
import { AppError, streamName, type Command } from '@gensvc/kernel';
import { EventStore, ReadStore, SubscriptionEngine, caughtUp, handleCommand } from '@gensvc/event-sourcing';
import { ASSET_STREAM, assetDecider } from '../../domain/asset';
import { AssetRecords } from '../asset-records';
import { TASK_ASSET_REFS, type TaskAssetRefDoc } from './task-asset-refs.projection';

/** DELETE /v1/assets/{id}. */
export type DeleteAssetCommand = Command<'DeleteAsset', { readonly account_id: string; readonly asset_id: string }>;

export interface DeleteResult {
  id: string;
  deleted: true;
  deleted_at: string;
}

/**
 * Deletes the caller's asset: unreadable and unreferenceable at once; refused with
 * ASSET_IN_USE while an unfinished task reads it (`assets_task_refs`, read once it has seen
 * every event stored before the request). The bytes are removed by the storage cleanup reactor.
 */
@Injectable()
export class DeleteAssetHandler {
  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly records: AssetRecords,
  ) {}

  async execute(cmd: DeleteAssetCommand): Promise<DeleteResult> {
    const { account_id: accountId, asset_id: assetId } = cmd.data;
    const state = await this.records.load(assetId);
    if (state.status === 'none' || state.account_id !== accountId) throw new AppError('NOT_FOUND', 'asset not found');
    // The task references must have seen every task created so far (a task created just now
    // with this asset makes it in use); when they do not catch up in time the request is
    // refused (503, nothing is stored) rather than decided on them.
    if (state.status === 'active' && !(await caughtUp(this.engine.waitFor(await this.events.headPosition())))) {
      throw new AppError('SERVICE_UNAVAILABLE', "the asset's task references are being brought up to date; nothing was changed; try again", { 'Retry-After': '1' });
    }
    const inUse = (await this.readStore.collection<TaskAssetRefDoc>(TASK_ASSET_REFS).count({ asset_ids: assetId, active: true })) > 0;
    const result = await handleCommand(this.events, streamName(ASSET_STREAM, assetId), assetDecider, {
      type: 'DeleteAsset',
      data: { account_id: accountId, in_use: inUse },
      metadata: { now: cmd.metadata.now },
    });
    // Reads of assets go to their streams, so the delete is effective at once; the answer is
    // the command's own result, and a lag of the read models (ProjectionLagError) does not fail it.
    await caughtUp(this.engine.waitFor(result.position));
    if (result.state.status !== 'deleted') throw new AppError('INTERNAL', 'asset was not deleted');
    return { id: assetId, deleted: true, deleted_at: result.state.deleted_at };
  }
}
