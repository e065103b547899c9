import { Injectable } from '@nestjs/common';
import { ReadStore } from '@gensvc/event-sourcing';
import { API_KEYS, type ApiKeyDoc } from '../read-models';

/** An API key as the console lists it (the secret is never stored, so never shown again). */
export interface ApiKeyView {
  id: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

export const apiKeyView = (d: ApiKeyDoc): ApiKeyView => ({ id: d._id, status: d.status, created_at: d.issued_at, revoked_at: d.revoked_at });

export interface GetApiKeyQuery {
  /** Only this account's key is found. */
  readonly account_id: string;
  readonly key_id: string;
}

/** One API key of the account from the API keys read model, or null (unknown, malformed id, another account's). */
@Injectable()
export class GetApiKeyHandler {
  constructor(private readonly readStore: ReadStore) {}

  async execute(query: GetApiKeyQuery): Promise<ApiKeyView | null> {
    const id = query.key_id;
    const doc = typeof id === 'string' && /^key_[0-9a-z]{10,40}$/i.test(id) ? await this.readStore.collection<ApiKeyDoc>(API_KEYS).findOne({ _id: id }) : null;
    return doc && doc.account_id === query.account_id ? apiKeyView(doc) : null;
  }
}
