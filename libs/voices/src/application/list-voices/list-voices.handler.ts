import { Injectable } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { ReadStore } from '@gensvc/event-sourcing';
import { voiceViewOfDoc, type VoicePage, type VoiceView } from '../voice-views';
import { VOICES, type VoiceDoc } from './voices.projection';

export interface ListVoicesQuery {
  readonly account_id: string;
  readonly page: number;
  readonly limit: number;
  /** Without a status: the active and deleting voices. */
  readonly status?: VoiceView['status'];
}

/** GET /v1/voices: the account's voices from the read model, newest first. */
@Injectable()
export class ListVoicesHandler {
  constructor(
    private readonly readStore: ReadStore,
    private readonly catalogue: Catalogue,
  ) {}

  async execute(query: ListVoicesQuery): Promise<VoicePage> {
    const filter = { account_id: query.account_id, status: query.status ?? { $in: ['active', 'deleting'] } };
    const docs = await this.readStore
      .collection<VoiceDoc & { _id: string }>(VOICES)
      .find(filter, { sort: { created_at: -1, _id: -1 }, skip: (query.page - 1) * query.limit, limit: query.limit + 1 });
    return {
      data: docs.slice(0, query.limit).map((d) => voiceViewOfDoc(this.catalogue, d)),
      page: query.page,
      limit: query.limit,
      has_more: docs.length > query.limit,
    };
  }
}
