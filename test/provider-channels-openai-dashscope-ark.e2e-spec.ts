import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArkStandIn } from '@gensvc/suppliers/testing/stand-ins/ark.stand-in';
import { DashScopeStandIn } from '@gensvc/suppliers/testing/stand-ins/dashscope.stand-in';
import { OpenAiStandIn } from '@gensvc/suppliers/testing/stand-ins/openai.stand-in';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Catalogue models routed to the OpenAI-compatible, DashScope and Ark stand-ins through the
 * whole app (CONTRACT §14): synchronous answers archived at once (chat text, base64 images,
 * speech bytes, Seedream links), DashScope tasks polled and canceled as DashScope allows, a
 * CosyVoice voice cloned, spoken with and deleted at DashScope, and a lost synchronous answer.
 */
interface TaskBody {
  id: string;
  status: string;
  charged_amount: string | null;
  settlement_status: string;
  output: { asset_ids: string[]; text?: string; voice_id?: string } | null;
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

const ROUTES: Record<string, { base: string; channel: string; supplierModel: string; inputMap?: string; capability?: string }> = {
  'oa-writer': { base: 'text-writer-lite', channel: 'openai', supplierModel: 'gpt-4o-mini', inputMap: '{ "messages": [{ "role": "user", "content": input.prompt }] }' },
  'oa-tts': { base: 'speech-tts-std', channel: 'openai', supplierModel: 'tts-1', inputMap: '{ "input": input.text, "voice": "alloy", "response_format": "mp3" }' },
  'oa-image': { base: 'image-studio-v2', channel: 'openai', supplierModel: 'gpt-image-1', inputMap: '{ "prompt": input.prompt, "n": input.count }' },
  'ds-image': { base: 'image-studio-v2', channel: 'dashscope', supplierModel: 'wanx2.1-t2i-turbo', inputMap: '{ "input": { "prompt": input.prompt }, "parameters": { "n": input.count } }' },
  'ds-voice': { base: 'voice-clone-std', channel: 'dashscope', supplierModel: 'cosyvoice-v2' },
  'ds-tts': { base: 'speech-tts-std', channel: 'dashscope', supplierModel: 'cosyvoice-v2', inputMap: '{ "input": { "text": input.text, "voice": input.voice_id, "format": "mp3" } }' },
  'ark-image': { base: 'image-studio-v2', channel: 'ark', supplierModel: 'doubao-seedream-3-0-t2i-250415', inputMap: '{ "prompt": input.prompt, "response_format": "url" }' },
  // The image model's schema and prices, offered as video (the default catalogue has no video model).
  'ark-video': { base: 'image-studio-v2', channel: 'ark', supplierModel: 'doubao-seedance-1-0-pro-250528', inputMap: '{ "content": [{ "type": "text", "text": input.prompt }] }', capability: 'video.generate' },
};

describe('provider channels openai, dashscope and ark through the API', () => {
  let t: TestApp;
  let acc: TestAccount;
  let dir: string;
  let origin: string;
  const openai = new OpenAiStandIn(undefined, ['gpt-4o-mini', 'tts-1', 'gpt-image-1']);
  const dashscope = new DashScopeStandIn(undefined, ['wanx2.1-t2i-turbo', 'cosyvoice-v2']);
  const ark = new ArkStandIn(undefined, ['doubao-seedream-3-0-t2i-250415', 'doubao-seedance-1-0-pro-250528']);
  const saved = { CATALOGUE_FILE: process.env.CATALOGUE_FILE, SUPPLIER_CHANNELS: process.env.SUPPLIER_CHANNELS };

  beforeAll(async () => {
    await Promise.all([openai.start(), dashscope.start(), ark.start()]);
    dir = mkdtempSync(join(tmpdir(), 'gensvc-providers-'));
    const file = JSON.parse(readFileSync(join(__dirname, '..', 'libs', 'catalogue', 'catalogue', 'catalogue.json'), 'utf8')) as { version: string; models: Record<string, unknown>[] };
    for (const [id, r] of Object.entries(ROUTES)) {
      const { supplier: _s, supplier_model: _m, ...rest } = file.models.find((m) => m.id === r.base)!;
      const video = r.capability ? { modality: 'video', capabilities: [r.capability], pricing: (rest.pricing as Record<string, unknown>[]).map((p) => ({ ...p, capability: r.capability })) } : {};
      file.models.push({
        ...rest,
        ...video,
        id,
        name: id,
        resolved_model: `${id}-1`,
        routes: [{ channel: r.channel, supplier_model: r.supplierModel, unit_cost: '0.010000', ...(r.inputMap ? { input_map: r.inputMap } : {}) }],
      });
    }
    writeFileSync(join(dir, 'catalogue.json'), JSON.stringify({ ...file, version: 'test-providers' }));
    process.env.CATALOGUE_FILE = join(dir, 'catalogue.json');
    const common = { poll_interval_ms: 100, probe_interval_s: 1, request_timeout_ms: 10_000, cancel_timeout_ms: 5000 };
    process.env.SUPPLIER_CHANNELS = JSON.stringify({
      openai: { type: 'openai', base_url: openai.url, api_key: openai.key, ...common },
      dashscope: { type: 'dashscope', base_url: dashscope.url, api_key: dashscope.key, ...common },
      ark: { type: 'ark', base_url: ark.url, api_key: ark.key, ...common },
    });
    t = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://gensvc.example' } });
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    acc = await createAccount(t, { credit: '100.00' });
    for (const id of Object.keys(ROUTES)) {
      await until(`the route probe of ${id}`, async () => (await t.http().get(`/v1/models/${id}`).set(bearer(acc))).body.available === true);
    }
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([openai.stop(), dashscope.stop(), ark.stop()]);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const create = async (model: string, capability: string, input: Record<string, unknown>) => {
    const q = await t.http().post('/v1/quotes').set(bearer(acc)).send({ model, capability, input }).expect(200);
    const res = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `k-${randomUUID()}`).send({ quote_id: q.body.quote_id }).expect(202);
    return { id: res.body.id as string, estimated: q.body.estimated_amount as string };
  };
  const task = async (id: string) => (await t.http().get(`/v1/tasks/${id}`).set(bearer(acc)).expect(200)).body as TaskBody;
  const settled = (id: string) => until(`task ${id} settled`, async () => ((x) => (x.settlement_status !== 'reserved' ? x : undefined))(await task(id)));
  const asset = async (id: string) => {
    const a = (await t.http().get(`/v1/assets/${id}`).set(bearer(acc)).expect(200)).body as { mime: string; url: string };
    const bytes = Buffer.from(await (await fetch(a.url.replace('https://gensvc.example', origin))).arrayBuffer());
    return { mime: a.mime, bytes };
  };

  it('answers a chat completion at once: the text is the output and an output.txt asset, the quote is charged', async () => {
    const { id, estimated } = await create('oa-writer', 'text.generate', { prompt: 'Hello!' });
    const done = await settled(id);
    expect([done.status, done.charged_amount, done.output!.text]).toEqual(['succeeded', estimated, 'Hello! How can I assist you today?']);
    const text = await asset(done.output!.asset_ids[0]!);
    expect(text.mime).toMatch(/^text\/plain/);
    expect(text.bytes.toString('utf8')).toBe('Hello! How can I assist you today?');
    expect(openai.jobs().at(-1)).toMatchObject({ model: 'gpt-4o-mini', input: { messages: [{ role: 'user', content: 'Hello!' }] }, status: 'succeeded' });
  });

  it('archives OpenAI speech (the answer body) and a GPT image (base64) as assets', async () => {
    const speech = await settled((await create('oa-tts', 'speech.synthesize', { text: 'Hello there' })).id);
    expect(speech.status).toBe('succeeded');
    expect((await asset(speech.output!.asset_ids[0]!)).mime).toBe('audio/mpeg');
    const image = await settled((await create('oa-image', 'image.generate', { prompt: 'an otter', count: 1 })).id);
    expect(image.status).toBe('succeeded');
    const png = await asset(image.output!.asset_ids[0]!);
    expect([png.mime, png.bytes.subarray(1, 4).toString('latin1')]).toEqual(['image/png', 'PNG']);
  });

  it('never resends a synchronous request whose answer was lost: the task fails and charges nothing', async () => {
    openai.fault('submit', 'drop-after-create');
    const seen = openai.jobs().length;
    const done = await settled((await create('oa-writer', 'text.generate', { prompt: 'lost' })).id);
    expect([done.status, done.error!.code, done.settlement_status]).toEqual(['failed', 'SUPPLIER_ERROR', 'released']);
    expect(openai.jobs().length).toBe(seen + 1);
  });

  it('runs a DashScope image task: polled to SUCCEEDED, its result archived', async () => {
    const seen = dashscope.jobs().length;
    const { id, estimated } = await create('ds-image', 'image.generate', { prompt: 'a lighthouse', count: 1 });
    const job = await until('the DashScope task', async () => dashscope.jobs()[seen]);
    expect(job).toMatchObject({ model: 'wanx2.1-t2i-turbo', input: { input: { prompt: 'a lighthouse' }, parameters: { n: 1 } }, status: 'PENDING' });
    dashscope.run(job.id);
    dashscope.succeed(job.id);
    const done = await settled(id);
    expect([done.status, done.charged_amount]).toEqual(['succeeded', estimated]);
    expect((await asset(done.output!.asset_ids[0]!)).mime).toBe('image/png');
  });

  it('cancels a PENDING DashScope task (confirmed) and is refused once it runs', async () => {
    let seen = dashscope.jobs().length;
    const queued = await create('ds-image', 'image.generate', { prompt: 'cancel me', count: 1 });
    await until('the DashScope task', async () => dashscope.jobs()[seen]);
    await until('running', async () => (await task(queued.id)).status === 'running');
    await t.http().post(`/v1/tasks/${queued.id}/cancel`).set(bearer(acc)).expect(202);
    const canceled = await settled(queued.id);
    expect([canceled.status, canceled.cancellation.status, canceled.settlement_status]).toEqual(['canceled', 'confirmed', 'released']);

    seen = dashscope.jobs().length;
    const running = await create('ds-image', 'image.generate', { prompt: 'too late', count: 1 });
    const job = await until('the DashScope task', async () => dashscope.jobs()[seen]);
    dashscope.run(job.id);
    await until('running', async () => (await task(running.id)).status === 'running');
    await t.http().post(`/v1/tasks/${running.id}/cancel`).set(bearer(acc)).expect(202);
    await until('refused', async () => (await task(running.id)).cancellation.status === 'refused');
    dashscope.succeed(job.id);
    const done = await settled(running.id);
    expect([done.status, done.cancellation.status]).toEqual(['succeeded', 'refused']);
  });

  it('clones a CosyVoice voice at DashScope, speaks with it there, and deletes it there', async () => {
    const up = await t.http().post('/v1/uploads').set(bearer(acc)).set('Content-Type', 'audio/wav').set('X-Filename', 'me.wav').send(readFileSync(join(__dirname, 'fixtures', 'audio.wav'))).expect(201);
    const assetId = (up.body.asset_id ?? up.body.asset?.id ?? up.body.id) as string;
    const seen = dashscope.jobs().length;
    const clone = await create('ds-voice', 'voice.clone', { asset_ids: [assetId], name: 'Narrator', consent_attested: true });
    const job = await until('the voice at DashScope', async () => dashscope.jobs()[seen]);
    expect(job).toMatchObject({ model: 'cosyvoice-v2', status: 'DEPLOYING', input: { action: 'create_voice', target_model: 'cosyvoice-v2' } });
    dashscope.succeed(job.id); // the review passed
    const cloned = await settled(clone.id);
    expect(cloned.status).toBe('succeeded');
    const voiceId = cloned.output!.voice_id!;
    expect(JSON.stringify(cloned)).not.toContain(job.id);

    const spoken = await settled((await create('ds-tts', 'speech.synthesize', { text: '你好', voice_id: voiceId })).id);
    expect(spoken.status).toBe('succeeded');
    expect(dashscope.jobs().at(-1)).toMatchObject({ model: 'cosyvoice-v2', input: { input: { text: '你好', voice: job.id, format: 'mp3' } } });
    expect((await asset(spoken.output!.asset_ids[0]!)).mime).toBe('audio/mpeg');

    await t.http().delete(`/v1/voices/${voiceId}`).set(bearer(acc)).expect(202);
    await until('the deletion at DashScope', async () => dashscope.deletedVoices.includes(job.id));
  });

  it('archives a Seedream image answered at once by Ark', async () => {
    const done = await settled((await create('ark-image', 'image.generate', { prompt: 'a cat', count: 1 })).id);
    expect(done.status).toBe('succeeded');
    const jpeg = await asset(done.output!.asset_ids[0]!);
    expect([jpeg.mime, [...jpeg.bytes.subarray(0, 3)]]).toEqual(['image/jpeg', [0xff, 0xd8, 0xff]]);
    expect(ark.jobs().at(-1)).toMatchObject({ model: 'doubao-seedream-3-0-t2i-250415', input: { prompt: 'a cat', response_format: 'url' }, status: 'succeeded' });
  });

  it('runs an Ark video task: polled to succeeded, the MP4 archived; a queued task is canceled, a running one refused', async () => {
    let seen = ark.jobs().length;
    const { id } = await create('ark-video', 'video.generate', { prompt: 'waves', count: 1 });
    const job = await until('the Ark task', async () => ark.jobs()[seen]);
    expect(job).toMatchObject({ model: 'doubao-seedance-1-0-pro-250528', input: { content: [{ type: 'text', text: 'waves' }] }, status: 'queued' });
    ark.run(job.id);
    ark.succeed(job.id);
    const done = await settled(id);
    expect(done.status).toBe('succeeded');
    const mp4 = await asset(done.output!.asset_ids[0]!);
    expect([mp4.mime, mp4.bytes.subarray(4, 8).toString('latin1')]).toEqual(['video/mp4', 'ftyp']);

    seen = ark.jobs().length;
    const queued = await create('ark-video', 'video.generate', { prompt: 'cancel me', count: 1 });
    await until('the Ark task', async () => ark.jobs()[seen]);
    await until('running', async () => (await task(queued.id)).status === 'running');
    await t.http().post(`/v1/tasks/${queued.id}/cancel`).set(bearer(acc)).expect(202);
    expect((await settled(queued.id)).cancellation.status).toBe('confirmed');

    seen = ark.jobs().length;
    const running = await create('ark-video', 'video.generate', { prompt: 'too late', count: 1 });
    const started = await until('the Ark task', async () => ark.jobs()[seen]);
    ark.run(started.id);
    await until('running', async () => (await task(running.id)).status === 'running');
    await t.http().post(`/v1/tasks/${running.id}/cancel`).set(bearer(acc)).expect(202);
    await until('refused', async () => (await task(running.id)).cancellation.status === 'refused');
    ark.succeed(started.id);
    const finished = await settled(running.id);
    expect([finished.status, finished.cancellation.status]).toEqual(['succeeded', 'refused']);
  });
});
