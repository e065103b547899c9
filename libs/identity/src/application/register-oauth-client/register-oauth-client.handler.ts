import { Injectable } from '@nestjs/common';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { newId, newSecret, type Command } from '@gensvc/kernel';
import { hashSecret } from '../../domain/credentials';
import { oauthClientDecider } from '../../domain/oauth-client';
import { oauthClientStream } from '../identity-streams';

/** `oauth-client create` of the admin CLI: a confidential client gets a secret, a public one none. */
export type RegisterOAuthClientCommand = Command<'RegisterOAuthClient', { readonly name: string; readonly redirect_uri: string; readonly public: boolean }>;

/** OAuthClientRegistered on `oauthclient-<client_id>`; the secret is shown once, only its hash is stored. */
@Injectable()
export class RegisterOAuthClientHandler {
  constructor(private readonly events: EventStore) {}

  async execute(cmd: RegisterOAuthClientCommand): Promise<{ clientId: string; clientSecret: string | null; position: bigint }> {
    const { name, redirect_uri: redirectUri, public: isPublic } = cmd.data;
    const clientId = newId('client');
    const clientSecret = isPublic ? null : newSecret('gcs_');
    const result = await handleCommand(this.events, oauthClientStream(clientId), oauthClientDecider, {
      type: 'RegisterOAuthClient',
      data: { client_id: clientId, name, redirect_uri: redirectUri, public: isPublic, secret_hash: clientSecret ? hashSecret(clientSecret) : null },
      metadata: cmd.metadata,
    });
    return { clientId, clientSecret, position: result.position! };
  }
}
