import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { apiKeyDecider, type ApiKeyEvent } from './api-key';
import { formatCredential, hashSecret, parseCredential, secretMatches } from './credentials';

const now = new Date('2026-01-01T00:00:00.000Z');
const hash = 'a'.repeat(64);
const issued: ApiKeyEvent = { type: 'ApiKeyIssued', data: { key_id: 'key_1', account_id: 'acc_1', secret_hash: hash, issued_at: now.toISOString() } };
const spec = DeciderSpecification.for(apiKeyDecider);

describe('API key decider', () => {
  it('issues a key with its hash only', () => {
    spec.given([]).when({ type: 'IssueApiKey', data: { key_id: 'key_1', account_id: 'acc_1', secret_hash: hash }, metadata: { now } }).then([issued]);
  });

  it('refuses to issue the same key id twice', () => {
    spec.given([issued]).when({ type: 'IssueApiKey', data: { key_id: 'key_1', account_id: 'acc_1', secret_hash: hash }, metadata: { now } }).thenThrows('CONFLICT');
  });

  it('revokes once; revoking again is harmless; an unknown key is NOT_FOUND', () => {
    const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { key_id: 'key_1', account_id: 'acc_1', revoked_at: now.toISOString() } };
    spec.given([issued]).when({ type: 'RevokeApiKey', data: { key_id: 'key_1' }, metadata: { now } }).then([revoked]);
    spec.given([issued, revoked]).when({ type: 'RevokeApiKey', data: { key_id: 'key_1' }, metadata: { now } }).then([]);
    spec.given([]).when({ type: 'RevokeApiKey', data: { key_id: 'key_9' }, metadata: { now } }).thenThrows('NOT_FOUND');
  });
});

describe('credentials', () => {
  it('round-trips the public id and compares secrets by hash', () => {
    const secret = 'S'.repeat(43);
    const key = formatCredential('gsk', '01jabcdefghjkmnpqrstvwxyz0', secret);
    expect(parseCredential(key)).toEqual({ kind: 'gsk', id: '01jabcdefghjkmnpqrstvwxyz0' });
    expect(secretMatches(key, hashSecret(key))).toBe(true);
    expect(secretMatches(key.replace(/S$/, 'T'), hashSecret(key))).toBe(false);
    expect(secretMatches(key, null)).toBe(false);
  });

  it('rejects anything not shaped like a credential', () => {
    for (const v of ['', 'gsk_', 'gsk_short_' + 'x'.repeat(43), 'xyz_01jabcdefghjkmnpqrstvwxyz0_' + 'x'.repeat(43), 42, null, 'gsk_01jabcdefghjkmnpqrstvwxyz0_bad secret with spaces']) {
      expect(parseCredential(v)).toBeNull();
    }
  });
});
