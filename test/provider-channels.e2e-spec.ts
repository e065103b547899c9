import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderStandIn, StandInOutput } from '@gensvc/suppliers/testing/stand-ins/provider-stand-in';
import { ArkStandIn } from '@gensvc/suppliers/testing/stand-ins/ark.stand-in';
import { DashScopeStandIn } from '@gensvc/suppliers/testing/stand-ins/dashscope.stand-in';
import { FalStandIn } from '@gensvc/suppliers/testing/stand-ins/fal.stand-in';
import { ReplicateStandIn } from '@gensvc/suppliers/testing/stand-ins/replicate.stand-in';
import { EventStore } from '@gensvc/event-sourcing';
import type { SupplierJobEvent } from '@gensvc/suppliers/contracts';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';

/**
 * Catalogue models routed to each provider's stand-in through the whole app (CONTRACT §14):
 * verified routes, quote, task, polling or signed webhooks, archived outputs, settlement,
 * cancellation in each state, 429 with Retry-After, 5xx, answers lost after sending, expired
 * result links, failed probes. The stand-ins follow each provider's public documentation
 * (their files say which); the channel configuration is the operator's.
 */
interface ProviderCase {
  readonly type: 'replicate' | 'fal' | 'dashscope' | 'ark';
  readonly supplierModel: string;
  readonly standIn: () => ProviderStandIn;
  readonly credential: (s: ProviderStandIn) => Record<string, string>;
  /** The default catalogue model whose schema and prices the routed model takes. */
  readonly base: 'image-studio-v2' | 'text-writer-lite';
  readonly capability: string;
  /** The routed model's modality when it differs from the base model's (video on the image model's schema). */
  readonly modality?: string;
  readonly inputMap?: string;
  /** The type of the provider's usual output, and its signature's bytes 1 to 3 (or 4 to 7). */
  readonly usual: { readonly mime: string; readonly magic: (b: Buffer) => string; readonly expect: string };
  /** What a cancel of a job the provider holds but has not started, and of a running one, ends as. */
  readonly cancelQueued: 'confirmed';
  /** The request kind that polls open jobs (Replicate's job list, one status request per job elsewhere). */
  readonly poll?: 'list';
  readonly cancelRunning: 'confirmed' | 'refused';
  readonly webhookSecret?: string;
}

const WEBHOOK_SECRET = `whsec_${Buffer.from('stand-in webhook signing secret 0123').toString('base64')}`;

const CASES: ProviderCase[] = [
  {
    type: 'replicate',
    supplierModel: 'black-forest-labs/flux-schnell',
    standIn: () => new ReplicateStandIn(undefined, ['black-forest-labs/flux-schnell']),
    credential: (s) => ({ api_token: (s as ReplicateStandIn).token }),
    base: 'image-studio-v2',
    capability: 'image.generate',
    inputMap: '{ "prompt": input.prompt, "num_outputs": input.count, "output_format": "png" }',
    usual: { mime: 'image/png', magic: (b) => b.subarray(1, 4).toString('latin1'), expect: 'PNG' },
    cancelQueued: 'confirmed',
    cancelRunning: 'confirmed',
    webhookSecret: WEBHOOK_SECRET,
    poll: 'list',
  },
  {
    type: 'fal',
    supplierModel: 'fal-ai/flux/schnell',
    standIn: () => new FalStandIn(undefined, ['fal-ai/flux/schnell']),
    credential: (s) => ({ api_key: (s as FalStandIn).key }),
    base: 'image-studio-v2',
    capability: 'image.generate',
    inputMap: '{ "prompt": input.prompt, "num_images": input.count }',
    usual: { mime: 'image/png', magic: (b) => b.subarray(1, 4).toString('latin1'), expect: 'PNG' },
    cancelQueued: 'confirmed',
    cancelRunning: 'confirmed',
  },
  {
    type: 'dashscope',
    supplierModel: 'wanx2.1-t2i-turbo',
    standIn: () => new DashScopeStandIn(undefined, ['wanx2.1-t2i-turbo']),
    credential: (s) => ({ api_key: (s as DashScopeStandIn).key }),
    base: 'image-studio-v2',
    capability: 'image.generate',
    inputMap: '{ "input": { "prompt": input.prompt }, "parameters": { "n": input.count } }',
    usual: { mime: 'image/png', magic: (b) => b.subarray(1, 4).toString('latin1'), expect: 'PNG' },
    cancelQueued: 'confirmed',
    cancelRunning: 'refused',
  },
  {
    type: 'ark',
    supplierModel: 'doubao-seedance-1-0-pro-250528',
    standIn: () => new ArkStandIn(undefined, ['doubao-seedance-1-0-pro-250528']),
    credential: (s) => ({ api_key: (s as ArkStandIn).key }),
    base: 'image-studio-v2',
    capability: 'video.generate',
    modality: 'video',
    inputMap: '{ "content": [{ "type": "text", "text": input.prompt }] }',
    usual: { mime: 'video/mp4', magic: (b) => b.subarray(4, 8).toString('latin1'), expect: 'ftyp' },
    cancelQueued: 'confirmed',
    cancelRunning: 'refused',
    poll: 'list',
  },
];

interface TaskBody {
  id: string;
  status: string;
  charged_amount: string | null;
  max_amount: string;
  settlement_status: string;
  output: { asset_ids: string[]; text?: string } | null;
  error: { code: string; message: string } | null;
  cancellation: { status: string };
}

/** Waits for `probe` to give a value (a bounded wait for something the service does on its own). */
async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(CASES)('provider channel $type through the API', (c) => {
  const modelId = `${c.type}-model`;
  let t: TestApp;
  let s: ProviderStandIn;
  let acc: TestAccount;
  let dir: string;
  const saved = { CATALOGUE_FILE: process.env.CATALOGUE_FILE, SUPPLIER_CHANNELS: process.env.SUPPLIER_CHANNELS };

  beforeAll(async () => {
    s = await c.standIn().start();
    dir = mkdtempSync(join(tmpdir(), `gensvc-${c.type}-`));
    const file = JSON.parse(readFileSync(join(__dirname, '..', 'libs', 'catalogue', 'catalogue', 'catalogue.json'), 'utf8')) as { version: string; models: Record<string, unknown>[] };
    const base = file.models.find((m) => m.id === c.base)!;
    const { supplier: _s, supplier_model: _m, ...rest } = base;
    const pricing = (rest.pricing as { capability: string }[]).map((p) => ({ ...p, capability: c.capability }));
    file.models.push({
      ...rest,
      capabilities: [c.capability],
      pricing,
      ...(c.modality ? { modality: c.modality } : {}),
      id: modelId,
      name: `${c.type} model`,
      resolved_model: `${modelId}-1`,
      routes: [{ channel: c.type, supplier_model: c.supplierModel, unit_cost: '0.010000', ...(c.inputMap ? { input_map: c.inputMap } : {}) }],
    });
    writeFileSync(join(dir, 'catalogue.json'), JSON.stringify({ ...file, version: `test-${c.type}` }));
    process.env.CATALOGUE_FILE = join(dir, 'catalogue.json');
    process.env.SUPPLIER_CHANNELS = JSON.stringify({
      [c.type]: {
        type: c.type,
        base_url: s.url,
        ...c.credential(s),
        poll_interval_ms: 100,
        probe_interval_s: 1,
        request_timeout_ms: 10_000,
        cancel_timeout_ms: 5000,
        ...(c.webhookSecret ? { webhook_secret: c.webhookSecret } : {}),
      },
    });
    t = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://gensvc.example' } });
    const origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    if (s instanceof ReplicateStandIn) s.webhookOrigin = origin;
    acc = await createAccount(t, { credit: '100.00' });
    await until('the route probe', async () => (await t.http().get(`/v1/models/${modelId}`).set(bearer(acc))).body.available === true);
  });
  afterAll(async () => {
    await t?.close();
    await s?.stop();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const input = c.base === 'image-studio-v2' ? { prompt: 'a lighthouse at dusk', count: 1 } : { prompt: 'Tell me about tides' };
  const wallet = async () => (await t.http().get('/v1/wallet').set(bearer(acc)).expect(200)).body as { available: string; reserved: string; balance: string };
  const create = async () => {
    const q = await t.http().post('/v1/quotes').set(bearer(acc)).send({ model: modelId, capability: c.capability, input }).expect(200);
    const res = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `k-${randomUUID()}`).send({ quote_id: q.body.quote_id }).expect(202);
    return { id: res.body.id as string, estimated: q.body.estimated_amount as string };
  };
  const task = async (id: string) => (await t.http().get(`/v1/tasks/${id}`).set(bearer(acc)).expect(200)).body as TaskBody;
  const settled = (id: string) => until(`task ${id} settled`, async () => ((x) => (x.settlement_status !== 'reserved' ? x : undefined))(await task(id)));
  /** The provider job a task made (the newest one not seen before). */
  const jobOf = async (seen: number) => until('the provider job', async () => s.jobs()[seen]);

  it('shows the model available once its route probe passed, and never names the provider model', async () => {
    const list = await t.http().get('/v1/models').set(bearer(acc)).expect(200);
    const m = list.body.data.find((x: { id: string }) => x.id === modelId);
    expect(m.available).toBe(true);
    expect(JSON.stringify(list.body)).not.toContain(c.supplierModel);
  });

  it('runs a task on the provider: the output is archived as the account\'s asset before success, and the quote\'s price is charged', async () => {
    const before = await wallet();
    const seen = s.jobs().length;
    const { id, estimated } = await create();
    const job = await jobOf(seen);
    expect(job.model).toBe(c.supplierModel);
    await until('running', async () => (await task(id)).status === 'running');
    s.run(job.id);
    s.succeed(job.id);
    const done = await settled(id);
    expect(done.status).toBe('succeeded');
    expect(done.charged_amount).toBe(estimated);
    expect(JSON.stringify(done)).not.toContain(c.supplierModel);
    const asset = await t.http().get(`/v1/assets/${done.output!.asset_ids[0]}`).set(bearer(acc)).expect(200);
    expect(asset.body.mime).toBe(c.usual.mime);
    const bytes = await fetch(asset.body.url.replace('https://gensvc.example', `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`));
    expect(c.usual.magic(Buffer.from(await bytes.arrayBuffer()))).toBe(c.usual.expect);
    const after = await wallet();
    expect(Number(before.available) - Number(after.available)).toBeCloseTo(Number(estimated), 6);
    expect(after.reserved).toBe(before.reserved);
  });

  it('a provider failure fails the task with SUPPLIER_ERROR, charges nothing and passes no provider message on', async () => {
    const before = await wallet();
    const seen = s.jobs().length;
    const { id } = await create();
    const job = await jobOf(seen);
    s.run(job.id);
    s.fail(job.id, 'CUDA out of memory on node gpu-17');
    const done = await settled(id);
    expect(done.status).toBe('failed');
    expect(done.error!.code).toBe('SUPPLIER_ERROR');
    expect(done.error!.message).not.toMatch(/CUDA|gpu-17/);
    expect(done.settlement_status).toBe('released');
    expect((await wallet()).available).toBe(before.available);
  });

  it(`cancels a job the provider has not started (${c.cancelQueued})`, async () => {
    const seen = s.jobs().length;
    const { id } = await create();
    await jobOf(seen);
    await until('running', async () => (await task(id)).status === 'running');
    await t.http().post(`/v1/tasks/${id}/cancel`).set(bearer(acc)).expect(202);
    const done = await settled(id);
    expect(done.status).toBe('canceled');
    expect(done.cancellation.status).toBe(c.cancelQueued);
    expect(done.settlement_status).toBe('released');
  });

  it(`cancels a running job as the provider allows (${c.cancelRunning})`, async () => {
    const seen = s.jobs().length;
    const { id } = await create();
    const job = await jobOf(seen);
    s.run(job.id);
    await until('running', async () => (await task(id)).status === 'running');
    await t.http().post(`/v1/tasks/${id}/cancel`).set(bearer(acc)).expect(202);
    if (c.cancelRunning === 'refused') {
      await until('refused', async () => (await task(id)).cancellation.status === 'refused');
      s.succeed(job.id);
      const done = await settled(id);
      expect([done.status, done.cancellation.status]).toEqual(['succeeded', 'refused']);
    } else {
      const done = await settled(id);
      expect([done.status, done.cancellation.status, done.settlement_status]).toEqual(['canceled', 'confirmed', 'released']);
    }
  });

  it('waits out a 429 with Retry-After and a 5xx, then runs the task once', async () => {
    s.fault('submit', { status: 429, retryAfter: 1 });
    s.fault(c.poll ?? 'status', { status: 503 });
    const seen = s.jobs().length;
    const { id } = await create();
    const job = await jobOf(seen);
    s.run(job.id);
    s.succeed(job.id);
    expect((await settled(id)).status).toBe('succeeded');
    expect(s.jobs().length).toBe(seen + 1);
    // The scripted 503 was answered (and waited out), not left for a later test.
    const polled = s.requests.filter((r) => r.method === 'GET').length;
    expect(polled).toBeGreaterThan(0);
  });

  it('never sends a job twice when the answer to the create request was lost: the task fails and charges nothing', async () => {
    const before = await wallet();
    s.fault('submit', 'drop-after-create');
    const seen = s.jobs().length;
    const { id } = await create();
    const done = await settled(id);
    expect([done.status, done.error!.code, done.settlement_status]).toEqual(['failed', 'SUPPLIER_ERROR', 'released']);
    expect(s.jobs().length).toBe(seen + 1); // the one the provider made, never a second
    expect((await wallet()).available).toBe(before.available);
  });

  it('fails a task whose result link expired before it was archived, without retrying the download', async () => {
    const seen = s.jobs().length;
    s.linkLifetimeMs = 0;
    const downloads = () => s.requests.filter((r) => r.method === 'GET' && /\.png(\?|$)/.test(r.path)).length;
    const before = downloads();
    try {
      const { id } = await create();
      const job = await jobOf(seen);
      s.run(job.id);
      s.succeed(job.id, [{ kind: 'png' } as StandInOutput]);
      const done = await settled(id);
      expect([done.status, done.error!.code, done.settlement_status]).toEqual(['failed', 'SUPPLIER_ERROR', 'released']);
      expect(downloads() - before).toBeLessThanOrEqual(1); // never retried (Replicate removes the output from the prediction itself)
    } finally {
      s.linkLifetimeMs = 60 * 60 * 1000;
    }
  });

  it('archives each kind of output file with its real type, and refuses a file of a type the service does not serve', async () => {
    const kinds: [StandInOutput, string][] = [
      [{ kind: 'jpeg' }, 'image/jpeg'],
      [{ kind: 'webp' }, 'image/webp'],
      [{ kind: 'mp4' }, 'video/mp4'],
      [{ kind: 'wav' }, 'audio/wav'],
      [{ kind: 'mp3' }, 'audio/mpeg'],
    ];
    for (const [output, mime] of kinds) {
      const seen = s.jobs().length;
      const { id } = await create();
      const job = await jobOf(seen);
      s.run(job.id);
      s.succeed(job.id, [output]);
      const done = await settled(id);
      expect(done.status).toBe('succeeded');
      expect((await t.http().get(`/v1/assets/${done.output!.asset_ids[0]}`).set(bearer(acc)).expect(200)).body.mime).toBe(mime);
    }
    const seen = s.jobs().length;
    const { id } = await create();
    const job = await jobOf(seen);
    s.run(job.id);
    s.succeed(job.id, [{ kind: 'raw', body: Buffer.from('<!doctype html><script>alert(1)</script>'), contentType: 'text/html' }]);
    const done = await settled(id);
    expect([done.status, done.error!.code]).toEqual(['failed', 'SUPPLIER_ERROR']);
  });

  if (c.webhookSecret) {
    it('takes the result from a signed webhook; a bad signature is 401 and changes nothing; a replay changes nothing', async () => {
      const seen = s.jobs().length;
      const { id } = await create();
      const job = await jobOf(seen);
      expect(job.webhook).toMatch(/^https:\/\/gensvc\.example\/v1\/supplier-callbacks\/[A-Za-z0-9_-]{40,}$/);
      s.run(job.id);
      await until('running', async () => (await task(id)).status === 'running');
      expect(await s.sendWebhook!(job.id, WEBHOOK_SECRET, { tamper: true })).toBe(401);
      expect(await s.sendWebhook!(job.id, `whsec_${Buffer.from('another secret entirely 0123456').toString('base64')}`)).toBe(401);
      expect(await s.sendWebhook!(job.id, WEBHOOK_SECRET, { timestampOffsetS: -3600 })).toBe(401);
      expect((await task(id)).status).toBe('running');
      s.succeed(job.id);
      expect(await s.sendWebhook!(job.id, WEBHOOK_SECRET)).toBe(200);
      const done = await settled(id);
      expect(done.status).toBe('succeeded');
      expect(await s.sendWebhook!(job.id, WEBHOOK_SECRET, { replay: true })).toBe(200);
      expect(await task(id)).toEqual(done);
    });
  }

  it('marks the model unavailable while its route probe fails, refusing quotes with MODEL_UNAVAILABLE, and available again once it passes', async () => {
    for (let i = 0; i < 6; i++) s.fault('probe', { status: 401 });
    await until('the model unavailable', async () => (await t.http().get(`/v1/models/${modelId}`).set(bearer(acc))).body.available === false, 8_000);
    const q = await t.http().post('/v1/quotes').set(bearer(acc)).send({ model: modelId, capability: c.capability, input }).expect(422);
    expectError(q.body, 'MODEL_UNAVAILABLE');
    await until('the model available again', async () => (await t.http().get(`/v1/models/${modelId}`).set(bearer(acc))).body.available === true, 15_000);
  });
});

/**
 * Routes in priority order: a route that cannot take the job (a long Retry-After, 5xx three
 * times, a model the provider does not know) hands it to the next one; the task runs once and
 * is charged once. The second channel polls once an hour: its results arrive by signed webhook.
 */
describe('failover between routes', () => {
  const MODEL = 'failover-model';
  let t: TestApp;
  let a: ReplicateStandIn;
  let b: ReplicateStandIn;
  let acc: TestAccount;
  let dir: string;
  const saved = { CATALOGUE_FILE: process.env.CATALOGUE_FILE, SUPPLIER_CHANNELS: process.env.SUPPLIER_CHANNELS };

  beforeAll(async () => {
    a = await new ReplicateStandIn(undefined, ['acme/primary']).start();
    b = await new ReplicateStandIn(undefined, ['acme/fallback']).start();
    dir = mkdtempSync(join(tmpdir(), 'gensvc-failover-'));
    const file = JSON.parse(readFileSync(join(__dirname, '..', 'libs', 'catalogue', 'catalogue', 'catalogue.json'), 'utf8')) as { models: Record<string, unknown>[] };
    const { supplier: _s, supplier_model: _m, ...rest } = file.models.find((m) => m.id === 'text-writer-lite')!;
    file.models.push({
      ...rest,
      id: MODEL,
      name: 'Failover model',
      resolved_model: `${MODEL}-1`,
      routes: [
        { channel: 'rep-b', supplier_model: 'acme/fallback', priority: 5 },
        { channel: 'rep-a', supplier_model: 'acme/primary', priority: 1 },
      ],
    });
    writeFileSync(join(dir, 'catalogue.json'), JSON.stringify({ ...file, version: 'test-failover' }));
    process.env.CATALOGUE_FILE = join(dir, 'catalogue.json');
    const channel = (s: ReplicateStandIn, extra: object) => ({ type: 'replicate', base_url: s.url, api_token: s.token, probe_interval_s: 1, request_timeout_ms: 10_000, ...extra });
    process.env.SUPPLIER_CHANNELS = JSON.stringify({
      'rep-a': channel(a, { poll_interval_ms: 100 }),
      'rep-b': channel(b, { poll_interval_ms: 3_600_000, webhook_secret: WEBHOOK_SECRET }),
    });
    t = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://gensvc.example' } });
    b.webhookOrigin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    acc = await createAccount(t, { credit: '100.00' });
    await until('the route probes', async () => (await t.http().get(`/v1/models/${MODEL}`).set(bearer(acc))).body.available === true);
  });
  afterAll(async () => {
    await t?.close();
    await a?.stop();
    await b?.stop();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const task = async (id: string) => (await t.http().get(`/v1/tasks/${id}`).set(bearer(acc)).expect(200)).body as TaskBody;
  const run = async () => {
    const seenB = b.jobs().length;
    const q = await t.http().post('/v1/quotes').set(bearer(acc)).send({ model: MODEL, capability: 'text.generate', input: { prompt: 'route me' } }).expect(200);
    const res = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `k-${randomUUID()}`).send({ quote_id: q.body.quote_id }).expect(202);
    const job = await until('the job on the fallback route', async () => b.jobs()[seenB]);
    b.run(job.id);
    b.succeed(job.id, [{ kind: 'text', text: 'from the fallback' }]);
    // A webhook faster than the service's record of the create answer is answered 503 and sent again, as providers retry.
    expect(await until('the webhook taken', async () => ((code) => (code === 503 ? undefined : code))(await b.sendWebhook!(job.id, WEBHOOK_SECRET)))).toBe(200);
    const done = await until('settled', async () => ((x) => (x.settlement_status !== 'reserved' ? x : undefined))(await task(res.body.id as string)));
    return { done, estimated: q.body.estimated_amount as string };
  };
  const submits = (s: ReplicateStandIn) => s.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/predictions')).length;

  it('moves on at once when the first route asks to wait longer than 30 seconds', async () => {
    const before = submits(a);
    a.fault('submit', { status: 429, retryAfter: 120 });
    const { done, estimated } = await run();
    expect([done.status, done.output!.text, done.charged_amount]).toEqual(['succeeded', 'from the fallback', estimated]);
    expect(submits(a) - before).toBe(1);
  });

  it('moves on after three 5xx answers of the first route', async () => {
    const before = submits(a);
    for (let i = 0; i < 3; i++) a.fault('submit', { status: 503 });
    const { done } = await run();
    expect(done.status).toBe('succeeded');
    expect(submits(a) - before).toBe(3);
    expect(a.jobs().filter((j) => j.status !== 'canceled').length).toBe(0);
  });

  it('goes on after a restart with the route the job had reached, waiting as that route asked, instead of starting over', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gensvc-failover-restart-'));
    const origin = b.webhookOrigin;
    const boot = async () => {
      const app = await startTestApp({ dataDir, env: { PUBLIC_BASE_URL: 'https://gensvc.example' } });
      b.webhookOrigin = `http://127.0.0.1:${(app.app.getHttpServer().address() as AddressInfo).port}`;
      return app;
    };
    let app = await boot();
    try {
      const owner = await createAccount(app, { credit: '100.00' });
      const available = async () => (await app.http().get(`/v1/models/${MODEL}`).set(bearer(owner))).body.available === true;
      await until('the route probes', available);
      const [beforeA, beforeB, seenB] = [submits(a), submits(b), b.jobs().length];
      a.fault('submit', { status: 429, retryAfter: 120 }); // the first route is spent at once
      b.fault('submit', { status: 503, retryAfter: 3 }); // the second asks to be tried again in 3 s
      const q = await app.http().post('/v1/quotes').set(bearer(owner)).send({ model: MODEL, capability: 'text.generate', input: { prompt: 'survive a restart' } }).expect(200);
      const res = await app.http().post('/v1/tasks').set(bearer(owner)).set('Idempotency-Key', `k-${randomUUID()}`).send({ quote_id: q.body.quote_id }).expect(202);
      const taskId = res.body.id as string;
      const stream = async () => (await app.app.get(EventStore).readStream(`supplierjob-${taskId}`)).map((r) => ({ type: r.type, data: r.data }) as SupplierJobEvent);
      await until('the second route asked to wait', async () => (await stream()).some((e) => e.type === 'SupplierJobNotTaken' && e.data.channel === 'rep-b'));
      await app.close();
      app = await boot();
      await until('the route probes after the restart', available);
      const job = await until('the job on the second route', async () => b.jobs()[seenB]);
      b.run(job.id);
      b.succeed(job.id, [{ kind: 'text', text: 'after the restart' }]);
      expect(await until('the webhook taken', async () => ((code) => (code === 503 ? undefined : code))(await b.sendWebhook!(job.id, WEBHOOK_SECRET)))).toBe(200);
      const done = await until('settled', async () => {
        const x = (await app.http().get(`/v1/tasks/${taskId}`).set(bearer(owner)).expect(200)).body as TaskBody;
        return x.settlement_status !== 'reserved' ? x : undefined;
      });
      expect([done.status, done.output!.text, done.charged_amount]).toEqual(['succeeded', 'after the restart', q.body.estimated_amount]);
      // The first route was asked once; the second twice: its refusal, then after its Retry-After (3 s after the refusal, not sooner).
      expect([submits(a) - beforeA, submits(b) - beforeB]).toEqual([1, 2]);
      const events = await stream();
      const refused = events.find((e) => e.type === 'SupplierJobNotTaken' && e.data.channel === 'rep-b') as Extract<SupplierJobEvent, { type: 'SupplierJobNotTaken' }>;
      const resent = events.filter((e): e is Extract<SupplierJobEvent, { type: 'SupplierJobSubmitting' }> => e.type === 'SupplierJobSubmitting' && e.data.channel === 'rep-b')[1];
      expect(Date.parse(resent.data.at)).toBeGreaterThanOrEqual(Date.parse(refused.data.retry_at!));
    } finally {
      await app.close();
      b.webhookOrigin = origin;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('moves on at once when the first route\'s provider does not know the model', async () => {
    a.knownModels.delete('acme/primary');
    try {
      const before = submits(a);
      const { done } = await run();
      expect(done.status).toBe('succeeded');
      expect(submits(a) - before).toBeLessThanOrEqual(1);
    } finally {
      a.knownModels.add('acme/primary');
    }
  });
});
