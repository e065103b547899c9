import { Injectable } from '@nestjs/common';
import { AppConfig, Clock, EventStore, handleCommand, loadAggregate, newId, newSecret, streamName } from '@gensvc/shared';
import { hashSecret, secretMatches } from '../../domain/credentials';
import { oauthClientDecider, type OAuthClientState } from '../../domain/oauth-client';
import { CONSOLE_CLIENT_ID, consoleClient } from '../console-client';

export type OAuthClient = Extract<OAuthClientState, { status: 'active' }>;

export const oauthClientStream = (clientId: string) => streamName('oauthclient', clientId);

/** OAuth client registration (admin CLI) and lookup (authorize and token endpoints read the stream: always current). */
@Injectable()
export class OAuthClientsService {
  constructor(
    private readonly events: EventStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async register(input: { name: string; redirectUri: string; public: boolean }): Promise<{ clientId: string; clientSecret: string | null; position: bigint }> {
    const clientId = newId('client');
    const clientSecret = input.public ? null : newSecret('gcs_');
    const result = await handleCommand(this.events, oauthClientStream(clientId), oauthClientDecider, { type: 'RegisterOAuthClient', data: { client_id: clientId, name: input.name, redirect_uri: input.redirectUri, public: input.public, secret_hash: clientSecret ? hashSecret(clientSecret) : null }, metadata: { now: this.clock.now() } });
    return { clientId, clientSecret, position: result.position! };
  }

  async find(clientId: unknown): Promise<OAuthClient | null> {
    if (typeof clientId !== 'string' || !/^client_[0-9a-z]{10,40}$/.test(clientId)) return null;
    if (clientId === CONSOLE_CLIENT_ID) return consoleClient(this.config.publicBaseUrl);
    const { state } = await loadAggregate(this.events, oauthClientStream(clientId), oauthClientDecider);
    return state.status === 'active' ? state : null;
  }

  /** Confidential clients must present their secret; public clients must not claim one. */
  authenticates(client: OAuthClient, secret: string | undefined): boolean {
    if (client.public) return secret === undefined || secret === '';
    return typeof secret === 'string' && secretMatches(secret, client.secretHash);
  }
}
