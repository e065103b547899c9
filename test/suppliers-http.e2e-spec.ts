import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssetRegistry } from '@gensvc/assets';
import { StandInSupplier } from '@gensvc/suppliers/testing/stand-in-supplier';
import { catalogueWithHttpChannel } from '@gensvc/suppliers/testing/test-catalogue';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';

const SECRET = 'acme-callback-secret-0123456789';

/** The task fields these tests read. */
interface TaskBody {
  status: string;
  resolved_model: string;
  output: { asset_ids: string[]; text?: string; voice_id?: string } | null;
  error: { code: string; message: string } | null;
  cancellation: { status: string };
}
const PUBLIC_BASE = 'http://127.0.0.1:9';

/**
 * An external HTTP supplier channel through the whole app: configured by SUPPLIER_CHANNELS
 * and a test catalogue (CATALOGUE_FILE), results delivered to the real callback route.
 * PUBLIC_BASE_URL points nowhere; the stand-in supplier delivers callbacks to the app's
 * actual address with the path the service generated.
 */
describe('HTTP supplier channel through the API', () => {
  let t: TestApp;
  let supplier: StandInSupplier;
  let acc: TestAccount;
  let dir: string;
  const saved = { CATALOGUE_FILE: process.env.CATALOGUE_FILE, SUPPLIER_CHANNELS: process.env.SUPPLIER_CHANNELS };

  beforeAll(async () => {
    supplier = await new StandInSupplier(SECRET).start();
    dir = mkdtempSync(join(tmpdir(), 'gensvc-http-supplier-'));
    writeFileSync(join(dir, 'catalogue.json'), catalogueWithHttpChannel('acme'));
    process.env.CATALOGUE_FILE = join(dir, 'catalogue.json');
    process.env.SUPPLIER_CHANNELS = JSON.stringify({
      acme: { base_url: supplier.url, api_key: 'acme-key', callback_secret: SECRET, poll_after_ms: 60_000, poll_interval_ms: 60_000, request_timeout_ms: 2000 },
    });
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '100', PUBLIC_BASE_URL: PUBLIC_BASE } });
    supplier.callbackOrigin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    acc = await createAccount(t, { credit: '100.00' });
  });
  afterAll(async () => {
    await t?.close();
    await supplier?.stop();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const createTask = async (body: object) => {
    const q = await t.http().post('/v1/quotes').set(bearer(acc)).send(body).expect(200);
    const res = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: q.body.quote_id }).expect(202);
    return res.body.id as string;
  };
  const waitTask = async (id: string, done: (task: TaskBody) => boolean): Promise<TaskBody> => {
    const until = Date.now() + 15_000;
    for (;;) {
      const body = (await t.http().get(`/v1/tasks/${id}`).set(bearer(acc)).expect(200)).body as TaskBody;
      if (done(body)) return body;
      if (Date.now() > until) throw new Error(`task ${id}: ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const heldBySupplier = async (id: string) => {
    await waitTask(id, (x) => x.status === 'running');
    return supplier.jobs.get(id)!;
  };

  it('runs a task at the supplier and takes the result from a signed callback', async () => {
    const id = await createTask({ model: 'acme-writer', capability: 'text.generate', input: { prompt: 'Tell me about tides' } });
    const job = await heldBySupplier(id);
    expect(job.request.model).toBe('acme-text-large');
    expect(job.request.callback_url.startsWith(`${PUBLIC_BASE}/v1/supplier-callbacks/`)).toBe(true);
    const answer = await supplier.finish(id, { status: 'succeeded', output: { text: 'Tides follow the moon.' } }, {});
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ received: true }) });
    const done = await waitTask(id, (x) => x.status === 'succeeded');
    expect(done.output!.text).toBe('Tides follow the moon.');
    expect(done.resolved_model).toBe('acme-writer-2026-11-01');
    expect(JSON.stringify(done)).not.toContain('acme-text-large');
    const chunks: Buffer[] = [];
    for await (const c of await t.app.get(AssetRegistry, { strict: false }).open(done.output!.asset_ids[0])) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('Tides follow the moon.');
  });

  it('answers bad callbacks with the error object and leaves the task running', async () => {
    const id = await createTask({ model: 'acme-writer', capability: 'text.generate', input: { prompt: 'x' } });
    const job = await heldBySupplier(id);
    const path = new URL(job.request.callback_url).pathname;
    const forged = await supplier.deliver(job, { status: 'succeeded', output: { text: 'forged' } }, { secret: 'not-the-secret-0123456789' });
    expect(forged.status).toBe(401);
    expectError(JSON.parse(forged.body), 'UNAUTHORIZED');
    const stale = await supplier.deliver(job, { status: 'failed' }, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale.status).toBe(401);
    expectError((await t.http().post(`/v1/supplier-callbacks/${'x'.repeat(60)}`).set('Content-Type', 'application/json').send('{}').expect(404)).body, 'NOT_FOUND');
    await t.http().get(path).expect(405);
    const unsigned = await t.http().post(path).set('Content-Type', 'application/json').send(JSON.stringify({ status: 'succeeded', pad: 'x'.repeat(1_000_000) }));
    expect(unsigned.status).toBe(401);
    expectError(unsigned.body, 'UNAUTHORIZED');
    expect((await waitTask(id, () => true)).status).toBe('running');
    await supplier.finish(id, { status: 'failed', error: { code: 'overloaded' } }, {});
    const failed = await waitTask(id, (x) => x.status === 'failed');
    expect(failed.error).toEqual({ code: 'SUPPLIER_ERROR', message: expect.stringContaining('could not complete') });
  });

  it('cancels a running task by asking the supplier', async () => {
    const id = await createTask({ model: 'acme-writer', capability: 'text.generate', input: { prompt: 'long story' } });
    await heldBySupplier(id);
    const res = await t.http().post(`/v1/tasks/${id}/cancel`).set(bearer(acc)).expect(202);
    expect(res.body.cancellation.status).toMatch(/requested|checking/);
    const done = await waitTask(id, (x) => x.status === 'canceled');
    expect(done.cancellation.status).toBe('confirmed');
    expect(supplier.count('POST', `/jobs/${id}/cancel`)).toBe(1);
  });

  it('a voice cloned by the supplier is usable only with that supplier’s models, and its deletion reaches the supplier', async () => {
    const up = await t.http().post('/v1/uploads').set(bearer(acc)).set('Content-Type', 'audio/wav').set('X-Filename', 'me.wav').send(readFileSync(join(__dirname, 'fixtures', 'audio.wav'))).expect(201);
    const assetId = (up.body.asset_id ?? up.body.asset?.id ?? up.body.id) as string;
    const id = await createTask({ model: 'acme-voice-clone', capability: 'voice.clone', input: { asset_ids: [assetId], name: 'Acme voice', consent_attested: true } });
    const job = await heldBySupplier(id);
    expect(job.request.files).toHaveLength(1);
    expect(Buffer.from(job.request.files[0].content_base64, 'base64').equals(readFileSync(join(__dirname, 'fixtures', 'audio.wav')))).toBe(true);
    await supplier.finish(id, { status: 'succeeded', output: { voice_id: 'acme-v-77' } }, {});
    const voiceId = (await waitTask(id, (x) => x.status === 'succeeded')).output!.voice_id as string;

    const voice = await t.http().get(`/v1/voices/${voiceId}`).set(bearer(acc)).expect(200);
    expect(voice.body.models).toEqual(['acme-tts']);
    expect(JSON.stringify(voice.body)).not.toMatch(/acme-v-77|acme"/);
    const wrong = await t
      .http()
      .post('/v1/quotes')
      .set(bearer(acc))
      .send({ model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'hi', voice_id: voiceId } })
      .expect(400);
    expectError(wrong.body, 'VALIDATION_ERROR');
    await t
      .http()
      .post('/v1/quotes')
      .set(bearer(acc))
      .send({ model: 'acme-tts', capability: 'speech.synthesize', input: { text: 'hi', voice_id: voiceId } })
      .expect(200);

    await t.http().delete(`/v1/voices/${voiceId}`).set(bearer(acc)).expect(202);
    const until = Date.now() + 10_000;
    while ((await t.http().get(`/v1/voices/${voiceId}`).set(bearer(acc))).body.status !== 'deleted' && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    expect(supplier.deletedVoices).toEqual(['acme-v-77']);
  });

  describe('output files the supplier links to or names', () => {
    const run = async (output: object) => {
      const id = await createTask({ model: 'acme-writer', capability: 'text.generate', input: { prompt: 'files' } });
      await heldBySupplier(id);
      await supplier.finish(id, { status: 'succeeded', output } as never, {});
      return waitTask(id, (x) => x.status !== 'running');
    };

    it('never fetches an output address on loopback or a private network outside the channel\'s own origin', async () => {
      const hits: string[] = [];
      const internal = createServer((req, res) => {
        hits.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(readFileSync(join(__dirname, 'fixtures', 'image.png')));
      });
      await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
      try {
        const port = (internal.address() as AddressInfo).port;
        for (const url of [`http://127.0.0.1:${port}/secret.png`, `https://127.0.0.1:${port}/secret.png`, 'https://169.254.169.254/latest/meta-data', 'https://10.0.0.8/x.png']) {
          const failed = await run({ files: [{ name: 'x.png', mime: 'image/png', url }] });
          expect(failed.status).toBe('failed');
          expect(failed.error).toEqual({ code: 'SUPPLIER_ERROR', message: expect.stringContaining('refused_address') });
        }
        expect(hits).toEqual([]);
      } finally {
        internal.close();
      }
    });

    it('stores only the types the service serves: HTML, SVG or scripts fail the task instead of being served on the API origin', async () => {
      for (const [mime, body] of [
        ['text/html', '<!doctype html><script>alert(1)</script>'],
        ['image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
        ['application/javascript', 'alert(document.cookie)'],
        ['image/png', '<html><body>not a png</body></html>'],
      ]) {
        const failed = await run({ files: [{ name: 'page', mime, content_base64: Buffer.from(body).toString('base64') }] });
        expect(failed.status).toBe('failed');
        expect(failed.error!.code).toBe('SUPPLIER_ERROR');
      }
      const ok = await run({ files: [{ name: 'pic.png', mime: 'application/octet-stream', content_base64: readFileSync(join(__dirname, 'fixtures', 'image.png')).toString('base64') }] });
      expect(ok.status).toBe('succeeded');
      const asset = await t.http().get(`/v1/assets/${ok.output!.asset_ids[0]}`).set(bearer(acc)).expect(200);
      expect(asset.body.mime).toBe('image/png');
    });

    it('fails the task once on a 4xx of an output link instead of retrying it until the deadline', async () => {
      const before = supplier.count('GET', '/files/');
      const failed = await run({ files: [{ name: 'gone.png', mime: 'image/png', url: `${supplier.url}/files/gone.png` }] });
      expect(failed.status).toBe('failed');
      expect(failed.error).toEqual({ code: 'SUPPLIER_ERROR', message: expect.stringContaining('http_404') });
      expect(supplier.count('GET', '/files/') - before).toBe(1);
    });
  });
});
