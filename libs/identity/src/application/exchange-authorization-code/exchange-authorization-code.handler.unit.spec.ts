import { type AppConfig } from '@gensvc/config';
import { type SubscriptionEngine } from '@gensvc/event-sourcing';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { OAuthGrantError } from '../../domain/oauth-grant';
import { IssueAuthorizationCodeHandler } from '../issue-authorization-code/issue-authorization-code.handler';
import { OAuthGrantTokens } from '../oauth-grants';
import { ExchangeAuthorizationCodeHandler, type ExchangeAuthorizationCodeCommand } from './exchange-authorization-code.handler';

describe('ExchangeAuthorizationCodeHandler', () => {
  const metadata = { now: new Date('2026-03-01T10:00:00.000Z') };
  const engine = { waitFor: jest.fn(async () => undefined) } as unknown as SubscriptionEngine;
  let events: InMemoryEventStore;
  let handler: ExchangeAuthorizationCodeHandler;
  let code: string;
  const exchange = (data: Partial<ExchangeAuthorizationCodeCommand['data']>) =>
    handler.execute({ type: 'ExchangeAuthorizationCode', data: { client_id: 'client_a', code, redirect_uri: 'https://a.example/cb', code_verifier: undefined, ...data }, metadata });
  const refusal = async (data: Partial<ExchangeAuthorizationCodeCommand['data']>): Promise<OAuthGrantError> => {
    const err = await exchange(data).catch((e: unknown) => e);
    if (!(err instanceof OAuthGrantError)) throw new Error(`expected a refusal, got ${String(err)}`);
    return err;
  };

  beforeEach(async () => {
    events = new InMemoryEventStore();
    handler = new ExchangeAuthorizationCodeHandler(new OAuthGrantTokens(events, { accessTokenTtlSeconds: 600 } as AppConfig, engine));
    code = await new IssueAuthorizationCodeHandler(events).execute({
      type: 'IssueAuthorizationCode',
      data: { client_id: 'client_a', account_id: 'acc_1', scopes: ['read', 'create'], redirect_uri: 'https://a.example/cb', code_challenge: null },
      metadata,
    });
  });
  afterEach(() => events.close());

  it('answers the token response once; the same code again is invalid_grant and revokes the grant', async () => {
    expect(await exchange({})).toEqual({
      access_token: expect.stringMatching(/^gsa_/),
      token_type: 'Bearer',
      expires_in: 600,
      refresh_token: expect.stringMatching(/^gsr_/),
      scope: 'read create',
    });
    const again = await refusal({});
    expect([again.error, again.message]).toEqual(['invalid_grant', 'the authorization code was already used; every token issued from it is revoked']);
    expect((await events.readAll()).map((e) => e.type)).toEqual(['OAuthCodeIssued', 'OAuthTokensIssued', 'OAuthGrantRevoked']);
  });

  it('refuses malformed fields before touching the grant', async () => {
    expect((await refusal({ code: 'gsr_notacode' })).error).toBe('invalid_grant');
    expect((await refusal({ redirect_uri: 42 })).error).toBe('invalid_request');
    expect((await refusal({ code_verifier: ['x'] })).error).toBe('invalid_request');
    expect((await events.readAll()).map((e) => e.type)).toEqual(['OAuthCodeIssued']);
  });
});
