import { Injectable } from '@nestjs/common';
import { ReadStore } from '@gensvc/event-sourcing';
import { apiKeyView, type ApiKeyView } from '../get-api-key/get-api-key.handler';
import { API_KEYS, type ApiKeyDoc } from '../read-models';

export interface ListApiKeysQuery {
  readonly account_id: string;
  readonly page: number;
  readonly limit: number;
}

export interface ApiKeyPage {
  data: ApiKeyView[];
  page: number;
  limit: number;
  has_more: boolean;
}

/** GET /v1/api-keys: the account's keys from the API keys read model, newest first. */
@Injectable()
export class ListApiKeysHandler {
  constructor(private readonly readStore: ReadStore) {}

  async execute(query: ListApiKeysQuery): Promise<ApiKeyPage> {
    const { page, limit } = query;
    const docs = await this.readStore
      .collection<ApiKeyDoc>(API_KEYS)
      .find({ account_id: query.account_id }, { sort: { issued_at: -1, _id: -1 }, skip: (page - 1) * limit, limit: limit + 1 });
    return { data: docs.slice(0, limit).map(apiKeyView), page, limit, has_more: docs.length > limit };
  }
}
