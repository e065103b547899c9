import { PNG } from 'pngjs';
import type { ProviderAnswer, ProviderJobStatus, ProviderRequest, RouteJob } from '../../application/providers/provider-adapter';
import { openaiAdapter } from '../../infrastructure/providers/openai/openai.adapter';
import { OpenAiStandIn } from './openai.stand-in';

/**
 * The OpenAI adapter's requests, sent over HTTP to the OpenAI stand-in and read back by the
 * adapter: both follow OpenAI's API reference, so they must agree.
 */
let standIn: OpenAiStandIn;
let clock: number;

async function send(request: ProviderRequest, key = standIn.key, signal?: AbortSignal): Promise<ProviderAnswer> {
  const res = await fetch(`${standIn.url}${request.url}`, {
    method: request.method,
    headers: { accept: 'application/json', ...openaiAdapter.auth(key), ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    ...(signal ? { signal } : {}),
  });
  const raw = Buffer.from(await res.arrayBuffer());
  let json: unknown = null;
  if ((res.headers.get('content-type') ?? '').includes('json')) json = JSON.parse(raw.toString('utf8'));
  return { status: res.status, headers: res.headers, json, raw };
}

const chat = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01',
  capability: 'text.generate',
  supplierModel: 'gpt-4o-mini',
  input: { messages: [{ role: 'user', content: 'Hello!' }] },
  ...over,
});
const image = (model: string, input: Record<string, unknown> = { prompt: 'A cute baby sea otter', n: 1 }): RouteJob => ({ taskId: 'task_02', capability: 'image.generate', supplierModel: model, input });
const speech = (input: Record<string, unknown> = { input: 'Hello', voice: 'alloy' }): RouteJob => ({ taskId: 'task_03', capability: 'speech.synthesize', supplierModel: 'tts-1', input });

async function run(job: RouteJob): Promise<{ remoteId: string; status: ProviderJobStatus }> {
  const answer = await send(openaiAdapter.submit(job));
  expect(answer.status).toBe(200);
  const accepted = openaiAdapter.accepted(answer, job);
  return { remoteId: accepted.remoteId, status: accepted.status! };
}

/** Waits (bounded) for the stand-in to hold a call. */
async function heldCall(): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const job = standIn.jobs().find((j) => j.status === 'running');
    if (job) return job.id;
    if (Date.now() > deadline) throw new Error('no call was held');
    await new Promise((r) => setImmediate(r));
  }
}

beforeEach(async () => {
  clock = 1_000_000;
  standIn = await new OpenAiStandIn(undefined, ['gpt-4o-mini', 'gpt-image-1', 'dall-e-3', 'tts-1']).start();
  standIn.now = () => clock;
});
afterEach(() => standIn.stop());

describe('OpenAI stand-in and adapter', () => {
  it('probes the model list under /v1; a wrong key is 401 invalid_api_key', async () => {
    const probe = openaiAdapter.probe('gpt-4o-mini', 'text.generate');
    const ok = await send(probe);
    expect(ok.status).toBe(200);
    expect((ok.json as { data: { id: string }[] }).data.map((m) => m.id)).toContain('gpt-4o-mini');
    const denied = await send(probe, 'sk-wrong');
    expect(denied.status).toBe(401);
    expect(denied.json).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models', auth: 'Bearer sk-wrong' });
  });

  it('answers a chat completion at once; the adapter reads its text under the completion id', async () => {
    const { remoteId, status } = await run(chat());
    expect(status).toEqual({ state: 'succeeded', files: [], text: 'Hello! How can I assist you today?' });
    expect(standIn.jobs()).toEqual([{ id: remoteId, model: 'gpt-4o-mini', input: { messages: [{ role: 'user', content: 'Hello!' }] }, status: 'succeeded' }]);
    standIn.succeedNext([{ kind: 'text', text: 'Scripted.' }]);
    expect((await run(chat())).status).toEqual({ state: 'succeeded', files: [], text: 'Scripted.' });
  });

  it('answers GPT image models in base64 (a real PNG) and refuses them a response_format', async () => {
    const { status } = await run(image('gpt-image-1'));
    if (status.state !== 'succeeded') throw new Error(`expected succeeded, got ${status.state}`);
    const file = status.files[0] as { base64: string; name: string };
    expect(file.name).toBe('image-1.png');
    expect(PNG.sync.read(Buffer.from(file.base64, 'base64')).width).toBeGreaterThan(0);
    const refused = await send({ method: 'POST', url: '/images/generations', body: { model: 'gpt-image-1', prompt: 'p', response_format: 'b64_json' } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { param: 'response_format', code: 'unknown_parameter' } });
  });

  it('answers DALL·E as asked: base64 by the adapter\'s default, links when the route asks url; links expire after an hour', async () => {
    const asked = await run(image('dall-e-3'));
    expect(asked.status).toMatchObject({ state: 'succeeded', files: [{ name: 'image-1.png' }] });
    standIn.succeedNext([{ kind: 'jpeg' }]);
    const linked = await run(image('dall-e-3', { prompt: 'p', response_format: 'url' }));
    if (linked.status.state !== 'succeeded') throw new Error('expected succeeded');
    const url = (linked.status.files[0] as { url: string }).url;
    expect(new URL(url).origin).toBe(standIn.origin);
    const download = await fetch(url);
    expect(download.headers.get('content-type')).toBe('image/jpeg');
    expect([...Buffer.from(await download.arrayBuffer()).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    clock += standIn.linkLifetimeMs;
    expect((await fetch(url)).status).toBe(404);
  });

  it('answers speech with the audio file itself (mp3 by default, wav when asked), a large one streamed', async () => {
    const mp3 = await run(speech());
    if (mp3.status.state !== 'succeeded') throw new Error('expected succeeded');
    const bytes = Buffer.from((mp3.status.files[0] as { base64: string }).base64, 'base64');
    expect([bytes[0], bytes[1]! & 0xe0]).toEqual([0xff, 0xe0]);
    expect(mp3.remoteId).toMatch(/^req_/);
    const wav = await run(speech({ input: 'Hello', voice: 'alloy', response_format: 'wav' }));
    if (wav.status.state !== 'succeeded') throw new Error('expected succeeded');
    expect(Buffer.from((wav.status.files[0] as { base64: string }).base64, 'base64').subarray(0, 4).toString('latin1')).toBe('RIFF');
    standIn.succeedNext([{ kind: 'mp3', bytes: 8 * 1024 * 1024 }]);
    const big = await send(openaiAdapter.submit(speech()));
    expect(big.headers.get('content-type')).toBe('audio/mpeg');
    expect(big.raw!.length).toBeGreaterThan(8 * 1024 * 1024 - 417);
  });

  it('holds a call until the test settles it: succeed answers the outputs, fail answers 500 server_error', async () => {
    standIn.sync.hold = true;
    const pending = send(openaiAdapter.submit(chat()));
    const id = await heldCall();
    standIn.run(id);
    standIn.succeed(id, [{ kind: 'text', text: 'Late but here.' }]);
    const answer = await pending;
    expect(openaiAdapter.accepted(answer, chat())).toEqual({ remoteId: id, status: { state: 'succeeded', files: [], text: 'Late but here.' } });
    const failing = send(openaiAdapter.submit(chat()));
    const second = await heldCall();
    standIn.fail(second);
    const failed = await failing;
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ error: { type: 'server_error' } });
    expect(standIn.jobs().map((j) => j.status)).toEqual(['succeeded', 'failed']);
    expect(() => standIn.succeed(second)).toThrow(/no synchronous call/);
  });

  it('answers an unknown model 404 model_not_found', async () => {
    const answer = await send(openaiAdapter.submit(chat({ supplierModel: 'gpt-nothing' })));
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ error: { code: 'model_not_found', type: 'invalid_request_error' } });
    expect(standIn.jobs()).toEqual([]);
  });

  it('plays scripted faults: 429 with Retry-After, a hang, an answer dropped after the call ran', async () => {
    standIn.fault('submit', { status: 429, retryAfter: 7 });
    const limited = await send(openaiAdapter.submit(chat()));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.json).toMatchObject({ error: { code: 'rate_limit_exceeded' } });

    standIn.fault('submit', 'hang');
    await expect(send(openaiAdapter.submit(chat()), undefined, AbortSignal.timeout(300))).rejects.toThrow();

    standIn.fault('submit', 'drop-after-create');
    await expect(send(openaiAdapter.submit(chat()))).rejects.toThrow();
    expect(standIn.jobs()).toMatchObject([{ model: 'gpt-4o-mini', status: 'succeeded' }]);
  });
});
