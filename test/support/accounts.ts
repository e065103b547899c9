import { SubscriptionEngine } from '@gensvc/shared';
import { AccountsService } from '@gensvc/identity';
import { WalletCommands } from '@gensvc/wallet';
import type { TestApp } from './test-app';

export interface TestAccount {
  readonly accountId: string;
  /** `Authorization: Bearer <apiKey>` (both scopes). */
  readonly apiKey: string;
  readonly keyId: string;
}

/**
 * Creates an account with an API key inside the running test app (the same service the
 * admin CLI uses) and waits until the server's projections know the key, so the next HTTP
 * request authenticates. `credit` (a CNY amount like '100.00') goes through the wallet.
 */
export async function createAccount(t: TestApp, opts: { name?: string; credit?: string; email?: string; password?: string } = {}): Promise<TestAccount> {
  const created = await t.app.get(AccountsService).createAccount({ name: opts.name ?? 'Test account', email: opts.email, password: opts.password });
  const engine = t.app.get(SubscriptionEngine);
  await engine.waitFor(created.position);
  if (opts.credit !== undefined) {
    await t.app.get(WalletCommands, { strict: false }).credit(created.accountId, opts.credit, 'test credit');
  }
  return { accountId: created.accountId, apiKey: created.apiKey, keyId: created.keyId };
}

/** Another API key for an existing account, usable at once. */
export async function createApiKey(t: TestApp, accountId: string): Promise<{ keyId: string; apiKey: string }> {
  const issued = await t.app.get(AccountsService).issueApiKey(accountId);
  await t.app.get(SubscriptionEngine).waitFor(issued.position);
  return { keyId: issued.keyId, apiKey: issued.apiKey };
}

/** Revokes a key and waits until the server refuses it. */
export async function revokeApiKey(t: TestApp, keyId: string): Promise<void> {
  const revoked = await t.app.get(AccountsService).revokeApiKey(keyId);
  await t.app.get(SubscriptionEngine).waitFor(revoked.position);
}

/** `{ Authorization: 'Bearer …' }` for supertest's `.set(...)`. */
export const bearer = (credential: string | { apiKey: string }): { Authorization: string } => ({
  Authorization: `Bearer ${typeof credential === 'string' ? credential : credential.apiKey}`,
});
