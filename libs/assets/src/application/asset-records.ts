import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { EventStore, SubscriptionEngine, caughtUp, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { streamName } from '@gensvc/kernel';
import { ASSET_STREAM, assetDecider, type AssetFacts, type AssetState } from '../domain/asset';
import { AssetLinks } from './asset-links';

export type ActiveAsset = Extract<AssetState, { status: 'active' }>;

/** The asset object of CONTRACT §6, with fresh signed links. */
export interface AssetView {
  id: string;
  name: string;
  mime: string;
  size: number;
  checksum: string;
  created_at: string;
  url: string;
  download_url: string;
  download_name: string;
  links_expire_at: string;
}

/** Asset id of a task output: derived from (task, index), so a repeat finds the same asset. */
export function outputAssetId(taskId: string, index: number): string {
  return `ast_${createHash('sha256').update(`task-output\n${taskId}\n${index}`).digest('hex').slice(0, 32)}`;
}

/**
 * Reads and registers assets on their streams. Reads go to the event store (not a read
 * model), so a delete is effective at once for every reader, in every process.
 */
@Injectable()
export class AssetRecords {
  constructor(
    private readonly events: EventStore,
    private readonly engine: SubscriptionEngine,
    private readonly links: AssetLinks,
  ) {}

  async load(assetId: string): Promise<AssetState> {
    if (typeof assetId !== 'string' || !/^ast_[a-z0-9]{1,64}$/.test(assetId)) return { status: 'none' };
    return (await loadAggregate(this.events, streamName(ASSET_STREAM, assetId), assetDecider)).state;
  }

  /** The account's readable asset, or null (unknown, foreign or deleted). */
  async findActive(accountId: string | null, assetId: string): Promise<ActiveAsset | null> {
    const state = await this.load(assetId);
    if (state.status !== 'active') return null;
    if (accountId !== null && state.account_id !== accountId) return null;
    return state;
  }

  /**
   * Registers once (a repeat, or an asset deleted meanwhile, stays as it is), and waits until
   * the read models list it. The asset is readable from its stream at once, so a lag of the
   * read models (ProjectionLagError) does not fail the registration.
   */
  async register(facts: AssetFacts): Promise<AssetState> {
    const result = await handleCommand(this.events, streamName(ASSET_STREAM, facts.asset_id), assetDecider, { type: 'RegisterAsset', data: facts, metadata: { now: new Date(facts.created_at) } });
    await caughtUp(this.engine.waitFor(result.position));
    return result.state;
  }

  view(asset: ActiveAsset): AssetView {
    const links = this.links.issue(asset.asset_id);
    return {
      id: asset.asset_id,
      name: asset.name,
      mime: asset.mime,
      size: asset.size,
      checksum: asset.checksum,
      created_at: asset.created_at,
      url: links.url,
      download_url: links.download_url,
      download_name: asset.name,
      links_expire_at: links.links_expire_at,
    };
  }
}
