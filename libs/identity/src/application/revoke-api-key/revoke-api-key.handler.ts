import { Injectable } from '@nestjs/common';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { type Command } from '@gensvc/kernel';
import { apiKeyDecider } from '../../domain/api-key';
import { apiKeyStream } from '../identity-streams';

export type RevokeApiKeyCommand = Command<'RevokeApiKey', { readonly key_id: string }>;

/** ApiKeyRevoked: DELETE /v1/api-keys/{id} and `api-key revoke`. Repeating it is harmless. */
@Injectable()
export class RevokeApiKeyHandler {
  constructor(private readonly events: EventStore) {}

  async execute(cmd: RevokeApiKeyCommand): Promise<{ keyId: string; revoked: true; position?: bigint }> {
    const keyId = cmd.data.key_id;
    const result = await handleCommand(this.events, apiKeyStream(String(keyId)), apiKeyDecider, { type: 'RevokeApiKey', data: { key_id: keyId }, metadata: cmd.metadata });
    return { keyId, revoked: true, position: result.position };
  }
}
