import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { OAuthGrantError, oauthGrantDecider, pkceChallenge, type NewTokens, type OAuthGrantEvent } from './oauth-grant';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const verifier = 'v'.repeat(50);
const codeIssued: OAuthGrantEvent = {
  type: 'OAuthCodeIssued',
  data: {
    grant_id: 'grant_1',
    account_id: 'acc_1',
    client_id: 'client_1',
    scopes: ['read', 'create'],
    redirect_uri: 'https://app.example/cb',
    code_hash: 'code-hash',
    code_challenge: pkceChallenge(verifier),
    issued_at: t0.toISOString(),
    expires_at: later(60_000).toISOString(),
  },
};
const tokens = (n: number): NewTokens => ({
  accessTokenId: `at_${n}`,
  accessTokenHash: `access-${n}`,
  accessExpiresAt: later(3_600_000),
  refreshTokenHash: `refresh-${n}`,
  refreshExpiresAt: later(86_400_000),
});
const issuedEvent = (n: number, via: 'authorization_code' | 'refresh_token', scopes = ['read', 'create']): OAuthGrantEvent => ({
  type: 'OAuthTokensIssued',
  data: {
    grant_id: 'grant_1',
    account_id: 'acc_1',
    client_id: 'client_1',
    via,
    scopes,
    access_token_id: `at_${n}`,
    access_token_hash: `access-${n}`,
    access_expires_at: later(3_600_000).toISOString(),
    refresh_token_hash: `refresh-${n}`,
    refresh_expires_at: later(86_400_000).toISOString(),
    issued_at: later(1000).toISOString(),
  },
});
const redeem = (over: Partial<{ clientId: string; codeHash: string; redirectUri: string | undefined; codeVerifier: string | undefined; now: Date }> = {}) => {
  const o = { clientId: 'client_1', codeHash: 'code-hash', redirectUri: 'https://app.example/cb', codeVerifier: verifier, now: later(1000), ...over };
  return {
    type: 'RedeemCode' as const,
    data: { client_id: o.clientId, code_hash: o.codeHash, redirect_uri: o.redirectUri, code_verifier: o.codeVerifier, tokens: tokens(1) },
    metadata: { now: o.now },
  };
};
const spec = DeciderSpecification.for(oauthGrantDecider);

function grantError(events: OAuthGrantEvent[], command: Parameters<typeof oauthGrantDecider.decide>[0]): string {
  const state = events.reduce(oauthGrantDecider.evolve, oauthGrantDecider.initialState());
  try {
    oauthGrantDecider.decide(command, state);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthGrantError);
    return (err as OAuthGrantError).error;
  }
  throw new Error('expected the command to be refused');
}

describe('OAuth grant decider', () => {
  it('redeems a code once, with the right verifier, client and redirect URI', () => {
    spec.given([codeIssued]).when(redeem()).then([issuedEvent(1, 'authorization_code')]);
  });

  it('refuses a wrong verifier, a missing one, a wrong client, a wrong code, a wrong redirect URI and an expired code', () => {
    expect(grantError([codeIssued], redeem({ clientId: 'client_2' }))).toBe('invalid_grant');
    expect(grantError([codeIssued], redeem({ codeHash: 'other' }))).toBe('invalid_grant');
    expect(grantError([codeIssued], redeem({ redirectUri: 'https://app.example/cb/' }))).toBe('invalid_grant');
    expect(grantError([codeIssued], redeem({ redirectUri: undefined }))).toBe('invalid_grant');
    expect(grantError([codeIssued], redeem({ now: later(60_000) }))).toBe('invalid_grant');
    expect(grantError([], redeem())).toBe('invalid_grant');
  });

  it('spends the code on a wrong or missing verifier: the grant is revoked and the right verifier comes too late', () => {
    const spent: OAuthGrantEvent = { type: 'OAuthGrantRevoked', data: { grant_id: 'grant_1', account_id: 'acc_1', reason: 'code_verifier_mismatch', revoked_at: later(1000).toISOString() } };
    for (const codeVerifier of ['w'.repeat(50), undefined, 'short']) spec.given([codeIssued]).when(redeem({ codeVerifier })).then([spent]);
    expect(grantError([codeIssued, spent], redeem())).toBe('invalid_grant');
  });

  it('refuses a verifier when the request had no challenge', () => {
    const noPkce: OAuthGrantEvent = { ...codeIssued, data: { ...(codeIssued.data as Extract<OAuthGrantEvent, { type: 'OAuthCodeIssued' }>['data']), code_challenge: null } } as OAuthGrantEvent;
    expect(grantError([noPkce], redeem())).toBe('invalid_grant');
    spec.given([noPkce]).when(redeem({ codeVerifier: undefined })).then([issuedEvent(1, 'authorization_code')]);
  });

  it('revokes the grant when a code is used a second time', () => {
    spec
      .given([codeIssued, issuedEvent(1, 'authorization_code')])
      .when(redeem())
      .then([{ type: 'OAuthGrantRevoked', data: { grant_id: 'grant_1', account_id: 'acc_1', reason: 'code_reuse', revoked_at: later(1000).toISOString() } }]);
    const revoked: OAuthGrantEvent = { type: 'OAuthGrantRevoked', data: { grant_id: 'grant_1', account_id: 'acc_1', reason: 'code_reuse', revoked_at: t0.toISOString() } };
    expect(grantError([codeIssued, issuedEvent(1, 'authorization_code'), revoked], redeem())).toBe('invalid_grant');
  });

  const refresh = (hash: string, scopes?: string[]) => ({ type: 'RefreshTokens' as const, data: { client_id: 'client_1', refresh_hash: hash, scopes, tokens: tokens(2) }, metadata: { now: later(2000) } });

  it('rotates the refresh token', () => {
    spec.given([codeIssued, issuedEvent(1, 'authorization_code')]).when(refresh('refresh-1')).thenReturns((events) => {
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'OAuthTokensIssued', data: { via: 'refresh_token', refresh_token_hash: 'refresh-2', access_token_id: 'at_2' } });
    });
  });

  it('narrows but never widens the scope on refresh', () => {
    spec.given([codeIssued, issuedEvent(1, 'authorization_code')]).when(refresh('refresh-1', ['read'])).thenReturns((events) => {
      expect(events[0]).toMatchObject({ data: { scopes: ['read'] } });
    });
    expect(grantError([codeIssued, issuedEvent(1, 'authorization_code', ['read'])].map((e, i) => (i === 0 ? { ...e, data: { ...e.data, scopes: ['read'] } } : e)) as OAuthGrantEvent[], refresh('refresh-1', ['create']))).toBe(
      'invalid_scope',
    );
  });

  it('revokes the grant when a rotated refresh token comes back', () => {
    spec
      .given([codeIssued, issuedEvent(1, 'authorization_code'), issuedEvent(2, 'refresh_token')])
      .when(refresh('refresh-1'))
      .then([{ type: 'OAuthGrantRevoked', data: { grant_id: 'grant_1', account_id: 'acc_1', reason: 'refresh_token_reuse', revoked_at: later(2000).toISOString() } }]);
  });

  it('refuses an unknown refresh token, another client, and anything after revocation', () => {
    expect(grantError([codeIssued, issuedEvent(1, 'authorization_code')], refresh('nope'))).toBe('invalid_grant');
    expect(grantError([codeIssued, issuedEvent(1, 'authorization_code')], { ...refresh('refresh-1'), data: { ...refresh('refresh-1').data, client_id: 'client_2' } })).toBe('invalid_grant');
    const revoked: OAuthGrantEvent = { type: 'OAuthGrantRevoked', data: { grant_id: 'grant_1', account_id: 'acc_1', reason: 'revoked_by_client', revoked_at: t0.toISOString() } };
    expect(grantError([codeIssued, issuedEvent(1, 'authorization_code'), revoked], refresh('refresh-1'))).toBe('invalid_grant');
    expect(grantError([codeIssued, issuedEvent(1, 'authorization_code')], { ...refresh('refresh-1'), metadata: { now: later(86_400_000) } })).toBe('invalid_grant');
  });

  it('revokes single access tokens and whole grants idempotently', () => {
    const given = [codeIssued, issuedEvent(1, 'authorization_code')];
    spec.given(given).when({ type: 'RevokeAccessToken', data: { access_token_id: 'at_1' }, metadata: { now: t0 } }).then([{ type: 'OAuthAccessTokenRevoked', data: { grant_id: 'grant_1', access_token_id: 'at_1', revoked_at: t0.toISOString() } }]);
    spec.given(given).when({ type: 'RevokeAccessToken', data: { access_token_id: 'at_9' }, metadata: { now: t0 } }).then([]);
    const revoked: OAuthGrantEvent = { type: 'OAuthGrantRevoked', data: { grant_id: 'grant_1', account_id: 'acc_1', reason: 'revoked_by_client', revoked_at: t0.toISOString() } };
    spec.given(given).when({ type: 'RevokeGrant', data: { reason: 'revoked_by_client' }, metadata: { now: t0 } }).then([revoked]);
    spec.given([...given, revoked]).when({ type: 'RevokeGrant', data: { reason: 'revoked_by_client' }, metadata: { now: t0 } }).then([]);
  });
});
