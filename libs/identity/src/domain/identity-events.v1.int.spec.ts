import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventSchemas, type RecordedEvent } from '@gensvc/kernel';
import { SqliteEventStore } from '@gensvc/storage';
import { accountDecider, type AccountEvent } from './account';
import { apiKeyDecider, type ApiKeyEvent } from './api-key';
import { oauthClientDecider, type OAuthClientEvent } from './oauth-client';
import { oauthGrantDecider, type OAuthGrantEvent } from './oauth-grant';
import { IDENTITY_EVENT_TYPES } from './identity-events.v1';

/** Events as schema version 1 stored them (camelCase data), appended with that version. */
const v1 = (type: string, data: Record<string, unknown>) => ({ type, data, metadata: { schemaVersion: 1 } });
const fold = <S, E>(decider: { initialState(): S; evolve(s: S, e: E): S }, events: readonly RecordedEvent[]) =>
  events.reduce((s, e) => decider.evolve(s, e as unknown as E), decider.initialState());

describe('identity events of schema version 1 (camelCase) are read in the current snake_case shape', () => {
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gensvc-identity-v1-'));
    store = new SqliteEventStore(join(dir, 'events.db'), undefined, { commits: 'inline' });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every identity event type is at schema version 2', () => {
    for (const type of IDENTITY_EVENT_TYPES) expect(eventSchemas.currentVersion(type)).toBe(2);
  });

  it('an old account, API key, OAuth client and grant fold to the same states as new events would', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    await store.appendToStream('account-acc_1', [
      v1('AccountOpened', { accountId: 'acc_1', name: 'Ann', email: 'ann@example.com', passwordHash: 'scrypt$x', openedAt: at }),
      v1('AccountClosed', { accountId: 'acc_1', closedAt: at }),
    ]);
    await store.appendToStream('apikey-key_1', [v1('ApiKeyIssued', { keyId: 'key_1', accountId: 'acc_1', secretHash: 'a'.repeat(64), issuedAt: at })]);
    await store.appendToStream('oauthclient-cl_1', [
      v1('OAuthClientRegistered', { clientId: 'cl_1', name: 'App', redirectUris: ['https://app.example/cb'], public: true, secretHash: null, registeredAt: at }),
    ]);
    await store.appendToStream('oauthgrant-gr_1', [
      v1('OAuthCodeIssued', {
        grantId: 'gr_1', accountId: 'acc_1', clientId: 'cl_1', scopes: ['read'], redirectUri: 'https://app.example/cb',
        codeHash: 'c'.repeat(64), codeChallenge: null, issuedAt: at, expiresAt: at,
      }),
      v1('OAuthTokensIssued', {
        grantId: 'gr_1', accountId: 'acc_1', clientId: 'cl_1', via: 'authorization_code', scopes: ['read'], accessTokenId: 'at_1',
        accessTokenHash: 'd'.repeat(64), accessExpiresAt: at, refreshTokenHash: 'e'.repeat(64), refreshExpiresAt: at, issuedAt: at,
      }),
    ]);

    const key = await store.readStream('apikey-key_1');
    expect(key[0].data).toEqual({ key_id: 'key_1', account_id: 'acc_1', secret_hash: 'a'.repeat(64), issued_at: at });
    expect(key[0].metadata.schemaVersion).toBe(2);

    expect(fold<ReturnType<typeof accountDecider.initialState>, AccountEvent>(accountDecider, await store.readStream('account-acc_1'))).toEqual({
      status: 'closed', accountId: 'acc_1', name: 'Ann', email: 'ann@example.com', passwordHash: 'scrypt$x',
    });
    expect(fold<ReturnType<typeof apiKeyDecider.initialState>, ApiKeyEvent>(apiKeyDecider, key)).toEqual({
      status: 'active', keyId: 'key_1', accountId: 'acc_1', secretHash: 'a'.repeat(64),
    });
    expect(fold<ReturnType<typeof oauthClientDecider.initialState>, OAuthClientEvent>(oauthClientDecider, await store.readStream('oauthclient-cl_1'))).toEqual({
      status: 'active', clientId: 'cl_1', name: 'App', redirectUris: ['https://app.example/cb'], public: true, secretHash: null,
    });
    const grant = fold<ReturnType<typeof oauthGrantDecider.initialState>, OAuthGrantEvent>(oauthGrantDecider, await store.readStream('oauthgrant-gr_1'));
    expect(grant).toMatchObject({ status: 'active', grantId: 'gr_1', clientId: 'cl_1', codeUsed: true, refreshHash: 'e'.repeat(64), accessTokenIds: ['at_1'] });
  });

  it('new events are stored snake_case at version 2 and read back unchanged', async () => {
    const data = { key_id: 'key_2', account_id: 'acc_1', secret_hash: 'b'.repeat(64), issued_at: '2026-01-01T00:00:00.000Z' };
    await store.appendToStream('apikey-key_2', [{ type: 'ApiKeyIssued', data }]);
    const [e] = await store.readStream('apikey-key_2');
    expect(e.data).toEqual(data);
    expect(e.metadata.schemaVersion).toBe(2);
  });
});
