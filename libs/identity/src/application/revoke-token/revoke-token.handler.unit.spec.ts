import { type AppConfig } from '@gensvc/config';
import { ProjectionLagError, type SubscriptionEngine } from '@gensvc/event-sourcing';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { InMemoryReadStore } from '@gensvc/event-sourcing/testing/in-memory-read-store';
import { OAuthGrantError, type OAuthGrantEvent } from '../../domain/oauth-grant';
import { ExchangeAuthorizationCodeHandler } from '../exchange-authorization-code/exchange-authorization-code.handler';
import { oauthGrantStream } from '../identity-streams';
import { IssueAuthorizationCodeHandler } from '../issue-authorization-code/issue-authorization-code.handler';
import { OAuthGrantTokens, type TokenResponse } from '../oauth-grants';
import { ACCESS_TOKENS, type AccessTokenDoc } from '../read-models';
import { RevokeTokenHandler } from './revoke-token.handler';

describe('RevokeTokenHandler (RFC 7009)', () => {
  const metadata = { now: new Date('2026-03-01T10:00:00.000Z') };
  const waitFor = jest.fn(async (_position?: bigint): Promise<void> => undefined);
  const engine = { waitFor } as unknown as SubscriptionEngine;
  let events: InMemoryEventStore;
  let readStore: InMemoryReadStore;
  let handler: RevokeTokenHandler;
  let tokens: TokenResponse;
  let grantId: string;

  const grantEvents = async () => (await events.readStream<OAuthGrantEvent>(oauthGrantStream(grantId))).map((e) => e.type);
  const revoke = (clientId: string, token: unknown) => handler.execute({ type: 'RevokeToken', data: { client_id: clientId, token }, metadata });
  const refusal = async (clientId: string, token: unknown): Promise<OAuthGrantError> => {
    const err = await revoke(clientId, token).catch((e: unknown) => e);
    if (!(err instanceof OAuthGrantError)) throw new Error(`expected a refusal, got ${String(err)}`);
    return err;
  };

  beforeEach(async () => {
    events = new InMemoryEventStore();
    readStore = new InMemoryReadStore();
    handler = new RevokeTokenHandler(events, readStore, engine);
    // A grant of client_a with tokens issued, and its access token in the read model (as the projection writes it).
    const code = await new IssueAuthorizationCodeHandler(events).execute({
      type: 'IssueAuthorizationCode',
      data: { client_id: 'client_a', account_id: 'acc_1', scopes: ['read'], redirect_uri: 'https://a.example/cb', code_challenge: null },
      metadata,
    });
    const grants = new OAuthGrantTokens(events, { accessTokenTtlSeconds: 3600 } as AppConfig, engine);
    tokens = await new ExchangeAuthorizationCodeHandler(grants).execute({
      type: 'ExchangeAuthorizationCode',
      data: { client_id: 'client_a', code, redirect_uri: 'https://a.example/cb', code_verifier: undefined },
      metadata,
    });
    const issued = (await events.readAll()).find((e) => e.type === 'OAuthTokensIssued')!.data as Extract<OAuthGrantEvent, { type: 'OAuthTokensIssued' }>['data'];
    grantId = issued.grant_id;
    await readStore.collection<AccessTokenDoc>(ACCESS_TOKENS).insertOne({
      _id: issued.access_token_id,
      grant_id: issued.grant_id,
      account_id: issued.account_id,
      client_id: issued.client_id,
      scopes: [...issued.scopes],
      secret_hash: issued.access_token_hash,
      expires_at: issued.access_expires_at,
      revoked: false,
    });
  });
  afterEach(async () => {
    waitFor.mockReset().mockImplementation(async () => undefined);
    await events.close();
    await readStore.close();
  });

  it('ignores unknown and malformed tokens (the same answer, nothing recorded)', async () => {
    for (const token of ['nonsense', `${tokens.access_token}x`, `${tokens.refresh_token}x`, 42]) await expect(revoke('client_a', token)).resolves.toBeUndefined();
    expect(await grantEvents()).toEqual(['OAuthCodeIssued', 'OAuthTokensIssued']);
  });

  it("refuses another client's tokens with unauthorized_client; they stay valid", async () => {
    expect((await refusal('client_b', tokens.access_token)).error).toBe('unauthorized_client');
    expect((await refusal('client_b', tokens.refresh_token)).error).toBe('unauthorized_client');
    expect(await grantEvents()).toEqual(['OAuthCodeIssued', 'OAuthTokensIssued']);
  });

  it('an access token: that token is revoked', async () => {
    await revoke('client_a', tokens.access_token);
    expect(await grantEvents()).toEqual(['OAuthCodeIssued', 'OAuthTokensIssued', 'OAuthAccessTokenRevoked']);
  });

  it('tokens are issued from the command itself when the read models lag (the code is used up: they could not be asked for again)', async () => {
    waitFor.mockImplementation(async (position) => {
      throw new ProjectionLagError(position ?? 0n, -1n, 5000);
    });
    const grants = new OAuthGrantTokens(events, { accessTokenTtlSeconds: 3600 } as AppConfig, engine);
    const code = await new IssueAuthorizationCodeHandler(events).execute({
      type: 'IssueAuthorizationCode',
      data: { client_id: 'client_a', account_id: 'acc_1', scopes: ['read'], redirect_uri: 'https://a.example/cb', code_challenge: null },
      metadata,
    });
    const issued = await new ExchangeAuthorizationCodeHandler(grants).execute({
      type: 'ExchangeAuthorizationCode',
      data: { client_id: 'client_a', code, redirect_uri: 'https://a.example/cb', code_verifier: undefined },
      metadata,
    });
    expect(issued).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    expect(issued.access_token).toMatch(/^gsa/);
  });

  it('when the read models lag after a revocation, the answer is ProjectionLagError (503: the token is revoked once they caught up); the retry waits for everything stored', async () => {
    waitFor.mockImplementationOnce(async (position) => {
      throw new ProjectionLagError(position ?? 0n, -1n, 5000);
    });
    await expect(revoke('client_a', tokens.access_token)).rejects.toBeInstanceOf(ProjectionLagError);
    expect(await grantEvents()).toEqual(['OAuthCodeIssued', 'OAuthTokensIssued', 'OAuthAccessTokenRevoked']);
    waitFor.mockClear();
    await revoke('client_a', tokens.access_token);
    expect(await grantEvents()).toEqual(['OAuthCodeIssued', 'OAuthTokensIssued', 'OAuthAccessTokenRevoked']);
    expect(waitFor).toHaveBeenCalledWith(await events.headPosition());
  });

  it('a refresh token: the whole grant is revoked by the client', async () => {
    await revoke('client_a', tokens.refresh_token);
    const last = (await events.readStream<OAuthGrantEvent>(oauthGrantStream(grantId))).at(-1)!;
    expect([last.type, (last.data as { reason?: string }).reason]).toEqual(['OAuthGrantRevoked', 'revoked_by_client']);
  });
});
