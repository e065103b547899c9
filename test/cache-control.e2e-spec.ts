import { createHash } from 'node:crypto';
import { bearer, createAccount, oauthToken, type TestAccount } from './support/accounts';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * CONTRACT §17: answers that carry a credential, a secret or signed links are never kept by a
 * cache (`Cache-Control: no-store`): /token, key creation, upload prepare and the upload
 * token's answers, secret rotation, webhook endpoint creation, asset reads, and everything
 * else answered to a credential (including tool results over /mcp).
 */
describe('Cache-Control: no-store on answers with credentials, secrets or signed links', () => {
  let t: TestApp;
  let acc: TestAccount;
  const email = 'cache@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    t = await startTestApp();
    acc = await createAccount(t, { credit: '10.00', email, password });
  });
  afterAll(() => t.close());

  const noStore = (res: { headers: Record<string, string | undefined> }, what: string) => expect({ what, cacheControl: res.headers['cache-control'] }).toEqual({ what, cacheControl: 'no-store' });

  it('key creation (console), /token', async () => {
    const consoleToken = (await oauthToken(t, 'read create', { accountId: acc.accountId, email, password }, { console: true })).accessToken;
    const key = await t.http().post('/v1/api-keys').set(bearer(consoleToken)).send({}).expect(201);
    expect(key.body.api_key).toBeDefined();
    noStore(key, 'POST /v1/api-keys');
    noStore(await t.http().get('/v1/api-keys').set(bearer(consoleToken)).expect(200), 'GET /v1/api-keys');
    noStore(await t.http().post('/token').type('form').send({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nope' }), 'POST /token');
  });

  it('upload prepare, the content write, complete, the upload read, direct upload and asset reads (signed links)', async () => {
    const bytes = Buffer.from('hello, caches');
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const prepared = await t.http().post('/v1/uploads/prepare').set(bearer(acc)).send({ name: 'c.txt', mime: 'text/plain', size: bytes.length, checksum, idempotency_key: 'cache-control-1' }).expect(200);
    noStore(prepared, 'POST /v1/uploads/prepare (upload token)');
    const put = t.http().put(new URL(prepared.body.upload.url).pathname);
    for (const [k, v] of Object.entries<string>(prepared.body.upload.headers)) put.set(k, v);
    noStore(await put.send(bytes.toString()).expect(200), 'PUT /v1/uploads/{id}/content');
    const done = await t.http().post(`/v1/uploads/${prepared.body.upload_id}/complete`).set(bearer(acc)).send({}).expect(200);
    expect(done.body.asset.url).toContain('signature=');
    noStore(done, 'POST /v1/uploads/{id}/complete');
    noStore(await t.http().get(`/v1/uploads/${prepared.body.upload_id}`).set(bearer(acc)).expect(200), 'GET /v1/uploads/{id}');
    noStore(await t.http().post('/v1/uploads').set(bearer(acc)).set('Content-Type', 'text/plain').set('X-Filename', 'd.txt').send('direct').expect(201), 'POST /v1/uploads');
    noStore(await t.http().get(`/v1/assets/${done.body.asset_id}`).set(bearer(acc)).expect(200), 'GET /v1/assets/{id}');
    noStore(await t.http().get('/v1/assets').set(bearer(acc)).expect(200), 'GET /v1/assets');
  });

  it('webhook endpoint creation and secret rotation', async () => {
    const created = await t.http().post('/v1/webhook-endpoints').set(bearer(acc)).send({ url: 'https://hooks.example.com/c', events: ['*'] }).expect(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    noStore(created, 'POST /v1/webhook-endpoints');
    noStore(await t.http().post(`/v1/webhook-endpoints/${created.body.id}/rotate-secret`).set(bearer(acc)).expect(200), 'POST /v1/webhook-endpoints/{id}/rotate-secret');
  });

  it('every other answer to a credential, errors included, and tool results over /mcp', async () => {
    noStore(await t.http().get('/v1/wallet').set(bearer(acc)).expect(200), 'GET /v1/wallet');
    noStore(await t.http().get('/v1/tasks/task_nope').set(bearer(acc)).expect(404), 'GET /v1/tasks/{id} 404');
    noStore(await t.http().get('/v1/wallet').set(bearer('gsk_wrong')).expect(401), 'GET /v1/wallet 401');
    const tool = await t
      .http()
      .post('/mcp')
      .set(bearer(acc))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wallet.get', arguments: {} } })
      .buffer(true);
    expect(tool.status).toBe(200);
    expect(tool.text).toContain('"available":"10.000000"');
    noStore(tool, 'POST /mcp');
  });

  it('leaves public answers cacheable as they were', async () => {
    expect((await t.http().get('/.well-known/oauth-protected-resource').expect(200)).headers['cache-control']).toBe('public, max-age=300');
    expect((await t.http().get('/v1/models').expect(200)).headers['cache-control']).not.toBe('no-store');
  });
});
