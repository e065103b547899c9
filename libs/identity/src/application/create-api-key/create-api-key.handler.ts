import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppError, newId, type Command } from '@gensvc/kernel';
import { EventStore, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { accountDecider } from '../../domain/account';
import { apiKeyDecider } from '../../domain/api-key';
import { formatCredential, hashSecret, idBody } from '../../domain/credentials';
import { accountStream, apiKeyStream } from '../identity-streams';

/** Issues another API key for an existing, active account. */
export type CreateApiKeyCommand = Command<'CreateApiKey', { readonly account_id: string }>;

export interface IssuedApiKey {
  readonly keyId: string;
  /** Shown once; only its hash is stored. */
  readonly apiKey: string;
  readonly position: bigint;
}

/** ApiKeyIssued on `apikey-<key_id>`: POST /v1/api-keys and `api-key create`; NOT_FOUND for an account that is not active. */
@Injectable()
export class CreateApiKeyHandler {
  constructor(private readonly events: EventStore) {}

  async execute(cmd: CreateApiKeyCommand): Promise<IssuedApiKey> {
    const accountId = cmd.data.account_id;
    const { state } = await loadAggregate(this.events, accountStream(String(accountId)), accountDecider);
    if (state.status !== 'active') throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    return this.issue(accountId, cmd.metadata);
  }

  /** The key itself, for an account known to be active (also the first key of a new account). */
  async issue(accountId: string, metadata: CreateApiKeyCommand['metadata']): Promise<IssuedApiKey> {
    const keyId = newId('key');
    const apiKey = formatCredential('gsk', idBody(keyId), randomBytes(32).toString('base64url'));
    const result = await handleCommand(this.events, apiKeyStream(keyId), apiKeyDecider, { type: 'IssueApiKey', data: { key_id: keyId, account_id: accountId, secret_hash: hashSecret(apiKey) }, metadata });
    return { keyId, apiKey, position: result.position! };
  }
}
