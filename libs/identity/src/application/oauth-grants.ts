import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppConfig, Clock, EventStore, ReadStore, SubscriptionEngine, handleCommand, newId, streamName } from '@gensvc/shared';
import { formatCredential, hashSecret, idBody, parseCredential } from '../domain/credentials';
import { OAuthGrantError, oauthGrantDecider, type NewTokens, type OAuthGrantCommand, type OAuthGrantEvent, type RevokeReason } from '../domain/oauth-grant';
import type { OAuthClient } from './find-oauth-client/find-oauth-client.handler';
import { ACCESS_TOKENS, type AccessTokenDoc } from './read-models';

export const oauthGrantStream = (grantId: string) => streamName('oauthgrant', grantId);

/** Authorization codes live one minute (RFC 6749 recommends at most ten). */
export const CODE_TTL_MS = 60_000;
/** Refresh tokens rotate on every use and lapse after 30 days without use. */
export const REFRESH_TTL_MS = 30 * 24 * 3600_000;

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: string;
}

const secret = () => randomBytes(32).toString('base64url');

/** The OAuth grant use cases behind the authorize, token and revoke endpoints. */
@Injectable()
export class OAuthService {
  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly engine: SubscriptionEngine,
  ) {}

  /** After consent: a new grant with a single-use authorization code. */
  async issueCode(input: { client: OAuthClient; accountId: string; scopes: readonly string[]; redirectUri: string; codeChallenge: string | null }): Promise<string> {
    const grantId = newId('grant');
    const code = formatCredential('gsc', idBody(grantId), secret());
    const now = this.clock.now();
    await handleCommand(this.events, oauthGrantStream(grantId), oauthGrantDecider, { type: 'IssueCode', data: { grant_id: grantId, account_id: input.accountId, client_id: input.client.clientId, scopes: input.scopes, redirect_uri: input.redirectUri, code_hash: hashSecret(code), code_challenge: input.codeChallenge, expires_at: new Date(now.getTime() + CODE_TTL_MS) }, metadata: { now } });
    return code;
  }

  /** grant_type=authorization_code */
  async exchangeCode(input: { client: OAuthClient; code: unknown; redirectUri: unknown; codeVerifier: unknown }): Promise<TokenResponse> {
    const parsed = parseCredential(input.code);
    if (!parsed || parsed.kind !== 'gsc') throw new OAuthGrantError('invalid_grant', 'the authorization code is not valid');
    if (input.redirectUri !== undefined && typeof input.redirectUri !== 'string') throw new OAuthGrantError('invalid_request', 'redirect_uri must be a string');
    if (input.codeVerifier !== undefined && typeof input.codeVerifier !== 'string') throw new OAuthGrantError('invalid_request', 'code_verifier must be a string');
    const { tokens, access, refresh } = this.newTokens(parsed.id);
    return this.run(`grant_${parsed.id}`, { type: 'RedeemCode', data: { client_id: input.client.clientId, code_hash: hashSecret(input.code as string), redirect_uri: input.redirectUri as string | undefined, code_verifier: input.codeVerifier as string | undefined, tokens }, metadata: { now: this.clock.now() } }, access, refresh, (reason) =>
      reason === 'code_verifier_mismatch'
        ? 'code_verifier does not match the code challenge; the authorization code is spent'
        : 'the authorization code was already used; every token issued from it is revoked');
  }

  /** grant_type=refresh_token (rotation; a reused refresh token revokes the grant). */
  async refresh(input: { client: OAuthClient; refreshToken: unknown; scope: unknown }): Promise<TokenResponse> {
    const parsed = parseCredential(input.refreshToken);
    if (!parsed || parsed.kind !== 'gsr') throw new OAuthGrantError('invalid_grant', 'the refresh token is not valid');
    let scopes: string[] | undefined;
    if (input.scope !== undefined) {
      if (typeof input.scope !== 'string') throw new OAuthGrantError('invalid_request', 'scope must be a string');
      scopes = [...new Set(input.scope.split(' ').filter(Boolean))];
    }
    const { tokens, access, refresh } = this.newTokens(parsed.id);
    return this.run(`grant_${parsed.id}`, { type: 'RefreshTokens', data: { client_id: input.client.clientId, refresh_hash: hashSecret(input.refreshToken as string), scopes, tokens }, metadata: { now: this.clock.now() } }, access, refresh, () => 'the refresh token was already used; the grant is revoked');
  }

  /**
   * RFC 7009: revokes an access token (that token) or a refresh token (the whole grant).
   * Unknown tokens are ignored (the answer is the same); a token issued to another client
   * is refused with `unauthorized_client` and stays valid (RFC 7009 §2.1).
   */
  async revoke(input: { client: OAuthClient; token: unknown }): Promise<void> {
    const parsed = parseCredential(input.token);
    if (!parsed) return;
    const token = input.token as string;
    if (parsed.kind === 'gsa') {
      const doc = await this.readStore.collection<AccessTokenDoc>(ACCESS_TOKENS).findOne({ _id: `at_${parsed.id}` });
      if (!doc || doc.secret_hash !== hashSecret(token)) return;
      if (doc.client_id !== input.client.clientId) throw notThisClients();
      const r = await handleCommand(this.events, oauthGrantStream(doc.grant_id), oauthGrantDecider, { type: 'RevokeAccessToken', data: { access_token_id: doc._id }, metadata: { now: this.clock.now() } });
      await this.engine.waitFor(r.position);
      return;
    }
    if (parsed.kind === 'gsr') {
      const grantId = `grant_${parsed.id}`;
      const hash = hashSecret(token);
      const stream = oauthGrantStream(grantId);
      const recorded = await this.events.readStream<OAuthGrantEvent>(stream);
      let state = oauthGrantDecider.initialState();
      for (const e of recorded) state = oauthGrantDecider.evolve(state, { type: e.type, data: e.data } as OAuthGrantEvent);
      if (state.status === 'none') return;
      if (state.refreshHash !== hash && !state.rotatedRefreshHashes.includes(hash)) return;
      if (state.clientId !== input.client.clientId) throw notThisClients();
      const r = await handleCommand(this.events, stream, oauthGrantDecider, { type: 'RevokeGrant', data: { reason: 'revoked_by_client' }, metadata: { now: this.clock.now() } });
      await this.engine.waitFor(r.position);
    }
  }

  private newTokens(grantBody: string): { tokens: NewTokens; access: string; refresh: string } {
    const now = this.clock.now().getTime();
    const tokenId = randomBytes(16).toString('hex');
    const access = formatCredential('gsa', tokenId, secret());
    const refresh = formatCredential('gsr', grantBody, secret());
    return {
      access,
      refresh,
      tokens: {
        accessTokenId: `at_${tokenId}`,
        accessTokenHash: hashSecret(access),
        accessExpiresAt: new Date(now + this.config.accessTokenTtlSeconds * 1000),
        refreshTokenHash: hashSecret(refresh),
        refreshExpiresAt: new Date(now + REFRESH_TTL_MS),
      },
    };
  }

  private async run(grantId: string, command: OAuthGrantCommand, access: string, refresh: string, refusal: (reason: RevokeReason | undefined) => string): Promise<TokenResponse> {
    const result = await handleCommand(this.events, oauthGrantStream(grantId), oauthGrantDecider, command);
    await this.engine.waitFor(result.position);
    const issued = result.events.find((e) => e.type === 'OAuthTokensIssued');
    if (!issued || issued.type !== 'OAuthTokensIssued') {
      const revoked = result.events.find((e) => e.type === 'OAuthGrantRevoked');
      throw new OAuthGrantError('invalid_grant', refusal(revoked?.type === 'OAuthGrantRevoked' ? revoked.data.reason : undefined));
    }
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: this.config.accessTokenTtlSeconds,
      refresh_token: refresh,
      scope: issued.data.scopes.join(' '),
    };
  }
}

const notThisClients = (): OAuthGrantError => new OAuthGrantError('unauthorized_client', 'the token was not issued to this client');
