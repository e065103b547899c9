import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import { Clock } from '@gensvc/kernel';
import { SubscriptionEngine } from '@gensvc/event-sourcing';
import { CONSOLE_CLIENT_ID, CreateAccountHandler, CreateApiKeyHandler, RegisterOAuthClientHandler, RevokeApiKeyHandler } from '@gensvc/identity';
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
const metadata = (t: TestApp): { now: Date } => ({ now: t.app.get(Clock).now() });

export async function createAccount(t: TestApp, opts: { name?: string; credit?: string; email?: string; password?: string } = {}): Promise<TestAccount> {
  const created = await t.app.get(CreateAccountHandler).execute({ type: 'CreateAccount', data: { name: opts.name ?? 'Test account', email: opts.email, password: opts.password }, metadata: metadata(t) });
  const engine = t.app.get(SubscriptionEngine);
  await engine.waitFor(created.position);
  if (opts.credit !== undefined) {
    await t.app.get(WalletCommands, { strict: false }).credit(created.accountId, opts.credit, 'test credit');
  }
  return { accountId: created.accountId, apiKey: created.apiKey, keyId: created.keyId };
}

/** Another API key for an existing account, usable at once. */
export async function createApiKey(t: TestApp, accountId: string): Promise<{ keyId: string; apiKey: string }> {
  const issued = await t.app.get(CreateApiKeyHandler).execute({ type: 'CreateApiKey', data: { account_id: accountId }, metadata: metadata(t) });
  await t.app.get(SubscriptionEngine).waitFor(issued.position);
  return { keyId: issued.keyId, apiKey: issued.apiKey };
}

/** Revokes a key and waits until the server refuses it. */
export async function revokeApiKey(t: TestApp, keyId: string): Promise<void> {
  const revoked = await t.app.get(RevokeApiKeyHandler).execute({ type: 'RevokeApiKey', data: { key_id: keyId }, metadata: metadata(t) });
  await t.app.get(SubscriptionEngine).waitFor(revoked.position);
}

/** `{ Authorization: 'Bearer …' }` for supertest's `.set(...)`. */
export const bearer = (credential: string | { apiKey: string }): { Authorization: string } => ({
  Authorization: `Bearer ${typeof credential === 'string' ? credential : credential.apiKey}`,
});

/** Registers an OAuth client in-process (as `oauth-client create` does). */
export async function createOAuthClient(
  t: TestApp,
  opts: { name?: string; redirectUri?: string; public?: boolean } = {},
): Promise<{ clientId: string; clientSecret: string | null; redirectUri: string }> {
  const redirectUri = opts.redirectUri ?? 'http://127.0.0.1:9/callback';
  const created = await t.app.get(RegisterOAuthClientHandler).execute({ type: 'RegisterOAuthClient', data: { name: opts.name ?? 'Test client', redirect_uri: redirectUri, public: opts.public ?? false }, metadata: metadata(t) });
  return { clientId: created.clientId, clientSecret: created.clientSecret, redirectUri };
}

const hidden = (html: string, name: string): string => {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no ${name} field in the page`);
  return m[1];
};

/**
 * Plays the browser on the authorization page: opens `authorizePath` (path + query), signs
 * in with email and password, then allows (or denies). Returns the redirect Location.
 */
export async function authorizeInBrowser(t: TestApp, authorizePath: string, login: { email: string; password: string }, action: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const agent = request.agent(t.app.getHttpServer());
  const page = await agent.get(authorizePath).expect(200);
  const signedIn = await agent
    .post(authorizePath)
    .type('form')
    .send({ action: 'login', email: login.email, password: login.password, transaction_id: hidden(page.text, 'transaction_id'), csrf_token: hidden(page.text, 'csrf_token') })
    .expect(200);
  const decided = await agent
    .post(authorizePath)
    .type('form')
    .send({ action, transaction_id: hidden(signedIn.text, 'transaction_id'), csrf_token: hidden(signedIn.text, 'csrf_token') })
    .expect(302);
  return new URL(decided.headers.location);
}

export interface TestOAuthToken {
  readonly accountId: string;
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly scope: string;
  readonly clientId: string;
}

/**
 * An OAuth access token with exactly `scope` ('read', 'create' or 'read create') for a new
 * (or the given) account, through the real authorize and token endpoints (confidential
 * client, PKCE). Pass `account` with the email and password it was created with.
 */
export async function oauthToken(
  t: TestApp,
  scope: string,
  account?: { accountId: string; email: string; password: string },
  options: { console?: boolean } = {},
): Promise<TestOAuthToken> {
  let login = account;
  if (!login) {
    const email = `user-${randomBytes(6).toString('hex')}@example.com`;
    const password = 'correct horse battery';
    const a = await createAccount(t, { email, password });
    login = { accountId: a.accountId, email, password };
  }
  const client = options.console
    ? { clientId: CONSOLE_CLIENT_ID, clientSecret: null, redirectUri: `${t.config.publicBaseUrl}/console/callback` }
    : await createOAuthClient(t);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const back = await authorizeInBrowser(t, `/authorize?${query}`, login);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`authorization failed: ${back.search}`);
  let token = t.http().post('/token').type('form');
  if (client.clientSecret) token = token.auth(client.clientId, client.clientSecret);
  const res = await token
    .send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier, ...(client.clientSecret ? {} : { client_id: client.clientId }) })
    .expect(200);
  return { accountId: login.accountId, accessToken: res.body.access_token, refreshToken: res.body.refresh_token, scope: res.body.scope, clientId: client.clientId };
}
