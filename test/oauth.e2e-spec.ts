import * as oauth from 'oauth4webapi';
import { Authenticator } from '@gensvc/identity';
import { startTestApp, type TestApp } from './support/test-app';
import { authorizeInBrowser, createAccount, createOAuthClient, oauthToken } from './support/accounts';

/**
 * The OAuth 2.0 authorization server, driven by a standard client library (oauth4webapi)
 * for discovery, the authorization response and the token, refresh and revocation calls.
 * The browser part (login and consent pages) is played with supertest.
 */
describe('OAuth 2.0 authorization server', () => {
  let t: TestApp;
  let issuer: URL;
  let as: oauth.AuthorizationServer;
  let options: { [oauth.customFetch]: typeof fetch; [oauth.allowInsecureRequests]: true };
  const login = { email: 'olivia@example.com', password: 'a long enough password' };
  let accountId: string;

  beforeAll(async () => {
    t = await startTestApp();
    issuer = new URL(t.config.publicBaseUrl);
    const address = t.app.getHttpServer().address() as { port: number };
    const actual = `http://127.0.0.1:${address.port}`;
    // The configured public address is not where the test server listens: rewrite.
    const rewrite: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace(issuer.origin, actual), init);
    options = { [oauth.customFetch]: rewrite, [oauth.allowInsecureRequests]: true };
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }));
    accountId = (await createAccount(t, login)).accountId;
  });
  afterAll(() => t.close());

  const pathOf = (url: URL) => `${url.pathname}${url.search}`;

  async function authorizationUrl(client: { clientId: string; redirectUri: string }, params: Record<string, string>): Promise<URL> {
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.clientId);
    url.searchParams.set('redirect_uri', client.redirectUri);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url;
  }

  async function pkce() {
    const verifier = oauth.generateRandomCodeVerifier();
    return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
  }

  /** Authorization with PKCE up to the validated callback parameters. */
  async function authorize(client: { clientId: string; redirectUri: string }, scope = 'read create') {
    const { verifier, challenge } = await pkce();
    const state = oauth.generateRandomState();
    const url = await authorizationUrl(client, { scope, state, code_challenge: challenge, code_challenge_method: 'S256' });
    const back = await authorizeInBrowser(t, pathOf(url), login);
    const params = oauth.validateAuthResponse(as, { client_id: client.clientId }, back, state);
    return { params, verifier };
  }

  const principalOf = (token: string) => t.app.get(Authenticator).verifyBearer(token);

  it('publishes RFC 8414 metadata', () => {
    expect(as.issuer).toBe(issuer.href.replace(/\/$/, ''));
    expect(as.token_endpoint).toBe(`${t.config.publicBaseUrl}/token`);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.scopes_supported).toEqual(['read', 'create']);
    expect(as.revocation_endpoint).toBe(`${t.config.publicBaseUrl}/revoke`);
  });

  it('runs the authorization code flow with PKCE for a confidential client (client_secret_basic)', async () => {
    const client = await createOAuthClient(t, { name: 'Photo Printer' });
    const { params, verifier } = await authorize(client, 'read');
    expect(params.get('iss')).toBe(as.issuer);
    const response = await oauth.authorizationCodeGrantRequest(as, { client_id: client.clientId }, oauth.ClientSecretBasic(client.clientSecret!), params, client.redirectUri, verifier, options);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processAuthorizationCodeResponse(as, { client_id: client.clientId }, response);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('read');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const principal = await principalOf(tokens.access_token);
    expect(principal).toEqual({ accountId, kind: 'oauth', connectionId: expect.stringMatching(/^grant_/), scopes: ['read'], clientId: expect.stringMatching(/^client_/) });
  });

  it('names the client and the scopes on the consent page, and its cookie is HttpOnly and SameSite=Lax', async () => {
    const client = await createOAuthClient(t, { name: 'Budget <Tool>' });
    const { challenge } = await pkce();
    const url = await authorizationUrl(client, { scope: 'create', code_challenge: challenge, code_challenge_method: 'S256' });
    const agent = (await import('supertest')).default.agent(t.app.getHttpServer());
    const page = await agent.get(pathOf(url)).expect(200).expect('Content-Type', /html/);
    expect(page.text).toContain('Budget &lt;Tool&gt;');
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1];
    const consent = await agent
      .post(pathOf(url))
      .type('form')
      .send({ action: 'login', ...login, transaction_id: field(page.text, 'transaction_id'), csrf_token: field(page.text, 'csrf_token') })
      .expect(200);
    expect(consent.text).toContain('Budget &lt;Tool&gt;');
    // the scopes in plain words: create only, not read
    expect(consent.text).toContain('<strong>Spend money and change your files</strong>');
    expect(consent.text).not.toContain('<strong>See your account</strong>');
    expect(consent.text).toContain('After your choice you will be sent to <code>http://127.0.0.1:9/callback</code>');
  });

  it('refuses a form post without the CSRF token', async () => {
    const client = await createOAuthClient(t);
    const { challenge } = await pkce();
    const url = await authorizationUrl(client, { scope: 'read', code_challenge: challenge, code_challenge_method: 'S256' });
    const agent = (await import('supertest')).default.agent(t.app.getHttpServer());
    const page = await agent.get(pathOf(url)).expect(200);
    const tid = /name="transaction_id" value="([^"]*)"/.exec(page.text)![1];
    await agent.post(pathOf(url)).type('form').send({ action: 'login', ...login, transaction_id: tid }).expect(403);
    await agent.post(pathOf(url)).type('form').send({ action: 'login', ...login, transaction_id: tid, csrf_token: 'forged' }).expect(403);
  });

  it('shows the login again with 401 for a wrong password', async () => {
    const client = await createOAuthClient(t);
    const { challenge } = await pkce();
    const url = await authorizationUrl(client, { scope: 'read', code_challenge: challenge, code_challenge_method: 'S256' });
    const agent = (await import('supertest')).default.agent(t.app.getHttpServer());
    const page = await agent.get(pathOf(url)).expect(200);
    const f = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.text)![1];
    const res = await agent
      .post(pathOf(url))
      .type('form')
      .send({ action: 'login', email: login.email, password: 'wrong password!', transaction_id: f('transaction_id'), csrf_token: f('csrf_token') })
      .expect(401);
    expect(res.text).toContain('Email or password is wrong');
  });

  it('echoes state and answers access_denied when the user denies', async () => {
    const client = await createOAuthClient(t);
    const { challenge } = await pkce();
    const url = await authorizationUrl(client, { scope: 'read', state: 'xyz-123', code_challenge: challenge, code_challenge_method: 'S256' });
    const back = await authorizeInBrowser(t, pathOf(url), login, 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(() => oauth.validateAuthResponse(as, { client_id: client.clientId }, back, 'xyz-123')).toThrow(oauth.AuthorizationResponseError);
    expect(back.searchParams.get('state')).toBe('xyz-123');
  });

  it('never redirects to a wrong or unregistered redirect URI, nor for an unknown client', async () => {
    const client = await createOAuthClient(t, { redirectUri: 'https://app.example/cb' });
    const { challenge } = await pkce();
    for (const redirectUri of ['https://app.example/cb/', 'https://evil.example/cb', 'https://app.example/cb?x=1']) {
      const url = await authorizationUrl({ ...client, redirectUri }, { scope: 'read', code_challenge: challenge, code_challenge_method: 'S256' });
      const res = await t.http().get(pathOf(url)).expect(400).expect('Content-Type', /html/);
      expect(res.headers.location).toBeUndefined();
    }
    const unknown = await authorizationUrl({ clientId: 'client_01zzzzzzzzzzzzzzzzzzzzzzzz', redirectUri: 'https://app.example/cb' }, { scope: 'read' });
    const res = await t.http().get(pathOf(unknown));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.location).toBeUndefined();
  });

  it('requires PKCE S256 for public clients', async () => {
    const client = await createOAuthClient(t, { public: true });
    const noPkce = await authorizationUrl(client, { scope: 'read', state: 's1' });
    const res = await t.http().get(pathOf(noPkce)).expect(302);
    const back = new URL(res.headers.location);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('s1');
    const plain = await authorizationUrl(client, { scope: 'read', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' });
    expect(new URL((await t.http().get(pathOf(plain)).expect(302)).headers.location).searchParams.get('error')).toBe('invalid_request');

    // With PKCE the public client gets tokens without a secret.
    const { params, verifier } = await authorize(client, 'read create');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      { client_id: client.clientId },
      await oauth.authorizationCodeGrantRequest(as, { client_id: client.clientId }, oauth.None(), params, client.redirectUri, verifier, options),
    );
    expect(tokens.scope).toBe('read create');
  });

  it('refuses an unknown scope with invalid_scope', async () => {
    const client = await createOAuthClient(t);
    const { challenge } = await pkce();
    const url = await authorizationUrl(client, { scope: 'read admin', code_challenge: challenge, code_challenge_method: 'S256' });
    const back = new URL((await t.http().get(pathOf(url)).expect(302)).headers.location);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
  });

  it('refuses a wrong code_verifier (PKCE failure) with invalid_grant', async () => {
    const client = await createOAuthClient(t);
    const { params } = await authorize(client);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: client.clientId },
      oauth.ClientSecretBasic(client.clientSecret!),
      params,
      client.redirectUri,
      oauth.generateRandomCodeVerifier(),
      options,
    );
    await expect(oauth.processAuthorizationCodeResponse(as, { client_id: client.clientId }, response)).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
  });

  it('spends the code on a failed code_verifier: the right verifier afterwards gets invalid_grant', async () => {
    const client = await createOAuthClient(t);
    const c = { client_id: client.clientId };
    const auth = oauth.ClientSecretBasic(client.clientSecret!);
    const { params, verifier } = await authorize(client);
    const wrong = await oauth.authorizationCodeGrantRequest(as, c, auth, params, client.redirectUri, oauth.generateRandomCodeVerifier(), options);
    await expect(oauth.processAuthorizationCodeResponse(as, c, wrong)).rejects.toMatchObject({ error: 'invalid_grant' });
    const right = await oauth.authorizationCodeGrantRequest(as, c, auth, params, client.redirectUri, verifier, options);
    expect(right.status).toBe(400);
    expect(await right.json()).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
  });

  it('redirects an unsupported response_type with error=unsupported_response_type when the client and redirect URI are valid (RFC 6749 §4.1.2.1)', async () => {
    const client = await createOAuthClient(t);
    for (const responseType of ['token', 'id_token', 'code token']) {
      const url = await authorizationUrl(client, { scope: 'read', state: 'st-9' });
      url.searchParams.set('response_type', responseType);
      const res = await t.http().get(pathOf(url)).expect(302);
      const back = new URL(res.headers.location);
      expect(`${back.origin}${back.pathname}`).toBe(client.redirectUri);
      expect(back.searchParams.get('error')).toBe('unsupported_response_type');
      expect(back.searchParams.get('state')).toBe('st-9');
      expect(back.searchParams.get('iss')).toBe(t.config.publicBaseUrl);
    }
    // still no redirect to an unregistered address
    const evil = await authorizationUrl({ ...client, redirectUri: 'https://evil.example/cb' }, { scope: 'read' });
    evil.searchParams.set('response_type', 'token');
    const res = await t.http().get(pathOf(evil)).expect(400);
    expect(res.headers.location).toBeUndefined();
  });

  it("refuses to revoke another client's tokens (RFC 7009 §2.1) and leaves them working", async () => {
    const token = await oauthToken(t, 'read', { accountId, ...login });
    const other = await createOAuthClient(t);
    for (const value of [token.accessToken, token.refreshToken]) {
      const res = await t.http().post('/revoke').type('form').auth(other.clientId, other.clientSecret!).send({ token: value }).expect(400);
      expect(res.body).toEqual({ error: 'unauthorized_client', error_description: expect.any(String) });
    }
    expect(await principalOf(token.accessToken)).not.toBeNull();
  });

  it('refuses a token request without the code_verifier the challenge asked for', async () => {
    const client = await createOAuthClient(t);
    const { params } = await authorize(client);
    const response = await oauth.authorizationCodeGrantRequest(as, { client_id: client.clientId }, oauth.ClientSecretBasic(client.clientSecret!), params, client.redirectUri, oauth.nopkce, options);
    await expect(oauth.processAuthorizationCodeResponse(as, { client_id: client.clientId }, response)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('makes codes single-use: a second use fails and revokes the tokens of the first', async () => {
    const client = await createOAuthClient(t);
    const { params, verifier } = await authorize(client);
    const auth = oauth.ClientSecretPost(client.clientSecret!);
    const first = await oauth.processAuthorizationCodeResponse(
      as,
      { client_id: client.clientId },
      await oauth.authorizationCodeGrantRequest(as, { client_id: client.clientId }, auth, params, client.redirectUri, verifier, options),
    );
    expect(await principalOf(first.access_token)).not.toBeNull();
    const again = await oauth.authorizationCodeGrantRequest(as, { client_id: client.clientId }, auth, params, client.redirectUri, verifier, options);
    await expect(oauth.processAuthorizationCodeResponse(as, { client_id: client.clientId }, again)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await principalOf(first.access_token)).toBeNull();
    const refresh = await oauth.refreshTokenGrantRequest(as, { client_id: client.clientId }, auth, first.refresh_token!, options);
    await expect(oauth.processRefreshTokenResponse(as, { client_id: client.clientId }, refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('rotates refresh tokens, and a reused refresh token revokes the whole grant', async () => {
    const client = await createOAuthClient(t);
    const c = { client_id: client.clientId };
    const auth = oauth.ClientSecretBasic(client.clientSecret!);
    const { params, verifier } = await authorize(client);
    const first = await oauth.processAuthorizationCodeResponse(as, c, await oauth.authorizationCodeGrantRequest(as, c, auth, params, client.redirectUri, verifier, options));
    const second = await oauth.processRefreshTokenResponse(as, c, await oauth.refreshTokenGrantRequest(as, c, auth, first.refresh_token!, options));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect((await principalOf(second.access_token))?.scopes).toEqual(['read', 'create']);
    // narrowing the scope on refresh
    const third = await oauth.processRefreshTokenResponse(
      as,
      c,
      await oauth.refreshTokenGrantRequest(as, c, auth, second.refresh_token!, { ...options, additionalParameters: { scope: 'read' } }),
    );
    expect(third.scope).toBe('read');
    expect((await principalOf(third.access_token))?.scopes).toEqual(['read']);
    // the rotated (old) refresh token comes back: theft; everything of the grant dies
    const reuse = await oauth.refreshTokenGrantRequest(as, c, auth, first.refresh_token!, options);
    await expect(oauth.processRefreshTokenResponse(as, c, reuse)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await principalOf(third.access_token)).toBeNull();
    const latest = await oauth.refreshTokenGrantRequest(as, c, auth, third.refresh_token!, options);
    await expect(oauth.processRefreshTokenResponse(as, c, latest)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a refresh token presented by another client', async () => {
    const token = await oauthToken(t, 'read', { accountId, ...login });
    const other = await createOAuthClient(t);
    const res = await oauth.refreshTokenGrantRequest(as, { client_id: other.clientId }, oauth.ClientSecretBasic(other.clientSecret!), token.refreshToken, options);
    await expect(oauth.processRefreshTokenResponse(as, { client_id: other.clientId }, res)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('authenticates confidential clients: a wrong secret is invalid_client (401)', async () => {
    const client = await createOAuthClient(t);
    const { params, verifier } = await authorize(client);
    for (const auth of [oauth.ClientSecretBasic('gcs_wrong'), oauth.ClientSecretPost('gcs_wrong'), oauth.None()]) {
      const res = await oauth.authorizationCodeGrantRequest(as, { client_id: client.clientId }, auth, params, client.redirectUri, verifier, options);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    }
  });

  it('answers RFC 6749 JSON errors for malformed token requests', async () => {
    const client = await createOAuthClient(t);
    const missing = await t.http().post('/token').type('form').auth(client.clientId, client.clientSecret!).send({}).expect(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    const unsupported = await t.http().post('/token').type('form').auth(client.clientId, client.clientSecret!).send({ grant_type: 'password' }).expect(400);
    expect(unsupported.body.error).toBe('unsupported_grant_type');
    const noCode = await t.http().post('/token').type('form').auth(client.clientId, client.clientSecret!).send({ grant_type: 'authorization_code' }).expect(400);
    expect(noCode.body.error).toBe('invalid_request');
    const badCode = await t
      .http()
      .post('/token')
      .type('form')
      .auth(client.clientId, client.clientSecret!)
      .send({ grant_type: 'authorization_code', code: 'nope', redirect_uri: client.redirectUri })
      .expect(400);
    expect(badCode.body.error).toBe('invalid_grant');
  });

  it('revokes access tokens and refresh tokens (RFC 7009)', async () => {
    const client = await createOAuthClient(t);
    const c = { client_id: client.clientId };
    const auth = oauth.ClientSecretBasic(client.clientSecret!);
    const { params, verifier } = await authorize(client);
    const tokens = await oauth.processAuthorizationCodeResponse(as, c, await oauth.authorizationCodeGrantRequest(as, c, auth, params, client.redirectUri, verifier, options));
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, auth, tokens.access_token, options));
    expect(await principalOf(tokens.access_token)).toBeNull();
    // the refresh token still works until it is revoked itself
    const next = await oauth.processRefreshTokenResponse(as, c, await oauth.refreshTokenGrantRequest(as, c, auth, tokens.refresh_token!, options));
    expect(await principalOf(next.access_token)).not.toBeNull();
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, auth, next.refresh_token!, options));
    expect(await principalOf(next.access_token)).toBeNull();
    // unknown tokens: 200 all the same
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, auth, 'gsa_nothing', options));
    // but the client must authenticate
    const bad = await oauth.revocationRequest(as, c, oauth.ClientSecretBasic('gcs_wrong'), next.refresh_token!, options);
    expect(bad.status).toBe(401);
  });

  it('expires access tokens after ACCESS_TOKEN_TTL_SECONDS', async () => {
    const { FixedClock } = await import('@gensvc/kernel');
    const clock = new FixedClock(new Date());
    const t2 = await startTestApp({ env: { ACCESS_TOKEN_TTL_SECONDS: '60' }, overrides: { clock } });
    try {
      const token = await oauthToken(t2, 'read');
      const auth = t2.app.get(Authenticator);
      expect(await auth.verifyBearer(token.accessToken)).not.toBeNull();
      clock.advance(61_000);
      expect(await auth.verifyBearer(token.accessToken)).toBeNull();
    } finally {
      await t2.close();
    }
  });

  it('marks the session cookie Secure when the public base URL is https', async () => {
    const t2 = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://gensvc.example' } });
    try {
      const client = await createOAuthClient(t2);
      const verifier = oauth.generateRandomCodeVerifier();
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: 'read',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const res = await t2.http().get(`/authorize?${q}`).set('X-Forwarded-Proto', 'https').expect(200);
      expect(String(res.headers['set-cookie'])).toMatch(/; Secure/);
      const meta = await t2.http().get('/.well-known/oauth-authorization-server').expect(200);
      expect(meta.body.authorization_endpoint).toBe('https://gensvc.example/authorize');
    } finally {
      await t2.close();
    }
  });
});
