import { Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import { ReadStore } from '@gensvc/event-sourcing';
import { AssetLinks } from '../asset-links';
import type { AssetView } from '../asset-records';
import { ASSET_LIST, type AssetListDoc } from './asset-list.projection';

export interface ListAssetsQuery {
  readonly account_id: string;
  /** The request's query string: `page`, `limit`, `q` (others are refused). */
  readonly params: Record<string, unknown>;
}

export interface AssetListPage {
  data: (AssetView & { source: string; task_id: string | null })[];
  page: number;
  limit: number;
  has_more: boolean;
}

/** GET /v1/assets: the account's assets from the `assets_list` read model, newest first, with fresh links. */
@Injectable()
export class ListAssetsHandler {
  constructor(
    private readonly readStore: ReadStore,
    private readonly links: AssetLinks,
  ) {}

  async execute(query: ListAssetsQuery): Promise<AssetListPage> {
    const params = query.params;
    const int = (name: string, max: number, fallback: number): number => {
      const raw = params[name];
      if (raw === undefined) return fallback;
      if (typeof raw !== 'string' || !/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw new AppError('VALIDATION_ERROR', `${name}: must be an integer from 1 to ${max}`);
      return Number(raw);
    };
    for (const k of Object.keys(params)) if (!['page', 'limit', 'q'].includes(k)) throw new AppError('VALIDATION_ERROR', `${k}: unknown query parameter`);
    const page = int('page', 100000, 1);
    const limit = int('limit', 100, 30);
    const q = params.q;
    if (q !== undefined && (typeof q !== 'string' || q.length > 200)) throw new AppError('VALIDATION_ERROR', 'q: must be a string of at most 200 characters');
    const filter: Record<string, unknown> = { account_id: query.account_id, status: 'active' };
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
}
