import { Injectable } from '@nestjs/common';
import { EventStore, ReadStore, SubscriptionEngine, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { type Command } from '@gensvc/kernel';
import { hashSecret, parseCredential } from '../../domain/credentials';
import { OAuthGrantError, oauthGrantDecider } from '../../domain/oauth-grant';
import { oauthGrantStream } from '../identity-streams';
import { ACCESS_TOKENS, type AccessTokenDoc } from '../read-models';

/** POST /revoke (RFC 7009) for the authenticated client: the token as sent. */
export type RevokeTokenCommand = Command<'RevokeToken', { readonly client_id: string; readonly token: unknown }>;

const notThisClients = (): OAuthGrantError => new OAuthGrantError('unauthorized_client', 'the token was not issued to this client');

/**
 * Revokes an access token (that token: OAuthAccessTokenRevoked) or a refresh token (the
 * whole grant: OAuthGrantRevoked). Unknown tokens are ignored (the answer is the same); a
 * token issued to another client is refused with `unauthorized_client` and stays valid
 * (RFC 7009 §2.1).
 */
@Injectable()
export class RevokeTokenHandler {
  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
  ) {}

  async execute(cmd: RevokeTokenCommand): Promise<void> {
    const { client_id: clientId } = cmd.data;
    const parsed = parseCredential(cmd.data.token);
    if (!parsed) return;
    const token = cmd.data.token as string;
    if (parsed.kind === 'gsa') {
      const doc = await this.readStore.collection<AccessTokenDoc>(ACCESS_TOKENS).findOne({ _id: `at_${parsed.id}` });
      if (!doc || doc.secret_hash !== hashSecret(token)) return;
      if (doc.client_id !== clientId) throw notThisClients();
      const r = await handleCommand(this.events, oauthGrantStream(doc.grant_id), oauthGrantDecider, { type: 'RevokeAccessToken', data: { access_token_id: doc._id }, metadata: cmd.metadata });
      await this.settled(r.position);
      return;
    }
    if (parsed.kind === 'gsr') {
      const hash = hashSecret(token);
      const stream = oauthGrantStream(`grant_${parsed.id}`);
      const { state } = await loadAggregate(this.events, stream, oauthGrantDecider);
      if (state.status === 'none') return;
      if (state.refreshHash !== hash && !state.rotatedRefreshHashes.includes(hash)) return;
      if (state.clientId !== clientId) throw notThisClients();
      const r = await handleCommand(this.events, stream, oauthGrantDecider, { type: 'RevokeGrant', data: { reason: 'revoked_by_client' }, metadata: cmd.metadata });
      await this.settled(r.position);
    }
  }

  /**
   * Answers once the read models show the revocation (authentication reads them), so the
   * token is refused from the answer on. When they lag, ProjectionLagError answers 503 with
   * Retry-After (RFC 7009 §2.2.1: the client assumes the token still exists and retries); the
   * revocation is stored, and the retry, which appends nothing, waits for everything stored.
   */
  private async settled(position: bigint | undefined): Promise<void> {
    await this.engine.waitFor(position ?? (await this.events.headPosition()));
  }
}
