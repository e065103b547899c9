import { randomUUID } from 'node:crypto';
import { LocalSupplierControls } from '@gensvc/suppliers';
import { startTestApp, expectError, type TestApp } from './support/test-app';
import { bearer, createAccount, createApiKey, type TestAccount } from './support/accounts';

const TEXT = { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hello' } };
const IMAGE = { model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a fox', size: '512x512', count: 1 } };
const SPEECH = { model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'Hello there' } };

/** GET /v1/tasks and GET /v1/billing: filters, validation, order, pages. */
describe.each([
  ['/v1/tasks', 'id'],
  ['/v1/billing', 'task_id'],
])('GET %s', (path, idField) => {
  let t: TestApp;
  let acc: TestAccount;
  let otherKey: { keyId: string; apiKey: string };
  let controls: LocalSupplierControls;
  /** Created in this order: succeeded text 'Alpha report', failed image 'beta sketch', canceled speech 'Gamma', queued text null title. */
  const made: Record<string, { id: string; created_at: string }> = {};
  const list = (query = '', who: { apiKey: string } = acc) => t.http().get(`${path}${query}`).set(bearer(who));
  const ids = (body: { data: Record<string, string>[] }) => body.data.map((x) => x[idField]);

  const create = async (body: object, title: string | undefined, who: { apiKey: string } = acc) => {
    const q = await t.http().post('/v1/quotes').set(bearer(who)).send(body).expect(200);
    const res = await t.http().post('/v1/tasks').set(bearer(who)).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: q.body.quote_id, ...(title ? { title } : {}) }).expect(202);
    return res.body as { id: string; created_at: string };
  };
  const settled = async (id: string) => {
    for (let i = 0; i < 500; i++) {
      const x = (await t.http().get(`/v1/tasks/${id}`).set(bearer(acc)).expect(200)).body;
      if (x.settlement_status !== 'reserved') return x;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`task ${id} did not settle`);
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '30' } });
    controls = t.app.get(LocalSupplierControls, { strict: false });
    acc = await createAccount(t, { credit: '10.00' });
    otherKey = await createApiKey(t, acc.accountId);
    made.alpha = await create(TEXT, 'Alpha report');
    await settled(made.alpha.id);
    controls.failNext();
    made.beta = await create(IMAGE, 'beta sketch', otherKey);
    await settled(made.beta.id);
    controls.setDelayMs(60_000);
    made.gamma = await create(SPEECH, 'Gamma');
    await t.http().post(`/v1/tasks/${made.gamma.id}/cancel`).set(bearer(acc)).expect(200);
    made.delta = await create(TEXT, undefined);
    // another account's tasks never show
    const stranger = await createAccount(t, { credit: '1.00' });
    await create(TEXT, 'Alpha report', stranger);
  });
  afterAll(() => t.close());

  it('lists the own tasks newest first with the page shape', async () => {
    const res = await list().expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'limit', 'page']);
    expect(res.body).toMatchObject({ page: 1, limit: 30, has_more: false });
    expect(ids(res.body)).toEqual([made.delta.id, made.gamma.id, made.beta.id, made.alpha.id]);
  });

  it('pages with limit and page, reporting has_more', async () => {
    const p1 = await list('?limit=3').expect(200);
    expect(p1.body).toMatchObject({ page: 1, limit: 3, has_more: true });
    expect(ids(p1.body)).toEqual([made.delta.id, made.gamma.id, made.beta.id]);
    const p2 = await list('?limit=3&page=2').expect(200);
    expect(p2.body).toMatchObject({ page: 2, limit: 3, has_more: false });
    expect(ids(p2.body)).toEqual([made.alpha.id]);
    const p9 = await list('?page=9').expect(200);
    expect(p9.body).toEqual({ data: [], page: 9, limit: 30, has_more: false });
  });

  it('filters by q on the title (any case) and on the id', async () => {
    expect(ids((await list('?q=alpha').expect(200)).body)).toEqual([made.alpha.id]);
    expect(ids((await list('?q=SKETCH').expect(200)).body)).toEqual([made.beta.id]);
    expect(ids((await list(`?q=${made.gamma.id}`).expect(200)).body)).toEqual([made.gamma.id]);
    expect(ids((await list('?q=.*').expect(200)).body)).toEqual([]);
  });

  it('filters by status, modality, settlement_status and connection_id', async () => {
    expect(ids((await list('?status=succeeded').expect(200)).body)).toEqual([made.alpha.id]);
    expect(ids((await list('?status=failed').expect(200)).body)).toEqual([made.beta.id]);
    expect(ids((await list('?status=canceled').expect(200)).body)).toEqual([made.gamma.id]);
    expect(ids((await list('?modality=text').expect(200)).body)).toEqual([made.delta.id, made.alpha.id]);
    expect(ids((await list('?modality=audio').expect(200)).body)).toEqual([made.gamma.id]);
    expect(ids((await list('?settlement_status=settled').expect(200)).body)).toEqual([made.alpha.id]);
    expect(ids((await list('?settlement_status=released').expect(200)).body)).toEqual([made.gamma.id, made.beta.id]);
    expect(ids((await list('?settlement_status=reserved').expect(200)).body)).toEqual([made.delta.id]);
    expect(ids((await list(`?connection_id=${otherKey.keyId}`).expect(200)).body)).toEqual([made.beta.id]);
    expect(ids((await list(`?connection_id=${acc.keyId}&modality=text`).expect(200)).body)).toEqual([made.delta.id, made.alpha.id]);
  });

  it('filters by creation time: created_from inclusive, created_before exclusive', async () => {
    const at = encodeURIComponent(made.beta.created_at);
    expect(ids((await list(`?created_from=${at}`).expect(200)).body)).toEqual([made.delta.id, made.gamma.id, made.beta.id]);
    expect(ids((await list(`?created_before=${at}`).expect(200)).body)).toEqual([made.alpha.id]);
    const shifted = new Date(Date.parse(made.beta.created_at)).toISOString().replace('Z', '+00:00');
    expect(ids((await list(`?created_from=${encodeURIComponent(shifted)}&created_before=${encodeURIComponent(made.gamma.created_at)}`).expect(200)).body)).toEqual([
      made.beta.id,
    ]);
  });

  it('filters by net charged amount, excluding unsettled tasks', async () => {
    expect(ids((await list('?min_amount=0.02').expect(200)).body)).toEqual([made.alpha.id]);
    expect(ids((await list('?max_amount=0').expect(200)).body)).toEqual([made.gamma.id, made.beta.id]);
    expect(ids((await list('?min_amount=0&max_amount=1').expect(200)).body)).toEqual([made.gamma.id, made.beta.id, made.alpha.id]);
    expect(ids((await list('?min_amount=0.020001').expect(200)).body)).toEqual([]);
  });

  it.each([
    ['page=0', 'page'],
    ['page=100001', 'page'],
    ['page=1.5', 'page'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    [`q=${'x'.repeat(201)}`, 'q'],
    [`status=${'s'.repeat(41)}`, 'status'],
    ['status=done', 'status'],
    [`modality=${'m'.repeat(41)}`, 'modality'],
    [`settlement_status=${'s'.repeat(41)}`, 'settlement_status'],
    [`connection_id=${'c'.repeat(101)}`, 'connection_id'],
    ['created_from=2026-01-01', 'created_from'],
    ['created_from=2026-01-01T00:00:00', 'created_from'],
    ['created_before=yesterday', 'created_before'],
    ['min_amount=1.1234567', 'min_amount'],
    ['min_amount=1234567890', 'min_amount'],
    ['max_amount=-1', 'max_amount'],
    ['max_amount=1e3', 'max_amount'],
    ['limit=5&limit=6', 'limit'],
    ['sort=asc', 'sort'],
  ])('refuses %s with 400 naming the parameter', async (query, name) => {
    const res = await list(`?${query}`).expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(name);
  });

  it('accepts the bounds of every range', async () => {
    await list(`?page=100000&limit=100&q=${'x'.repeat(200)}&connection_id=${'c'.repeat(100)}&min_amount=999999999.999999&max_amount=0.0`).expect(200);
    await list(`?created_from=${encodeURIComponent('2026-01-01T00:00:00.123456+08:00')}&created_before=2099-01-01T00:00:00z`).expect(200);
    // an unencoded '+' (read as a space) is taken as '+'
    await list('?created_from=2026-01-01T00:00:00+08:00').expect(200);
  });
});

describe('GET /v1/tasks/{id} and /v1/billing across accounts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("never shows another account's bills", async () => {
    const a = await createAccount(t, { credit: '1.00' });
    const b = await createAccount(t, { credit: '1.00' });
    const q = await t.http().post('/v1/quotes').set(bearer(a)).send(TEXT).expect(200);
    const task = await t.http().post('/v1/tasks').set(bearer(a)).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: q.body.quote_id }).expect(202);
    const mine = await t.http().get('/v1/billing').set(bearer(a)).expect(200);
    expect(mine.body.data.map((x: { task_id: string }) => x.task_id)).toEqual([task.body.id]);
    expect(mine.body.data[0]).toMatchObject({ settlement_status: 'reserved', charged_amount: null, released_amount: null, settled_at: null, max_amount: '0.020000' });
    const theirs = await t.http().get('/v1/billing').set(bearer(b)).expect(200);
    expect(theirs.body.data).toEqual([]);
    await t.http().get(`/v1/tasks/${task.body.id}`).set(bearer(b)).expect(404);
  });
});
