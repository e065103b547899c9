import { EventStore } from '@gensvc/event-sourcing';
import { NotificationSettings } from '@gensvc/notifications';
import { bearer, createAccount, oauthToken, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';

const ENDPOINT_FIELDS = ['created_at', 'description', 'events', 'id', 'status', 'url'];

describe('webhook endpoints', () => {
  let t: TestApp;
  let acc: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await startTestApp();
    acc = await createAccount(t);
    other = await createAccount(t);
  });
  afterAll(() => t.close());
  afterEach(() => {
    t.app.get(NotificationSettings).allowLocal = false;
    t.app.get(NotificationSettings).allowedPorts = [];
  });

  const create = (who: TestAccount, body: object) => t.http().post('/v1/webhook-endpoints').set(bearer(who)).send(body);
  const storedEvents = async () => (await t.app.get(EventStore).readAll({ after: -1n, maxCount: 100_000 })).length;

  it('creates an endpoint and shows its secret only in that answer', async () => {
    const res = await create(acc, { url: 'https://hooks.example.com/gensvc', events: ['task.succeeded', 'task.failed'], description: ' Orders ' }).expect(201);
    expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
    expect(res.body).toMatchObject({ url: 'https://hooks.example.com/gensvc', events: ['task.succeeded', 'task.failed'], description: 'Orders', status: 'enabled' });
    expect(res.body.id).toMatch(/^whe_[0-9a-z]+$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(res.body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);

    const got = await t.http().get(`/v1/webhook-endpoints/${res.body.id}`).set(bearer(acc)).expect(200);
    expect(Object.keys(got.body).sort()).toEqual(ENDPOINT_FIELDS);
    const { secret: _secret, ...withoutSecret } = res.body;
    expect(got.body).toEqual(withoutSecret);

    const list = await t.http().get('/v1/webhook-endpoints').set(bearer(acc)).expect(200);
    expect(list.body).toEqual({ data: [withoutSecret], page: 1, limit: 30, has_more: false });
    // The secret is not in the event store in plain text.
    const all = await t.app.get(EventStore).readAll({ after: -1n, maxCount: 100_000 });
    expect(JSON.stringify(all.map((e) => e.data))).not.toContain(res.body.secret.slice(6));
  });

  it('accepts "*" and refuses unknown event types, other schemes and refused addresses, storing nothing', async () => {
    await create(acc, { url: 'https://hooks.example.com/all', events: ['*'] }).expect(201);
    const before = await storedEvents();
    const refusals: [object, number, string][] = [
      [{ url: 'https://hooks.example.com/x', events: ['task.exploded'] }, 400, 'VALIDATION_ERROR'],
      [{ url: 'https://hooks.example.com/x', events: [] }, 400, 'VALIDATION_ERROR'],
      [{ url: 'https://hooks.example.com/x', events: ['*', 'task.created'] }, 400, 'VALIDATION_ERROR'],
      [{ url: 'https://hooks.example.com/x' }, 400, 'VALIDATION_ERROR'],
      [{ url: 'https://hooks.example.com/x', events: ['*'], secret: 'mine' }, 400, 'VALIDATION_ERROR'],
      [{ url: 'http://hooks.example.com/x', events: ['*'] }, 400, 'VALIDATION_ERROR'],
      [{ url: 'ftp://hooks.example.com/x', events: ['*'] }, 400, 'VALIDATION_ERROR'],
      [{ url: 'not a url', events: ['*'] }, 400, 'VALIDATION_ERROR'],
      [{ url: 'https://user:pw@hooks.example.com/x', events: ['*'] }, 400, 'VALIDATION_ERROR'],
      [{ url: 'https://127.0.0.1/x', events: ['*'] }, 422, 'WEBHOOK_URL_FORBIDDEN'],
      [{ url: 'https://localhost/x', events: ['*'] }, 422, 'WEBHOOK_URL_FORBIDDEN'],
      [{ url: 'https://10.1.2.3/x', events: ['*'] }, 422, 'WEBHOOK_URL_FORBIDDEN'],
      [{ url: 'https://169.254.169.254/latest/meta-data', events: ['*'] }, 422, 'WEBHOOK_URL_FORBIDDEN'],
      [{ url: 'https://[::1]/x', events: ['*'] }, 422, 'WEBHOOK_URL_FORBIDDEN'],
      [{ url: 'https://[::ffff:127.0.0.1]/x', events: ['*'] }, 422, 'WEBHOOK_URL_FORBIDDEN'],
      [{ url: 'https://0x7f000001/x', events: ['*'] }, 422, 'WEBHOOK_URL_FORBIDDEN'],
      [{ url: 'https://printer.local/x', events: ['*'] }, 422, 'WEBHOOK_URL_FORBIDDEN'],
    ];
    for (const [body, status, code] of refusals) {
      const res = await create(acc, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
      expectError(res.body, code);
    }
    expect(await storedEvents()).toBe(before);
  });

  it('WEBHOOKS_ALLOW_LOCAL allows http:// and loopback, never private or metadata addresses', async () => {
    t.app.get(NotificationSettings).allowLocal = true;
    await create(acc, { url: 'http://127.0.0.1:8080/hook', events: ['*'] }).expect(201);
    await create(acc, { url: 'http://localhost:8080/hook', events: ['*'] }).expect(201);
    await create(acc, { url: 'http://[::1]:8080/hook', events: ['*'] }).expect(201);
    for (const url of ['http://10.0.0.1/hook', 'http://192.168.1.1/hook', 'http://169.254.169.254/', 'http://[fe80::1]/x', 'http://[::ffff:10.0.0.1]/x']) {
      const res = await create(acc, { url, events: ['*'] });
      expect([url, res.status]).toEqual([url, 422]);
      expectError(res.body, 'WEBHOOK_URL_FORBIDDEN');
    }
  });

  it('takes public addresses on port 443 only, unless the operator allows more ports (WEBHOOK_ALLOWED_PORTS); loopback with WEBHOOKS_ALLOW_LOCAL on any port', async () => {
    const before = await storedEvents();
    for (const url of ['https://hooks.example.com:8443/x', 'https://hooks.example.com:22/x', 'https://hooks.example.com:80/x', 'https://93.184.215.14:6379/x', 'https://hooks.example.com:65535/x']) {
      const res = await create(acc, { url, events: ['*'] });
      expect([url, res.status]).toEqual([url, 422]);
      expectError(res.body, 'WEBHOOK_URL_FORBIDDEN');
      expect(res.body.error.message).toMatch(/port/);
    }
    expect(await storedEvents()).toBe(before);
    await create(acc, { url: 'https://hooks.example.com:443/explicit', events: ['*'] }).expect(201);
    const settings = t.app.get(NotificationSettings);
    settings.allowedPorts = [8443];
    await create(acc, { url: 'https://hooks.example.com:8443/x', events: ['*'] }).expect(201);
    expectError((await create(acc, { url: 'https://hooks.example.com:8444/x', events: ['*'] }).expect(422)).body, 'WEBHOOK_URL_FORBIDDEN');
    settings.allowedPorts = [];
    settings.allowLocal = true;
    await create(acc, { url: 'http://127.0.0.1:6379/hook', events: ['*'] }).expect(201);
    await create(acc, { url: 'http://localhost:22/hook', events: ['*'] }).expect(201);
    // Only loopback gets any port: a public address keeps the rule, with http:// too.
    for (const url of ['https://hooks.example.com:8443/x', 'http://hooks.example.com/x']) {
      expectError((await create(acc, { url, events: ['*'] }).expect(422)).body, 'WEBHOOK_URL_FORBIDDEN');
    }
  });

  it('allows at most 16 endpoints per account; deleting one makes room', async () => {
    const a = await createAccount(t);
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await create(a, { url: `https://hooks.example.com/${i}`, events: ['*'] }).expect(201)).body.id);
    const refused = await create(a, { url: 'https://hooks.example.com/17', events: ['*'] }).expect(422);
    expectError(refused.body, 'WEBHOOK_ENDPOINT_LIMIT_REACHED');
    const page = await t.http().get('/v1/webhook-endpoints?limit=10&page=2').set(bearer(a)).expect(200);
    expect(page.body).toMatchObject({ page: 2, limit: 10, has_more: false });
    expect(page.body.data).toHaveLength(6);
    expect(await t.http().delete(`/v1/webhook-endpoints/${ids[3]}`).set(bearer(a)).expect(200)).toMatchObject({ body: { id: ids[3], deleted: true } });
    await create(a, { url: 'https://hooks.example.com/17', events: ['*'] }).expect(201);
  });

  it('deletes and rotates only the caller\'s own endpoints', async () => {
    const mine = (await create(acc, { url: 'https://hooks.example.com/own', events: ['task.created'] }).expect(201)).body;
    for (const res of [
      await t.http().get(`/v1/webhook-endpoints/${mine.id}`).set(bearer(other)),
      await t.http().delete(`/v1/webhook-endpoints/${mine.id}`).set(bearer(other)),
      await t.http().post(`/v1/webhook-endpoints/${mine.id}/rotate-secret`).set(bearer(other)),
      await t.http().get('/v1/webhook-endpoints/whe_01unknown0000000000000000').set(bearer(acc)),
      await t.http().get('/v1/webhook-endpoints/nonsense').set(bearer(acc)),
    ]) {
      expect(res.status).toBe(404);
      expectError(res.body, 'NOT_FOUND');
    }
    expect((await t.http().get('/v1/webhook-endpoints').set(bearer(other)).expect(200)).body.data).toEqual([]);

    const rotated = await t.http().post(`/v1/webhook-endpoints/${mine.id}/rotate-secret`).set(bearer(acc)).expect(200);
    expect(rotated.body).toMatchObject({ id: mine.id, url: mine.url, status: 'enabled' });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(mine.secret);

    await t.http().delete(`/v1/webhook-endpoints/${mine.id}`).set(bearer(acc)).expect(200);
    expectError((await t.http().get(`/v1/webhook-endpoints/${mine.id}`).set(bearer(acc)).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().delete(`/v1/webhook-endpoints/${mine.id}`).set(bearer(acc)).expect(404)).body, 'NOT_FOUND');
    const ids = (await t.http().get('/v1/webhook-endpoints?limit=100').set(bearer(acc)).expect(200)).body.data.map((e: { id: string }) => e.id);
    expect(ids).not.toContain(mine.id);
  });

  it('needs a credential and the create scope to change endpoints', async () => {
    expectError((await t.http().get('/v1/webhook-endpoints').expect(401)).body, 'UNAUTHORIZED');
    expectError((await t.http().post('/v1/webhook-endpoints').send({ url: 'https://hooks.example.com/x', events: ['*'] }).expect(401)).body, 'UNAUTHORIZED');
    const reader = await oauthToken(t, 'read');
    expect((await t.http().get('/v1/webhook-endpoints').set(bearer(reader.accessToken)).expect(200)).body.data).toEqual([]);
    const refused = await t.http().post('/v1/webhook-endpoints').set(bearer(reader.accessToken)).send({ url: 'https://hooks.example.com/x', events: ['*'] });
    expect(refused.status).toBe(403);
    expectError(refused.body, 'INSUFFICIENT_SCOPE');
  });

  it('needs read and create to register an endpoint: its messages carry task data a create-only grant may not read', async () => {
    const email = `writer-${Date.now()}@example.com`;
    const password = 'correct horse battery';
    const owner = await createAccount(t, { email, password });
    const login = { accountId: owner.accountId, email, password };
    const writer = await oauthToken(t, 'create', login);
    const before = await storedEvents();
    for (const events of [['*'], ['task.succeeded'], ['upload.completed']]) {
      const refused = await t.http().post('/v1/webhook-endpoints').set(bearer(writer.accessToken)).send({ url: 'https://hooks.example.com/x', events });
      expect(refused.status).toBe(403);
      expectError(refused.body, 'INSUFFICIENT_SCOPE');
      expect(refused.body.error.message).toMatch(/read and create/);
      expect(refused.headers['www-authenticate']).toContain('scope="read create"');
    }
    expect(await storedEvents()).toBe(before);
    expect((await t.http().get('/v1/webhook-endpoints').set(bearer(owner)).expect(200)).body.data).toEqual([]);
    const both = await oauthToken(t, 'read create', login);
    const created = await t.http().post('/v1/webhook-endpoints').set(bearer(both.accessToken)).send({ url: 'https://hooks.example.com/x', events: ['*'] }).expect(201);
    expect(created.body.secret).toMatch(/^whsec_/);
  });
});
