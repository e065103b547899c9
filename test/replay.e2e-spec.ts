import request from 'supertest';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { EventStore, ReadStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { streamName } from '@gensvc/kernel';
import { Authenticator } from '@gensvc/identity';
import { AdminServer, REPLAY_COMPLETED, type ReplayCompletedV1Data, type ReplayState } from '@gensvc/operations';
import { createAccount, createApiKey, revokeApiKey, bearer } from './support/accounts';
import { snapshotReadModels, waitForQuiet } from './support/operations-read-models';
import { expectError, startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'test-admin-token-0123456789abcdef';

describe('admin replay over the admin endpoint', () => {
  let t: TestApp;
  let admin: () => ReturnType<typeof request>;

  beforeAll(async () => {
    t = await startTestApp({ env: { ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0' } });
    const port = t.app.get(AdminServer).address()!.port;
    admin = () => request(`http://127.0.0.1:${port}`);
  });
  afterAll(() => t.close());

  async function replay(body: object = {}): Promise<ReplayState> {
    const started = await admin().post('/admin/replays').set('Authorization', `Bearer ${TOKEN}`).send(body).expect(202);
    expect(started.body).toMatchObject({ id: expect.stringMatching(/^rpl_/), status: 'running' });
    for (;;) {
      const res = await admin().get(`/admin/replays/${started.body.id}`).set('Authorization', `Bearer ${TOKEN}`).expect(200);
      if (res.body.status !== 'running') return res.body;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const authenticates = async (key: string) => (await t.app.get(Authenticator).verifyBearer(key)) !== null;

  async function waitForTask(key: { apiKey: string }, id: string): Promise<{ status: string }> {
    for (;;) {
      const res = await t.http().get(`/v1/tasks/${id}`).set(bearer(key)).expect(200);
      if (['succeeded', 'failed', 'canceled'].includes(res.body.status)) return res.body;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A workload through the HTTP API (catalogue, identity, wallet, quotes, tasks, uploads, assets). */
  async function workload(): Promise<void> {
    for (let i = 0; i < 4; i++) {
      const a = await createAccount(t, { name: `Replay ${i}`, email: `replay${i}@example.com`, password: 'correct horse battery', credit: '20.00' });
      const extra = await createApiKey(t, a.accountId);
      if (i % 2 === 0) await revokeApiKey(t, extra.keyId);
      await t.http().get('/v1/models').expect(200);
      await t.http().get('/v1/models/image-studio-v2').expect(200);
      await t.http().get('/v1/wallet').set(bearer(a)).expect(200);
      expect(await authenticates(a.apiKey)).toBe(true);
      expect(await authenticates(extra.apiKey)).toBe(i % 2 !== 0);

      // a direct upload, then a prepared upload whose asset is deleted
      const direct = await t.http().post('/v1/uploads').set(bearer(a)).set('Content-Type', 'text/plain').set('X-Filename', `note-${i}.txt`).send(`note ${i}`).expect(201);
      const bytes = Buffer.from(`{"n": ${i}}`);
      const checksum = createHash('sha256').update(bytes).digest('hex');
      const prepared = await t.http().post('/v1/uploads/prepare').set(bearer(a))
        .send({ name: `d${i}.json`, mime: 'application/json', size: bytes.length, checksum, idempotency_key: `replay-upload-${i}` }).expect(200);
      await t.http().put(new URL(prepared.body.upload.url).pathname).set(prepared.body.upload.headers).set('Content-Type', 'application/json').send(bytes.toString()).expect(200);
      const completed = await t.http().post(`/v1/uploads/${prepared.body.upload_id}/complete`).set(bearer(a)).send({}).expect(200);
      if (i % 2 === 1) await t.http().delete(`/v1/assets/${completed.body.asset_id}`).set(bearer(a)).expect(200);

      // paid tasks: one that runs to the end, one canceled while queued
      for (const [n, cancel] of [[1, false], [2, true]] as const) {
        const quote = await t.http().post('/v1/quotes').set(bearer(a)).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: `hello ${i}` } }).expect(200);
        const task = await t.http().post('/v1/tasks').set(bearer(a)).set('Idempotency-Key', `replay-task-${i}-${n}`).send({ quote_id: quote.body.quote_id, title: `t${i}` }).expect(202);
        if (cancel) await t.http().post(`/v1/tasks/${task.body.id}/cancel`).set(bearer(a)).send({});
        await waitForTask(a, task.body.id);
      }
      expect(direct.body.id ?? direct.body.asset_id ?? direct.body.upload_id).toEqual(expect.any(String));
    }
    await waitForQuiet(t);
  }

  it('is off the public port and refuses a missing or wrong token', async () => {
    expectError((await t.http().get('/admin/replays').expect(404)).body, 'NOT_FOUND');
    expectError((await admin().get('/admin/replays').expect(401)).body, 'UNAUTHORIZED');
    expectError((await admin().get('/metrics').set('Authorization', 'Bearer wrong').expect(401)).body, 'UNAUTHORIZED');
    expectError((await admin().post('/admin/replays').set('Authorization', `Bearer ${TOKEN}`).send({ projections: ['nope'] }).expect(400)).body, 'VALIDATION_ERROR');
    expectError((await admin().post('/admin/replays').set('Authorization', `Bearer ${TOKEN}`).send({ other: 1 }).expect(400)).body, 'VALIDATION_ERROR');
  });

  it('rebuilds read models that equal the live ones, and reads keep working meanwhile', async () => {
    await workload();
    const engine = t.app.get(SubscriptionEngine);
    const names = engine.listProjections().map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['identity.accounts', 'identity.api_keys', 'operations.replay-history']));
    const live = await snapshotReadModels(t, { except: ['operations.replay-history'] });
    // the workload reached the read models of several contexts
    for (const c of ['identity_accounts', 'identity_api_keys', 'wallets', 'tasks', 'assets_uploads']) {
      if (c in live) expect(live[c].length).toBeGreaterThanOrEqual(4);
    }
    expect(Object.values(live).flat().length).toBeGreaterThanOrEqual(30);

    const a = await createAccount(t, { name: 'reader' });
    await waitForQuiet(t);
    const liveWithReader = await snapshotReadModels(t, { except: ['operations.replay-history'] });
    const reads: boolean[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        await t.http().get('/v1/models').expect(200);
        reads.push(await authenticates(a.apiKey));
      }
    })();
    const state = await replay();
    reading = false;
    await reader;

    expect(state).toMatchObject({ status: 'succeeded', phase: 'done', error: null, projections: names });
    expect(state.result).toEqual({ projections: names, events: Number(await t.app.get(EventStore).headPosition()) - 1, seconds: expect.any(Number) });
    expect(state.events_done).toBe(state.result!.events);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((ok) => !ok)).toEqual([]);

    const rebuilt = await snapshotReadModels(t, { except: ['operations.replay-history'] });
    expect(rebuilt).toEqual(liveWithReader);
    expect(Object.keys(rebuilt)).toEqual(Object.keys(live));
    // no replay collections are left behind
    expect((await t.app.get(ReadStore).listCollections()).filter((c) => c.includes('__replay_'))).toEqual([]);

    // the rebuilt models stay live: new events reach them
    const b = await createAccount(t, { name: 'after replay' });
    expect(await authenticates(b.apiKey)).toBe(true);
    await revokeApiKey(t, b.keyId);
    expect(await authenticates(b.apiKey)).toBe(false);

    // the run is in the history
    const history = await admin().get('/admin/replays').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(history.body.data[0]).toEqual({
      replay_id: state.id,
      all: true,
      projections: names,
      events: state.result!.events,
      seconds: state.result!.seconds,
      completed_at: expect.any(String),
    });
  });

  it('replays one projection', async () => {
    const before = await snapshotReadModels(t);
    const state = await replay({ projections: ['identity.api_keys'] });
    expect(state.status).toBe('succeeded');
    expect(state.result!.projections).toEqual(['identity.api_keys']);
    const after = await snapshotReadModels(t, { except: ['operations.replay-history'] });
    const { operations_replays: _ignored, ...beforeRest } = before;
    expect(after).toEqual(beforeRest);
    const projections = await admin().get('/admin/projections').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(projections.body.data).toContainEqual({ name: 'identity.api_keys', position: expect.any(String), generation: state.id });
  });

  it('lifts version-1 events through the upcaster when replaying (schema evolution)', async () => {
    const events = t.app.get(EventStore);
    const v1: ReplayCompletedV1Data = { replayId: 'rpl_legacy1', projection: 'identity.accounts', events: 42, durationMs: 1500 };
    const v1All: ReplayCompletedV1Data = { replayId: 'rpl_legacy2', projection: null, events: 7, durationMs: 250 };
    await events.appendToStream(streamName('replay', v1.replayId), [{ type: REPLAY_COMPLETED, data: v1, metadata: { schemaVersion: 1 } }]);
    await events.appendToStream(streamName('replay', v1All.replayId), [{ type: REPLAY_COMPLETED, data: v1All, metadata: { schemaVersion: 1 } }]);
    // stored as version 1, read as version 3 (through version 2)
    const [stored] = await events.readStream(streamName('replay', v1.replayId));
    expect(stored.metadata.schemaVersion).toBe(3);
    expect(stored.data).toEqual({ replay_id: 'rpl_legacy1', all: false, projections: ['identity.accounts'], events: 42, seconds: 1.5 });

    const state = await replay({ projections: ['operations.replay-history'] });
    expect(state.status).toBe('succeeded');
    const get = (id: string) => admin().get(`/admin/replays/${id}`).set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect((await get('rpl_legacy1')).body).toEqual({
      replay_id: 'rpl_legacy1',
      all: false,
      projections: ['identity.accounts'],
      events: 42,
      seconds: 1.5,
      completed_at: expect.any(String),
    });
    expect((await get('rpl_legacy2')).body).toMatchObject({ all: true, projections: [], events: 7, seconds: 0.25 });
  });

  it('serves Prometheus metrics on the admin port', async () => {
    await t.http().get('/v1/models').expect(200);
    await t.http().get('/v1/models/nope').expect(404);
    const res = await admin().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toMatch(/gensvc_http_requests_total\{method="GET",route="\/v1\/models",status="200"\} \d+/);
    expect(text).toMatch(/gensvc_http_requests_total\{method="GET",route="\/v1\/models\/:id",status="404"\} \d+/);
    expect(text).toMatch(/gensvc_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/models",status_class="2xx"\}/);
    expect(text).toMatch(/gensvc_event_store_append_duration_seconds_count\{outcome="ok"\} [1-9]\d*/);
    expect(text).toMatch(/^gensvc_projection_lag_events 0$/m);
    expect(text).toMatch(/^gensvc_uploads_in_flight 0$/m);
    expect(text).toMatch(/gensvc_process_resident_memory_bytes/);
    expect(text).not.toContain('nope');
  });

  it('counts uploads in flight while their bytes arrive', async () => {
    const scrape = async () => (await admin().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
    const a = await createAccount(t, { name: 'uploader' });
    const server = t.app.getHttpServer();
    await new Promise<void>((r) => (server.address() ? r() : server.once('listening', () => r())));
    const port = (server.address() as { port: number }).port;
    const body = 'x'.repeat(50_000);
    const res = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/uploads', headers: { ...bearer(a), 'Content-Type': 'text/plain', 'X-Filename': 'slow.txt', 'Content-Length': String(body.length) } },
        (r) => {
          r.resume();
          r.on('end', () => resolve(r.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 1000));
      setTimeout(async () => {
        try {
          expect(await scrape()).toMatch(/^gensvc_uploads_in_flight 1$/m);
          req.end(body.slice(1000));
        } catch (err) {
          req.destroy();
          reject(err);
        }
      }, 200);
    });
    expect(await res).toBe(201);
    expect(await scrape()).toMatch(/^gensvc_uploads_in_flight 0$/m);
  });
});

describe('restart on the embedded read models', () => {
  it('resumes from the persisted read models and checkpoints, equal to the models before it', async () => {
    const first = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '20' } });
    const dataDir = first.dataDir;
    try {
      for (let i = 0; i < 3; i++) await createAccount(first, { name: `restart ${i}`, credit: '5.00' });
      await waitForQuiet(first);
      const before = await snapshotReadModels(first);
      await first.app.close();
      const second = await startTestApp({ dataDir });
      try {
        await waitForQuiet(second);
        expect(await snapshotReadModels(second)).toEqual(before);
        const names = second.app.get(SubscriptionEngine).listProjections().map((p) => p.name);
        const checkpoints = await second.app.get(ReadStore).collection('projection_checkpoints').find({ _id: { $in: names } });
        expect(checkpoints).toHaveLength(names.length);
        // nothing was rebuilt: the checkpoints are those the first process stored
        for (const cp of checkpoints) expect(cp.generation).toBeNull();
      } finally {
        await second.app.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
