import { Injectable } from '@nestjs/common';
import { AppConfig } from '@gensvc/config';
import { EventStore, loadAggregate } from '@gensvc/event-sourcing';
import { secretMatches } from '../../domain/credentials';
import { oauthClientDecider, type OAuthClientState } from '../../domain/oauth-client';
import { CONSOLE_CLIENT_ID, consoleClient } from '../console-client';
import { oauthClientStream } from '../identity-streams';

export type OAuthClient = Extract<OAuthClientState, { status: 'active' }>;

export interface FindOAuthClientQuery {
  readonly client_id: unknown;
}

/**
 * An active OAuth client by id, or null: the authorize and token endpoints read its stream
 * (always current); the console's built-in client comes from the configuration.
 */
@Injectable()
export class FindOAuthClientHandler {
  constructor(
    private readonly events: EventStore,
    private readonly config: AppConfig,
  ) {}

  async execute(query: FindOAuthClientQuery): Promise<OAuthClient | null> {
    const clientId = query.client_id;
    if (typeof clientId !== 'string' || !/^client_[0-9a-z]{10,40}$/.test(clientId)) return null;
    if (clientId === CONSOLE_CLIENT_ID) return consoleClient(this.config.publicBaseUrl);
    const { state } = await loadAggregate(this.events, oauthClientStream(clientId), oauthClientDecider);
    return state.status === 'active' ? state : null;
  }
}

/** Confidential clients must present their secret; public clients must not claim one. */
export function clientAuthenticates(client: OAuthClient, secret: string | undefined): boolean {
  if (client.public) return secret === undefined || secret === '';
  return typeof secret === 'string' && secretMatches(secret, client.secretHash);
}
