import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StandInSupplier } from '@gensvc/suppliers/testing/stand-in-supplier';
import { catalogueWithHttpChannel } from '@gensvc/suppliers/testing/test-catalogue';
import { ADMIN_CLI, buildApps, oneJson, runCli } from './support/operations-cli';
import { API_ENTRY, originOfServer, readEventStore, startServer, type ServerProcess } from './support/processes';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Several processes on one DATA_DIR (CONTRACT §13): the roles, limits that hold across
 * processes, and supplier jobs that one worker submits and another takes over.
 */
describe('processes sharing one data directory', () => {
  let dir: string;
  const running: ServerProcess[] = [];

  beforeAll(() => {
    buildApps(ADMIN_CLI);
    buildApps(API_ENTRY);
  });
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gensvc-processes-'))));
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map((p) => p.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>) => {
    const p = await startServer(dir, env);
    running.push(p);
    return p;
  };
  const account = async (env: Record<string, string> = {}) => {
    const r = await runCli(ADMIN_CLI, ['account', 'create', '--name', `p-${randomUUID().slice(0, 6)}`, '--credit', '100.000000'], { DATA_DIR: dir, ...env });
    if (r.code !== 0) throw new Error(r.stderr);
    return oneJson(r.stdout).api_key as string;
  };
  const call = async (base: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  /** The file the upload tests send, its upload metadata, and two ways to send it once prepared. */
  const png = readFileSync(join(__dirname, 'fixtures', 'image.png'));
  const meta = { name: 'a.png', mime: 'image/png', size: png.length, checksum: createHash('sha256').update(png).digest('hex') };
  type Prepared = { upload_id: string; upload: { headers: Record<string, string> } };
  /** Starts a receive that sends 10 bytes and then waits (it holds its slots). */
  const slowPut = (base: string, p: Prepared) => {
    const u = new URL(base);
    const req = httpRequest({ host: u.hostname, port: u.port, method: 'PUT', path: `/v1/uploads/${p.upload_id}/content`, headers: { ...p.upload.headers, 'content-length': png.length } });
    const done = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    req.write(png.subarray(0, 10));
    return { req, done, finish: () => req.end(png.subarray(10)) };
  };
  /** Sends the whole file at once (the upload's own headers carry its token). */
  const put = (base: string, p: Prepared) => fetch(`${base}/v1/uploads/${p.upload_id}/content`, { method: 'PUT', headers: p.upload.headers, body: png });
  const until = async (what: string, fn: () => Promise<boolean>, ms = 30_000) => {
    const end = Date.now() + ms;
    while (!(await fn())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** Which process wrote each event of the streams named `like` (`EventMetadata.origin`), in order. */
  const writers = (like: string) => {
    const store = readEventStore(dir);
    try {
      return store.writers(like);
    } finally {
      store.close();
    }
  };
  const createTask = async (base: string, key: string, body: object) => {
    const q = await call(base, key, 'POST', '/v1/quotes', body);
    expect(q.status).toBe(200);
    const t = await call(base, key, 'POST', '/v1/tasks', { quote_id: q.body.quote_id }, { 'idempotency-key': randomUUID() });
    expect(t.status).toBe(202);
    return t.body.id as string;
  };
  const taskStatus = async (base: string, key: string, id: string) => (await call(base, key, 'GET', `/v1/tasks/${id}`)).body.status as string;

  it('an api process serves and executes nothing; a worker serves only health and executes', async () => {
    const key = await account();
    const api = await start({ PROCESS_ROLE: 'api' });
    const id = await createTask(api.url, key, { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hello' } });
    expect(await taskStatus(api.url, key, id)).toBe('queued');

    const worker = await start({ PROCESS_ROLE: 'worker' });
    const models = await call(worker.url, key, 'GET', '/v1/models');
    expect(models.status).toBe(404);
    expect(models.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringContaining('worker'), request_id: expect.any(String) } });
    expect((await fetch(`${worker.url}/health/ready`)).status).toBe(200);

    await until('the worker to run and settle the task', async () => (await call(api.url, key, 'GET', `/v1/tasks/${id}`)).body.settlement_status === 'settled');
    // The api process recorded the request (the task); the worker did all the rest: it queued,
    // ran and finished the supplier job and settled the task.
    expect(writers(`task-${id}`).map((e) => [e.type, e.origin])).toEqual([
      ['TaskCreated', originOfServer(api)],
      ['TaskStarted', originOfServer(worker)],
      ['TaskSucceeded', originOfServer(worker)],
      ['TaskSettled', originOfServer(worker)],
    ]);
    expect(writers(`supplierjob-${id}`).map((e) => [e.type, e.origin])).toEqual(
      ['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded'].map((type) => [type, originOfServer(worker)]),
    );
  });

  it('a caller waiting on an api process sees the task a worker process finishes (Prefer: wait, the event stream)', async () => {
    const key = await account();
    const api = await start({ PROCESS_ROLE: 'api' });
    const id = await createTask(api.url, key, { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hello' } });
    const waiting = call(api.url, key, 'GET', `/v1/tasks/${id}`, undefined, { prefer: 'wait=60' });
    const stream = await fetch(`${api.url}/v1/tasks/${id}/events`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const streamed = stream.text();
    await start({ PROCESS_ROLE: 'worker' }); // only now can the task run, in another process
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.headers.get('preference-applied')).toBe('wait=60');
    expect(res.body).toMatchObject({ id, status: 'succeeded', settlement_status: 'settled' });
    const states = (await streamed)
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { status: string; settlement_status: string });
    expect(states[0].status).toBe('queued');
    expect(states[states.length - 1]).toMatchObject({ status: 'succeeded', settlement_status: 'settled' });
  });

  it('holds the per-account and platform-wide receive limits across two processes', async () => {
    const [x, y, z, v, w] = [await account(), await account(), await account(), await account(), await account()];
    const a = await start({ PROCESS_ROLE: 'api' });
    const b = await start({ PROCESS_ROLE: 'api' });
    const prepared = async (base: string, key: string) => {
      const p = await call(base, key, 'POST', '/v1/uploads/prepare', { ...meta, idempotency_key: randomUUID() });
      expect(p.status).toBe(200);
      return p.body as Prepared;
    };
    const uploading = (base: string, key: string, id: string) =>
      until(`${id} uploading`, async () => (await call(base, key, 'GET', `/v1/uploads/${id}`)).body.status === 'uploading');

    // Account x: one receive in each process; a third, in either, is refused.
    const x1 = await prepared(a.url, x);
    const x2 = await prepared(b.url, x);
    const sx1 = slowPut(a.url, x1);
    const sx2 = slowPut(b.url, x2);
    await uploading(a.url, x, x1.upload_id);
    await uploading(b.url, x, x2.upload_id);
    const third = await put(b.url, await prepared(b.url, x));
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('UPLOAD_BUSY');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

    // x's receive in process b ends; accounts y, v and w fill the platform's four receives with
    // one each through process b (each at its fair share, so nobody gives way); z is refused in a.
    sx2.finish();
    expect(await sx2.done).toBe(200);
    const sy = [slowPut(b.url, await prepared(b.url, y)), slowPut(b.url, await prepared(b.url, v)), slowPut(b.url, await prepared(b.url, w))];
    const zp = await prepared(a.url, z);
    await until('four receives', async () => (await put(a.url, zp)).status === 429);
    const refused = await put(a.url, zp);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UPLOAD_BUSY');

    // A receive that ends in process b frees its slot for process a.
    sy[0].finish();
    expect(await sy[0].done).toBe(200);
    expect((await put(a.url, zp)).status).toBe(200);
    for (const s of [sx1, sy[1], sy[2]]) s.finish();
    expect(await Promise.all([sx1.done, sy[1].done, sy[2].done])).toEqual([200, 200, 200]);
  });

  it('gives an account below its fair share a receive slot held in another process', async () => {
    const [x, y, z] = [await account(), await account(), await account()];
    const a = await start({ PROCESS_ROLE: 'api' });
    const b = await start({ PROCESS_ROLE: 'api' });
    const prepared = async (base: string, key: string) => (await call(base, key, 'POST', '/v1/uploads/prepare', { ...meta, idempotency_key: randomUUID() })).body as Prepared;
    // x and y hold the four receives in process b.
    const held = [slowPut(b.url, await prepared(b.url, x)), slowPut(b.url, await prepared(b.url, x)), slowPut(b.url, await prepared(b.url, y)), slowPut(b.url, await prepared(b.url, y))];
    const zp = await prepared(a.url, z);
    await until('four receives', async () => (await put(a.url, zp)).status === 429);
    // One of them gives way in process b (429) and its slot goes to z in process a.
    const gaveWay = await Promise.race(held.map(async (h) => ({ h, status: await h.done })));
    expect(gaveWay.status).toBe(429);
    await until('z receives', async () => (await put(a.url, zp)).status === 200);
    const rest = held.filter((h) => h !== gaveWay.h);
    for (const h of rest) h.finish();
    expect(await Promise.all(rest.map((h) => h.done))).toEqual([200, 200, 200]);
  });

  it('holds the 8 unfinished uploads per account across two processes preparing at once', async () => {
    const key = await account();
    const a = await start({ PROCESS_ROLE: 'api' });
    const b = await start({ PROCESS_ROLE: 'api' });
    const meta = { name: 'a.txt', mime: 'text/plain', size: 5, checksum: createHash('sha256').update('hello').digest('hex') };
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(i % 2 ? a.url : b.url, key, 'POST', '/v1/uploads/prepare', { ...meta, idempotency_key: randomUUID() })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    expect(answers.filter((r) => r.status !== 200).map((r) => r.body.error.code)).toEqual(Array(4).fill('UPLOAD_LIMIT_REACHED'));
  });

  it('storage cleanup runs in one of two workers: each deleted asset’s bytes are removed once', async () => {
    const key = await account();
    const api = await start({ PROCESS_ROLE: 'api' });
    const workers = [await start({ PROCESS_ROLE: 'worker', LOG_LEVEL: 'debug' }), await start({ PROCESS_ROLE: 'worker', LOG_LEVEL: 'debug' })];
    const assets: string[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await call(api.url, key, 'POST', '/v1/uploads/prepare', { ...meta, idempotency_key: randomUUID() });
      expect(p.status).toBe(200);
      expect((await put(api.url, p.body)).status).toBe(200);
      const done = await call(api.url, key, 'POST', `/v1/uploads/${p.body.upload_id}/complete`, {});
      expect(done.status).toBe(200);
      assets.push(done.body.asset_id);
    }
    for (const id of assets) expect((await call(api.url, key, 'DELETE', `/v1/assets/${id}`)).status).toBe(200);
    const removals = (w: ServerProcess) => w.stderr().split('\n').filter((l) => l.includes('removed stored object') && l.includes('AssetDeleted')).length;
    await until('the bytes of the four deleted assets removed', async () => workers.reduce((n, w) => n + removals(w), 0) >= 4);
    // Once the cleanup reactor's durable checkpoint has passed the deletions, no worker handles
    // them again (one taking the reactor over starts from that checkpoint).
    const store = readEventStore(dir);
    try {
      const head = store.head();
      await until('the storage cleanup checkpoint past the deletions', async () => (store.reactorCheckpoint('assets.storage-cleanup') ?? -1n) >= head);
    } finally {
      store.close();
    }
    expect(workers.map(removals).sort()).toEqual([0, 4]);
  });

  it('an api process never sends webhooks (no resume at start, no retry on request); a worker does', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      // One attempt, then a wait of an hour: only a retry on request or a resume can send again.
      const env = { WEBHOOKS_ALLOW_LOCAL: '1', WEBHOOK_RETRY_SCHEDULE: '3600' };
      const key = await account(env);
      const api = await start({ ...env, PROCESS_ROLE: 'api' });
      const ep = await call(api.url, key, 'POST', '/v1/webhook-endpoints', { url: `${receiver.url}/roles`, events: ['task.created'] });
      expect(ep.status).toBe(201);
      receiver.answer('/roles', 500, 204);
      await createTask(api.url, key, { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'roles' } });

      const worker = await start({ ...env, PROCESS_ROLE: 'worker' });
      await receiver.until((r) => r.some((m) => m.path === '/roles'));
      const deliveries = async (base: string) => (await call(base, key, 'GET', `/v1/webhook-endpoints/${ep.body.id}/deliveries`)).body.data as { id: string; message_id: string; status: string; attempts: { status_code: number | null }[] }[];
      await until('the refused attempt to be recorded', async () => (await deliveries(api.url))[0]?.status === 'retrying');
      const [refused] = await deliveries(api.url);
      expect(refused.attempts).toEqual([expect.objectContaining({ status_code: 500 })]);
      await worker.kill();

      // Asked of the api process, the retry is recorded (the delivery is due now) but not sent,
      // neither by that process nor by another api process starting on the same store.
      const retry = await call(api.url, key, 'POST', `/v1/webhook-endpoints/${ep.body.id}/deliveries/${refused.id}/retry`);
      expect(retry.status).toBe(202);
      const api2 = await start({ ...env, PROCESS_ROLE: 'api' });
      expect((await deliveries(api2.url))[0]).toMatchObject({ id: refused.id, status: 'pending', attempts: [{ status_code: 500 }] });

      // A worker starting later sends it: the same message, delivered.
      const worker2 = await start({ ...env, PROCESS_ROLE: 'worker' });
      const [, second] = await receiver.until((r) => {
        const got = r.filter((m) => m.path === '/roles');
        return got.length >= 2 && got;
      });
      expect(second.headers['webhook-id']).toBe(refused.message_id);
      await until('the delivery to be delivered', async () => (await deliveries(api2.url))[0]?.status === 'delivered');
      expect(receiver.on('/roles')).toHaveLength(2);
      // Every attempt is leased on the delivery's stream before it is sent: both were the workers',
      // the first worker's queueing and attempt, the api process's retry request, the second worker's attempt.
      expect(writers(`webhookdelivery-${refused.id}`).map((e) => [e.type, e.origin])).toEqual([
        ['WebhookDeliveryQueued', originOfServer(worker)],
        ['WebhookDeliveryAttemptStarted', originOfServer(worker)],
        ['WebhookDeliveryAttemptFailed', originOfServer(worker)],
        ['WebhookDeliveryRetryRequested', originOfServer(api)],
        ['WebhookDeliveryAttemptStarted', originOfServer(worker2)],
        ['WebhookDeliverySucceeded', originOfServer(worker2)],
      ]);
    } finally {
      await receiver.close();
    }
  });

  describe('with an external supplier', () => {
    let supplier: StandInSupplier;
    const SECRET = 'acme-callback-secret-0123456789';
    let supplierEnv: Record<string, string>;

    beforeEach(async () => {
      supplier = await new StandInSupplier(SECRET).start();
      writeFileSync(join(dir, 'catalogue.json'), catalogueWithHttpChannel('acme'));
      supplierEnv = {
        CATALOGUE_FILE: join(dir, 'catalogue.json'),
        SUPPLIER_CHANNELS: JSON.stringify({
          acme: { base_url: supplier.url, api_key: 'acme-key', callback_secret: SECRET, poll_after_ms: 100, poll_interval_ms: 100, request_timeout_ms: 2000 },
        }),
        PUBLIC_BASE_URL: 'http://127.0.0.1:9',
        SUPPLIER_JOB_LEASE_MS: '1500',
      };
    });
    afterEach(async () => supplier.stop());

    it('submits each job once while two workers race, and a killed worker’s jobs finish in the other', async () => {
      const key = await account(supplierEnv);
      const api = await start({ ...supplierEnv, PROCESS_ROLE: 'api' });
      const w1 = await start({ ...supplierEnv, PROCESS_ROLE: 'worker' });
      await start({ ...supplierEnv, PROCESS_ROLE: 'worker' });
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await createTask(api.url, key, { model: 'acme-writer', capability: 'text.generate', input: { prompt: `tides ${i}` } }));
      await until('every job at the supplier', async () => ids.every((id) => supplier.jobs.get(id)?.state.status === 'queued'));
      // A job whose dispatch is recorded (its task runs) is never sent again, by any worker.
      await until('every dispatch recorded', async () => (await Promise.all(ids.map((id) => taskStatus(api.url, key, id)))).every((s) => s === 'running'));
      expect(ids.map((id) => supplier.jobs.get(id)!.submits)).toEqual(ids.map(() => 1));

      await w1.kill();
      for (const id of ids) await supplier.finish(id, { status: 'succeeded', output: { text: `done ${id}` } });
      await until('every task to succeed', async () => (await Promise.all(ids.map((id) => taskStatus(api.url, key, id)))).every((s) => s === 'succeeded'));
      expect(ids.map((id) => supplier.jobs.get(id)!.submits)).toEqual(ids.map(() => 1));
    });
  });
});
