import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixedClock } from '@gensvc/kernel';
import { SqliteReadStore } from '@gensvc/storage';
import { formatCredential, hashSecret } from '../../domain/credentials';
import { ACCESS_TOKENS, ACCOUNTS, API_KEYS, OAUTH_GRANTS } from '../read-models';
import { Authenticator } from './authenticator';

/**
 * On the embedded read store an accepted credential is remembered while the identity read
 * models are unchanged: it must never outlive a revocation, a closed account or an expiry,
 * whichever process wrote them.
 */
describe('Authenticator on the embedded read store (remembered credentials)', () => {
  let dir: string;
  let store: SqliteReadStore;
  /** Another process's connection to the same file. */
  let other: SqliteReadStore;
  let clock: FixedClock;
  let auth: Authenticator;
  const key = formatCredential('gsk', '0123456789ab', 'S'.repeat(32));
  const token = formatCredential('gsa', 'at0123456789', 'T'.repeat(32));

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gensvc-auth-'));
    store = SqliteReadStore.open(join(dir, 'read.db'));
    other = SqliteReadStore.open(join(dir, 'read.db'));
    clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
    auth = new Authenticator(store, clock);
    await store.collection(ACCOUNTS).insertOne({ _id: 'acc_1', name: 'a', email: null, status: 'active', opened_at: '2026-01-01T00:00:00Z' });
    await store.collection(API_KEYS).insertOne({ _id: 'key_0123456789ab', account_id: 'acc_1', secret_hash: hashSecret(key), status: 'active', issued_at: '2026-01-01T00:00:00Z', revoked_at: null });
    await store.collection(OAUTH_GRANTS).insertOne({ _id: 'grant_1', account_id: 'acc_1', client_id: 'app', scopes: ['read'], status: 'active' });
    await store.collection(ACCESS_TOKENS).insertOne({
      _id: 'at_at0123456789', grant_id: 'grant_1', account_id: 'acc_1', client_id: 'app', scopes: ['read'], secret_hash: hashSecret(token),
      expires_at: '2026-01-01T01:00:00Z', revoked: false,
    });
  });
  afterEach(async () => {
    await store.close();
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a credential again without reading the read models while they are unchanged', async () => {
    expect(await auth.verifyBearer(key)).toMatchObject({ accountId: 'acc_1', kind: 'api_key', connectionId: 'key_0123456789ab' });
    const reads = jest.spyOn(store, 'collection');
    expect(await auth.verifyBearer(key)).toMatchObject({ accountId: 'acc_1', kind: 'api_key' });
    expect(await auth.verifyBearer(token)).toMatchObject({ kind: 'oauth', clientId: 'app', scopes: ['read'] });
    expect(reads).toHaveBeenCalled(); // the token was not remembered yet
    reads.mockClear();
    expect(await auth.verifyBearer(token)).toMatchObject({ kind: 'oauth' });
    expect(reads).not.toHaveBeenCalled();
  });

  it('refuses a key revoked here or by another process, and an account closed, at the next request', async () => {
    expect(await auth.verifyBearer(key)).not.toBeNull();
    await other.collection(API_KEYS).updateOne({ _id: 'key_0123456789ab' }, { $set: { status: 'revoked' } });
    expect(await auth.verifyBearer(key)).toBeNull();
    await other.collection(API_KEYS).updateOne({ _id: 'key_0123456789ab' }, { $set: { status: 'active' } });
    expect(await auth.verifyBearer(key)).not.toBeNull();
    await store.collection(ACCOUNTS).updateOne({ _id: 'acc_1' }, { $set: { status: 'closed' } });
    expect(await auth.verifyBearer(key)).toBeNull();
  });

  it('refuses a remembered access token once it expires, or once its grant is revoked in a projection batch', async () => {
    expect(await auth.verifyBearer(token)).not.toBeNull();
    clock.advance(60 * 60 * 1000);
    expect(await auth.verifyBearer(token)).toBeNull();
    clock.set(new Date('2026-01-01T00:30:00Z'));
    expect(await auth.verifyBearer(token)).not.toBeNull();
    await store.transaction(() => store.collection(OAUTH_GRANTS).updateOne({ _id: 'grant_1' }, { $set: { status: 'revoked' } }));
    expect(await auth.verifyBearer(token)).toBeNull();
  });

  it('does not remember a refusal: a key that becomes valid is accepted at once', async () => {
    const later = formatCredential('gsk', 'abcdefabcdef', 'U'.repeat(32));
    expect(await auth.verifyBearer(later)).toBeNull();
    await other.collection(API_KEYS).insertOne({ _id: 'key_abcdefabcdef', account_id: 'acc_1', secret_hash: hashSecret(later), status: 'active', issued_at: '2026-01-01T00:00:00Z', revoked_at: null });
    expect(await auth.verifyBearer(later)).toMatchObject({ connectionId: 'key_abcdefabcdef' });
    expect(await auth.verifyBearer(key.slice(0, -1) + 'X')).toBeNull(); // the same key id with another secret
  });
});
