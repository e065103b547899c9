import { AssetRegistry } from '@gensvc/assets';
import { EventStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { FixedClock } from '@gensvc/kernel';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';
import { fixture, metaOf, prepare, putContent, sha256, storedObjects, until, uploadFile } from './fixtures/helpers';

const ASSET_FIELDS = ['checksum', 'created_at', 'download_name', 'download_url', 'id', 'links_expire_at', 'mime', 'name', 'size', 'url'];
const HOUR = 3_600_000;

/** Path and query of an absolute link (supertest talks to the app directly). */
const local = (link: string) => {
  const u = new URL(link);
  return u.pathname + u.search;
};

function binary(req: import('supertest').Test) {
  return req.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });
}

describe('assets and signed links', () => {
  let t: TestApp;
  let clock: FixedClock;
  let alice: TestAccount;
  let bob: TestAccount;
  const png = fixture('image.png');
  let assetId: string;

  beforeAll(async () => {
    clock = new FixedClock(new Date());
    t = await startTestApp({ overrides: { clock } });
    alice = await createAccount(t);
    bob = await createAccount(t);
    assetId = (await uploadFile(t, alice, png, 'image/png', 'Grüße "fox".png')).asset_id;
  });
  afterAll(() => t.close());

  it('GET /v1/assets/{id} returns the asset object with fresh links valid one hour', async () => {
    const res = await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(ASSET_FIELDS);
    expect(res.body).toMatchObject({ id: assetId, name: 'Grüße "fox".png', mime: 'image/png', size: png.length, checksum: sha256(png), download_name: 'Grüße "fox".png' });
    expect(Date.parse(res.body.links_expire_at) - clock.now().getTime()).toBeGreaterThan(HOUR - 1000);
    expect(Date.parse(res.body.links_expire_at) - clock.now().getTime()).toBeLessThanOrEqual(HOUR);
    expect(res.body.url.startsWith(`${t.config.publicBaseUrl}/v1/assets/${assetId}/content?`)).toBe(true);
    clock.advance(1000);
    const again = await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200);
    expect(again.body.url).not.toBe(res.body.url);
  });

  it("hides unknown and other accounts' assets (404)", async () => {
    expectError((await t.http().get(`/v1/assets/${assetId}`).set(bearer(bob)).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().get('/v1/assets/ast_nothing').set(bearer(alice)).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().delete(`/v1/assets/${assetId}`).set(bearer(bob)).expect(404)).body, 'NOT_FOUND');
    await t.http().get(`/v1/assets/${assetId}`).expect(401);
  });

  it('serves the file through the link without a credential: inline preview and attachment download', async () => {
    const links = (await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200)).body;
    const preview = await binary(t.http().get(local(links.url))).expect(200);
    expect(Buffer.compare(preview.body, png)).toBe(0);
    expect(preview.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(png.length),
      etag: `"${sha256(png)}"`,
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
      'x-request-id': expect.any(String),
    });
    expect(new Date(preview.headers['last-modified']).toString()).not.toBe('Invalid Date');
    expect(preview.headers['content-disposition']).toBe(`inline; filename="Gr__e _fox_.png"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22fox%22.png`);
    const download = await binary(t.http().get(local(links.download_url))).expect(200);
    expect(download.headers['content-disposition']).toMatch(/^attachment; filename="Gr__e _fox_.png"; filename\*=UTF-8''Gr%C3%BC%C3%9Fe%20%22fox%22.png$/);
    expect(Buffer.compare(download.body, png)).toBe(0);
  });

  it('answers HEAD with the headers and no body', async () => {
    const links = (await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200)).body;
    const head = await t.http().head(local(links.download_url)).expect(200);
    expect(head.headers['content-length']).toBe(String(png.length));
    expect(head.headers.etag).toBe(`"${sha256(png)}"`);
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(head.text ?? '').toBe('');
    const ranged = await t.http().head(local(links.url)).set('Range', 'bytes=0-9').expect(206);
    expect(ranged.headers['content-range']).toBe(`bytes 0-9/${png.length}`);
  });

  it('serves single byte ranges (206), including suffix and open-ended ones', async () => {
    const links = (await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200)).body;
    for (const [range, start, end] of [
      ['bytes=0-7', 0, 7],
      ['bytes=100-', 100, png.length - 1],
      ['bytes=-16', png.length - 16, png.length - 1],
      ['bytes=10-99999', 10, png.length - 1],
    ] as const) {
      const res = await binary(t.http().get(local(links.url)).set('Range', range)).expect(206);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${png.length}`);
      expect(res.headers['content-length']).toBe(String(end - start + 1));
      expect(Buffer.compare(res.body, png.subarray(start, end + 1))).toBe(0);
    }
  });

  it('answers 416 for several ranges and for unsatisfiable ones', async () => {
    const links = (await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200)).body;
    for (const range of ['bytes=0-1,5-6', `bytes=${png.length}-`, 'bytes=-0', 'bytes=9-3', 'bytes 0-1']) {
      const res = await t.http().get(local(links.url)).set('Range', range).expect(416);
      expectError(res.body, 'RANGE_NOT_SATISFIABLE');
      expect(res.headers['content-range']).toBe(`bytes */${png.length}`);
    }
  });

  it('honours If-Range: the range with a matching validator, the whole file otherwise', async () => {
    const links = (await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200)).body;
    const full = await binary(t.http().get(local(links.url))).expect(200);
    await t.http().get(local(links.url)).set('Range', 'bytes=0-3').set('If-Range', full.headers.etag).expect(206);
    await t.http().get(local(links.url)).set('Range', 'bytes=0-3').set('If-Range', full.headers['last-modified']).expect(206);
    const stale = await binary(t.http().get(local(links.url)).set('Range', 'bytes=0-3').set('If-Range', '"something-else"')).expect(200);
    expect(stale.body.length).toBe(png.length);
    await t.http().get(local(links.url)).set('Range', 'bytes=0-3').set('If-Range', 'Wed, 21 Oct 2015 07:28:00 GMT').expect(200);
    await t.http().get(local(links.url)).set('If-None-Match', full.headers.etag).expect(304);
  });

  it('refuses tampered links (403) and expired ones (403), and reading again gives fresh ones', async () => {
    const links = (await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200)).body;
    const u = new URL(links.url);
    const tamper = (f: (q: URLSearchParams) => void) => {
      const q = new URLSearchParams(u.search);
      f(q);
      return `${u.pathname}?${q.toString()}`;
    };
    const bad = [
      tamper((q) => q.set('disposition', 'attachment')),
      tamper((q) => q.set('expires', String(Number(q.get('expires')) + 3600))),
      tamper((q) => q.set('signature', q.get('signature')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')))),
      tamper((q) => q.delete('signature')),
      `/v1/assets/${assetId}/content`,
    ];
    for (const path of bad) expectError((await t.http().get(path).expect(403)).body, 'FORBIDDEN');
    // Another asset's signature does not open this asset.
    const other = await uploadFile(t, alice, fixture('image.jpg'), 'image/jpeg', 'b.jpg');
    const otherLink = new URL((await t.http().get(`/v1/assets/${other.asset_id}`).set(bearer(alice)).expect(200)).body.url);
    await t.http().get(`/v1/assets/${assetId}/content${otherLink.search}`).expect(403);

    await t.http().get(local(links.url)).expect(200);
    clock.advance(HOUR - 2000);
    await t.http().get(local(links.url)).expect(200);
    clock.advance(2000);
    expectError((await t.http().get(local(links.url)).expect(403)).body, 'FORBIDDEN');
    await t.http().head(local(links.url)).expect(403);
    const fresh = (await t.http().get(`/v1/assets/${assetId}`).set(bearer(alice)).expect(200)).body;
    await t.http().get(local(fresh.url)).expect(200);
  });

  it('serves text and JSON as UTF-8', async () => {
    const text = await uploadFile(t, alice, fixture('text.txt'), 'text/plain', 'notes.txt');
    const links = (await t.http().get(`/v1/assets/${text.asset_id}`).set(bearer(alice)).expect(200)).body;
    const res = await binary(t.http().get(local(links.url))).expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body.toString('utf8')).toBe(fixture('text.txt').toString('utf8'));
  });
});

describe('deleting assets', () => {
  let t: TestApp;
  let alice: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    alice = await createAccount(t);
  });
  afterAll(() => t.close());

  async function taskEvent(type: string, taskId: string, assetIds: string[]) {
    const events = t.app.get(EventStore);
    const data =
      type === 'TaskCreated'
        ? {
            task_id: taskId,
            account_id: alice.accountId,
            connection_id: alice.keyId,
            quote_id: 'qt_test',
            model: 'image-studio-v2',
            resolved_model: 'image-studio-v2-2026-10-15',
            capability: 'image.generate',
            modality: 'image',
            title: null,
            price_version: 'v1',
            currency: 'CNY',
            estimated_amount: '0.200000',
            max_amount: '0.200000',
            params: { prompt: 'fox', asset_ids: assetIds },
            asset_ids: assetIds,
            voice_id: null,
            created_at: new Date().toISOString(),
          }
        : { task_id: taskId, account_id: alice.accountId, at: new Date().toISOString(), ...(type === 'TaskSucceeded' ? { output: { asset_ids: [] } } : {}), ...(type === 'TaskFailed' ? { error: { code: 'X', message: 'x' } } : {}) };
    const r = await events.appendToStream(`task-${taskId}`, [{ type, data }]);
    await t.app.get(SubscriptionEngine).waitFor(r.position);
  }

  it('makes the asset unreadable and unreferenceable at once, removes its bytes, and a repeat queues nothing new', async () => {
    const up = await uploadFile(t, alice, fixture('audio.wav'), 'audio/wav', 'a.wav');
    const links = (await t.http().get(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(200)).body;
    const registry = t.app.get(AssetRegistry);
    await expect(registry.requireUsable(alice.accountId, [up.asset_id])).resolves.toHaveLength(1);

    const del = await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(200);
    expect(del.body).toEqual({ id: up.asset_id, deleted: true, deleted_at: expect.any(String) });
    expectError((await t.http().get(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().get(local(links.url)).expect(404)).body, 'NOT_FOUND');
    await t.http().head(local(links.download_url)).expect(404);
    await expect(registry.requireUsable(alice.accountId, [up.asset_id])).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('input.asset_ids[0]') });
    await expect(registry.open(up.asset_id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await until(() => storedObjects(t, `uploads/${up.upload_id}`).length === 0);

    const events = t.app.get(EventStore);
    const before = (await events.readStream(`asset-${up.asset_id}`)).length;
    const again = await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(200);
    expect(again.body).toEqual(del.body);
    expect((await events.readStream(`asset-${up.asset_id}`)).length).toBe(before);

    // Completing its upload again neither fails nor recreates the asset.
    const done = await t.http().post(`/v1/uploads/${up.upload_id}/complete`).set(bearer(alice)).send({}).expect(200);
    expect(done.body).toMatchObject({ status: 'completed', asset_id: up.asset_id });
    expect(done.body.asset).toBeUndefined();
    await t.http().get(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(404);
  });

  it('refuses while an unfinished task uses the asset (409 ASSET_IN_USE), and allows it once the task ended', async () => {
    const up = await uploadFile(t, alice, fixture('image.png'), 'image/png', 'ref.png');
    const other = await uploadFile(t, alice, fixture('image.jpg'), 'image/jpeg', 'free.jpg');
    await taskEvent('TaskCreated', 'task_inuse1', [up.asset_id]);
    expectError((await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(409)).body, 'ASSET_IN_USE');
    await t.http().get(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(200);
    await t.http().delete(`/v1/assets/${other.asset_id}`).set(bearer(alice)).expect(200);
    await taskEvent('TaskStarted', 'task_inuse1', []);
    await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(409);
    await taskEvent('TaskSucceeded', 'task_inuse1', []);
    await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(200);
  });

  it.each(['TaskFailed', 'TaskCanceled'])('frees the asset when the task ends with %s', async (end) => {
    const up = await uploadFile(t, alice, fixture('image.png'), 'image/png', 'ref.png');
    await taskEvent('TaskCreated', `task_${end}`, [up.asset_id]);
    await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(409);
    await taskEvent(end, `task_${end}`, []);
    await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(200);
  });
});

describe('assets in real tasks', () => {
  let t: TestApp;
  let alice: TestAccount;
  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '1500' } });
    alice = await createAccount(t, { credit: '10.00' });
  });
  afterAll(() => t.close());

  const quote = (assetIds: string[]) =>
    t.http().post('/v1/quotes').set(bearer(alice)).send({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a fox like this one', asset_ids: assetIds }, options: { size: '512x512' } });

  it('a running task keeps its reference asset from deletion; afterwards quotes refuse the deleted asset', async () => {
    const up = await uploadFile(t, alice, fixture('image.png'), 'image/png', 'ref.png');
    const q = await quote([up.asset_id]).expect(200);
    const task = await t.http().post('/v1/tasks').set(bearer(alice)).set('Idempotency-Key', `assets-e2e-${up.asset_id}`).send({ quote_id: q.body.quote_id }).expect(202);
    expectError((await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice)).expect(409)).body, 'ASSET_IN_USE');
    await until(async () => ['succeeded', 'failed', 'canceled'].includes((await t.http().get(`/v1/tasks/${task.body.id}`).set(bearer(alice))).body.status), 15_000);
    await until(async () => (await t.http().delete(`/v1/assets/${up.asset_id}`).set(bearer(alice))).status === 200, 5000);
    const refused = await quote([up.asset_id]).expect(400);
    expectError(refused.body, 'VALIDATION_ERROR');
    expect(refused.body.error.message).toContain('input.asset_ids');
    // An upload that is not completed has no asset to quote with.
    const p = await prepare(t, alice, metaOf(fixture('image.png'), 'image/png')).expect(200);
    expectError((await quote([p.body.upload_id]).expect(400)).body, 'VALIDATION_ERROR');
  });
});

describe('asset registry (contract for other contexts)', () => {
  let t: TestApp;
  let alice: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    alice = await createAccount(t);
  });
  afterAll(() => t.close());

  it('requireUsable: own completed assets in order; anything else names the index', async () => {
    const registry = t.app.get(AssetRegistry);
    const a = await uploadFile(t, alice, fixture('image.png'), 'image/png', 'a.png');
    const b = await uploadFile(t, alice, fixture('text.txt'), 'text/plain', 'b.txt');
    const usable = await registry.requireUsable(alice.accountId, [b.asset_id, a.asset_id]);
    expect(usable).toEqual([
      { id: b.asset_id, name: 'b.txt', mime: 'text/plain', size: fixture('text.txt').length, checksum: sha256(fixture('text.txt')) },
      { id: a.asset_id, name: 'a.png', mime: 'image/png', size: fixture('image.png').length, checksum: sha256(fixture('image.png')) },
    ]);
    const bob = await createAccount(t);
    await expect(registry.requireUsable(bob.accountId, [a.asset_id])).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('input.asset_ids[0]') });
    await expect(registry.requireUsable(alice.accountId, [a.asset_id, 'ast_nope'], 'x')).rejects.toMatchObject({ message: expect.stringContaining('x[1]') });
    // An uploaded but not completed upload has no asset to use.
    const p = await prepare(t, alice, metaOf(fixture('image.png'), 'image/png')).expect(200);
    await putContent(t, p.body, fixture('image.png')).expect(200);
    await expect(registry.requireUsable(alice.accountId, [p.body.upload_id])).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('open streams the bytes; registerOutput stores task outputs once per (task, index)', async () => {
    const registry = t.app.get(AssetRegistry);
    const body = fixture('audio.wav');
    const id = await registry.registerOutput({ accountId: alice.accountId, taskId: 'task_out1', index: 0, name: 'speech.wav', mime: 'audio/wav', body });
    const again = await registry.registerOutput({ accountId: alice.accountId, taskId: 'task_out1', index: 0, name: 'speech.wav', mime: 'audio/wav', body });
    const second = await registry.registerOutput({ accountId: alice.accountId, taskId: 'task_out1', index: 1, name: 'speech-2.wav', mime: 'audio/wav', body });
    expect(again).toBe(id);
    expect(second).not.toBe(id);
    const chunks: Buffer[] = [];
    for await (const c of await registry.open(id)) chunks.push(c as Buffer);
    expect(Buffer.compare(Buffer.concat(chunks), body)).toBe(0);
    const view = await t.http().get(`/v1/assets/${id}`).set(bearer(alice)).expect(200);
    expect(view.body).toMatchObject({ id, name: 'speech.wav', mime: 'audio/wav', size: body.length, checksum: sha256(body) });
    const events = await t.app.get(EventStore).readStream(`asset-${id}`);
    expect(events.map((e) => e.type)).toEqual(['AssetRegistered']);
    // Concurrent repeats agree too.
    const ids = await Promise.all([0, 1, 2].map(() => registry.registerOutput({ accountId: alice.accountId, taskId: 'task_out2', index: 0, name: 'x.wav', mime: 'audio/wav', body })));
    expect(new Set(ids).size).toBe(1);
  });
});
