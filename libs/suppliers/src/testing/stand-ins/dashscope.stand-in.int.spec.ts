import { PNG } from 'pngjs';
import type { ProviderAnswer, ProviderJobStatus, ProviderRequest, RouteJob } from '../../application/providers/provider-adapter';
import { dashscopeAdapter } from '../../infrastructure/providers/dashscope/dashscope.adapter';
import { DashScopeStandIn } from './dashscope.stand-in';

/**
 * The DashScope adapter's requests, sent over HTTP to the DashScope stand-in and read back
 * by the adapter: both follow Model Studio's API references, so they must agree.
 */
let standIn: DashScopeStandIn;
let clock: number;

async function send(request: ProviderRequest, key = standIn.key, signal?: AbortSignal): Promise<ProviderAnswer> {
  const res = await fetch(`${standIn.url}${request.url}`, {
    method: request.method,
    headers: { accept: 'application/json', ...dashscopeAdapter.auth(key), ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    ...(signal ? { signal } : {}),
  });
  const raw = Buffer.from(await res.arrayBuffer());
  const json: unknown = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(raw.toString('utf8')) : null;
  return { status: res.status, headers: res.headers, json, raw };
}

const image = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01JIMAGE',
  capability: 'image.generate',
  supplierModel: 'wanx2.1-t2i-turbo',
  input: { input: { prompt: '一间有着精致窗户的花店' }, parameters: { size: '1024*1024', n: 1 } },
  ...over,
});
const video = (): RouteJob => ({ taskId: 'task_01JVIDEO', capability: 'video.generate', supplierModel: 'wanx2.1-t2v-turbo', input: { input: { prompt: '一只小猫在月光下奔跑' } } });
const speech = (): RouteJob => ({ taskId: 'task_01JSPEECH', capability: 'speech.synthesize', supplierModel: 'qwen-tts', input: { input: { text: '你好', voice: 'Chelsie' } } });
const clone = (): RouteJob => ({
  taskId: 'task_01JVOICE0000000000000CLONE',
  capability: 'voice.clone',
  supplierModel: 'cosyvoice-v2',
  input: { input: { asset_ids: ['https://gensvc.example/v1/assets/ast_1/content?sig=x'], consent_attested: true, name: 'Narrator' } },
});

async function submitted(job: RouteJob): Promise<{ remoteId: string; status?: ProviderJobStatus }> {
  const answer = await send(dashscopeAdapter.submit(job));
  expect(answer.status).toBe(200);
  return dashscopeAdapter.accepted(answer, job);
}

async function status(id: string, job: RouteJob): Promise<ProviderJobStatus> {
  const answer = await send(dashscopeAdapter.status(id, job));
  expect(answer.status).toBe(200);
  return dashscopeAdapter.readStatus(answer, job);
}

function links(done: ProviderJobStatus): string[] {
  if (done.state !== 'succeeded') throw new Error(`expected succeeded, got ${JSON.stringify(done)}`);
  return done.files.map((f) => (f as { url: string }).url);
}

/** Waits (bounded) for the stand-in to hold a speech call. */
async function heldJob(): Promise<{ id: string }> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const job = standIn.jobs().find((j) => j.status === 'RUNNING');
    if (job) return job;
    if (Date.now() > deadline) throw new Error('no call was held');
    await new Promise((r) => setImmediate(r));
  }
}

beforeEach(async () => {
  clock = Date.UTC(2026, 0, 8, 16, 3, 59);
  standIn = await new DashScopeStandIn(undefined, ['wanx2.1-t2i-turbo', 'wanx2.1-t2v-turbo', 'qwen-tts', 'cosyvoice-v2']).start();
  standIn.now = () => clock;
});
afterEach(() => standIn.stop());

describe('DashScope stand-in and adapter', () => {
  it('probes the model read: known 200, unknown 404; a wrong key is 401 InvalidApiKey', async () => {
    expect((await send(dashscopeAdapter.probe('wanx2.1-t2i-turbo', 'image.generate'))).status).toBe(200);
    expect((await send(dashscopeAdapter.probe('wanx-nothing', 'image.generate'))).status).toBe(404);
    const denied = await send(dashscopeAdapter.probe('wanx2.1-t2i-turbo', 'image.generate'), 'sk-wrong');
    expect(denied.status).toBe(401);
    expect(denied.json).toMatchObject({ code: 'InvalidApiKey', message: 'Invalid API-key provided.' });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'GET', path: '/api/v1/models/wanx2.1-t2i-turbo', auth: 'Bearer sk-wrong' });
  });

  it('takes an image task asynchronously and follows it PENDING → RUNNING → SUCCEEDED with a real PNG that expires after a day', async () => {
    const { remoteId, status: first } = await submitted(image());
    expect(first).toEqual({ state: 'queued' });
    expect(standIn.jobs()).toEqual([{ id: remoteId, model: 'wanx2.1-t2i-turbo', input: image().input, status: 'PENDING' }]);
    expect(await status(remoteId, image())).toEqual({ state: 'queued' });
    standIn.run(remoteId);
    expect(await status(remoteId, image())).toEqual({ state: 'running' });
    standIn.succeed(remoteId);
    const [url] = links(await status(remoteId, image()));
    expect(new URL(url!).origin).toBe(standIn.url);
    const download = await fetch(url!);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(PNG.sync.read(Buffer.from(await download.arrayBuffer())).width).toBeGreaterThan(0);
    clock += standIn.linkLifetimeMs;
    expect((await fetch(url!)).status).toBe(404);
  });

  it('refuses a task without X-DashScope-Async (403 AccessDenied) and an unknown model (400 Model not exist.)', async () => {
    const request = dashscopeAdapter.submit(image());
    const sync = await send({ ...request, headers: {} });
    expect(sync.status).toBe(403);
    expect(sync.json).toMatchObject({ code: 'AccessDenied' });
    const unknown = await send(dashscopeAdapter.submit(image({ supplierModel: 'wanx-nothing' })));
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ code: 'InvalidParameter', message: 'Model not exist.' });
    expect(standIn.jobs()).toEqual([]);
  });

  it('finishes a video task with an MP4 (ftyp), a large one streamed', async () => {
    const { remoteId } = await submitted(video());
    standIn.succeed(remoteId, [{ kind: 'mp4', bytes: 6 * 1024 * 1024 }]);
    const [url] = links(await status(remoteId, video()));
    const bytes = Buffer.from(await (await fetch(url!)).arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.length).toBe(6 * 1024 * 1024);
  });

  it('reads a failed task with its code and message, and UNKNOWN for a task it does not know or no longer keeps', async () => {
    const { remoteId } = await submitted(image());
    standIn.fail(remoteId, 'The size is not match');
    expect(await status(remoteId, image())).toEqual({ state: 'failed', detail: 'InternalError: The size is not match' });
    expect(await status('0385dc79-5ff8-4d82-bcb6-000000000000', image())).toEqual({ state: 'failed', detail: 'UNKNOWN: the task is unknown or expired' });
    const { remoteId: old } = await submitted(image());
    clock += standIn.retentionMs;
    expect(await status(old, image())).toEqual({ state: 'failed', detail: 'UNKNOWN: the task is unknown or expired' });
  });

  it('cancels a PENDING task, and refuses once it runs (400 UnsupportedOperation)', async () => {
    const { remoteId } = await submitted(image());
    const canceled = await send(dashscopeAdapter.cancel(remoteId, image())!);
    expect(canceled.status).toBe(200);
    expect(dashscopeAdapter.readCancel(canceled)).toBe('canceled');
    expect(await status(remoteId, image())).toEqual({ state: 'canceled' });
    const { remoteId: running } = await submitted(image());
    standIn.run(running);
    const refused = await send(dashscopeAdapter.cancel(running, image())!);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'UnsupportedOperation' });
    expect(await status(running, image())).toEqual({ state: 'running' });
  });

  it('answers speech at once with an audio link, or when the test settles a held call', async () => {
    const { status: done } = await submitted(speech());
    const [url] = links(done!);
    expect(Buffer.from(await (await fetch(url!)).arrayBuffer()).subarray(0, 4).toString('latin1')).toBe('RIFF');
    standIn.sync.hold = true;
    const pending = send(dashscopeAdapter.submit(speech()));
    const held = await heldJob();
    standIn.succeed(held.id, [{ kind: 'mp3' }]);
    expect(dashscopeAdapter.accepted(await pending, speech())).toMatchObject({ remoteId: held.id, status: { state: 'succeeded' } });
    standIn.failNext('busy');
    const failed = await send(dashscopeAdapter.submit(speech()));
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ code: 'InternalError', message: 'busy' });
  });

  it('clones a voice: created DEPLOYING, found by the task prefix, OK after review, deleted at DashScope', async () => {
    const { remoteId } = await submitted(clone());
    expect(remoteId).toMatch(/^cosyvoice-v2-[a-z0-9]{1,9}-[0-9a-f]{8}$/);
    expect(await status(remoteId, clone())).toEqual({ state: 'running' });
    standIn.succeed(remoteId);
    expect(await status(remoteId, clone())).toEqual({ state: 'succeeded', files: [], voiceId: remoteId });
    const deleted = await send(dashscopeAdapter.deleteVoice!(remoteId));
    expect(deleted.status).toBe(200);
    expect(standIn.deletedVoices).toEqual([remoteId]);
    expect(await status(remoteId, clone())).toEqual({ state: 'failed', detail: 'the cloned voice is not listed (deleted at DashScope?)' });
  });

  it('reads a voice that fails review as failed', async () => {
    const { remoteId } = await submitted(clone());
    standIn.fail(remoteId);
    expect(await status(remoteId, clone())).toEqual({ state: 'failed', detail: 'UNDEPLOYED: the voice did not pass review' });
  });

  it('plays scripted faults: 429 Throttling.RateQuota with Retry-After, a dropped create answer, a hang', async () => {
    const { remoteId } = await submitted(image());
    standIn.fault('status', { status: 429, retryAfter: 3 });
    const limited = await send(dashscopeAdapter.status(remoteId, image()));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(limited.json).toMatchObject({ code: 'Throttling.RateQuota' });

    standIn.fault('submit', 'drop-after-create');
    await expect(send(dashscopeAdapter.submit(image()))).rejects.toThrow();
    expect(standIn.jobs()).toHaveLength(2);

    standIn.fault('cancel', 'hang');
    await expect(send(dashscopeAdapter.cancel(remoteId, image())!, undefined, AbortSignal.timeout(300))).rejects.toThrow();
  });
});
