import { bearer, createAccount, oauthToken } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';

/** API-key management over HTTP: only the web console's own sign-in may use it. */
describe('API keys over HTTP (console sign-in only)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const login = async () => {
    const email = `keys-${Math.random().toString(36).slice(2)}@example.com`;
    const a = await createAccount(t, { email, password: 'correct horse battery' });
    return { ...a, email, password: 'correct horse battery' };
  };

  it('lists, creates (shown once) and revokes keys for the console client', async () => {
    const a = await login();
    const c = bearer((await oauthToken(t, 'read create', a, { console: true })).accessToken);
    const first = await t.http().get('/v1/api-keys').set(c).expect(200);
    expect(first.body).toEqual({ data: [{ id: a.keyId, status: 'active', created_at: expect.any(String), revoked_at: null }], page: 1, limit: 30, has_more: false });
    const made = await t.http().post('/v1/api-keys').set(c).send({}).expect(201);
    expect(made.body).toEqual({ id: expect.stringMatching(/^key_/), status: 'active', created_at: expect.any(String), revoked_at: null, api_key: expect.stringMatching(/^gsk_/) });
    await t.http().get('/v1/wallet').set(bearer(made.body.api_key)).expect(200);
    const listed = await t.http().get('/v1/api-keys?limit=1').set(c).expect(200);
    expect(listed.body).toMatchObject({ data: [{ id: made.body.id }], limit: 1, has_more: true });
    expect(JSON.stringify(listed.body)).not.toContain('gsk_');
    const revoked = await t.http().delete(`/v1/api-keys/${made.body.id}`).set(c).expect(200);
    expect(revoked.body).toMatchObject({ id: made.body.id, status: 'revoked', revoked_at: expect.any(String) });
    await t.http().get('/v1/wallet').set(bearer(made.body.api_key)).expect(401);
    await t.http().delete(`/v1/api-keys/${made.body.id}`).set(c).expect(200);
  });

  it('refuses API keys and tokens of other OAuth clients with 403, no credential with 401', async () => {
    const a = await login();
    const thirdParty = bearer((await oauthToken(t, 'read create', a)).accessToken);
    for (const [method, path] of [
      ['get', '/v1/api-keys'],
      ['post', '/v1/api-keys'],
      ['delete', `/v1/api-keys/${a.keyId}`],
    ] as const) {
      for (const cred of [bearer(a), thirdParty]) {
        const res = await t.http()[method](path).set(cred).send(method === 'post' ? {} : undefined);
        expect({ path, status: res.status }).toEqual({ path, status: 403 });
        expectError(res.body, 'INSUFFICIENT_SCOPE');
      }
      const none = await t.http()[method](path);
      expect(none.status).toBe(401);
    }
    // nothing was created or revoked
    await t.http().get('/v1/wallet').set(bearer(a)).expect(200);
  });

  it('needs the scope: a read-only console sign-in lists but cannot create', async () => {
    const a = await login();
    const readOnly = bearer((await oauthToken(t, 'read', a, { console: true })).accessToken);
    await t.http().get('/v1/api-keys').set(readOnly).expect(200);
    expectError((await t.http().post('/v1/api-keys').set(readOnly).send({}).expect(403)).body, 'INSUFFICIENT_SCOPE');
  });

  it("cannot touch another account's key, and checks its input", async () => {
    const a = await login();
    const b = await login();
    const c = bearer((await oauthToken(t, 'read create', a, { console: true })).accessToken);
    expectError((await t.http().delete(`/v1/api-keys/${b.keyId}`).set(c).expect(404)).body, 'NOT_FOUND');
    await t.http().get('/v1/wallet').set(bearer(b)).expect(200);
    expectError((await t.http().post('/v1/api-keys').set(c).send({ name: 'x' }).expect(400)).body, 'VALIDATION_ERROR');
    expectError((await t.http().get('/v1/api-keys?limit=0').set(c).expect(400)).body, 'VALIDATION_ERROR');
    expectError((await t.http().post('/v1/api-keys').set(c).set('Content-Type', 'text/plain').send('x').expect(415)).body, 'UNSUPPORTED_MEDIA_TYPE');
    expectError((await t.http().post('/v1/api-keys').set(c).expect(415)).body, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await t.http().get('/v1/api-keys').set(c).expect(200)).body.data).toHaveLength(1);
  });
});
