import type { ProviderAnswer, ProviderJobStatus, ProviderRequest, RouteJob } from '../../application/providers/provider-adapter';
import { arkAdapter } from '../../infrastructure/providers/ark/ark.adapter';
import { ArkStandIn } from './ark.stand-in';

/**
 * The Ark adapter's requests, sent over HTTP to the Ark stand-in and read back by the
 * adapter: both follow the Ark API reference, so they must agree.
 */
const SEEDANCE = 'doubao-seedance-1-0-pro-250528';
const SEEDREAM = 'doubao-seedream-3-0-t2i-250415';

let standIn: ArkStandIn;
let clock: number;

async function send(request: ProviderRequest, key = standIn.key, signal?: AbortSignal): Promise<ProviderAnswer> {
  const res = await fetch(`${standIn.url}${request.url}`, {
    method: request.method,
    headers: { accept: 'application/json', ...arkAdapter.auth(key), ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    ...(signal ? { signal } : {}),
  });
  const raw = Buffer.from(await res.arrayBuffer());
  const json: unknown = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(raw.toString('utf8')) : null;
  return { status: res.status, headers: res.headers, json, raw };
}

const video = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01JVIDEO',
  capability: 'video.generate',
  supplierModel: SEEDANCE,
  input: { content: [{ type: 'text', text: 'waves --resolution 720p --duration 5' }, { type: 'image_url', image_url: { url: 'https://gensvc.example/v1/assets/ast_1/content?sig=x' } }] },
  ...over,
});
const image = (input: Record<string, unknown> = { prompt: '鱼眼镜头，一只猫咪的头部', size: '1024x1024', response_format: 'url' }): RouteJob => ({
  taskId: 'task_01JIMAGE',
  capability: 'image.generate',
  supplierModel: SEEDREAM,
  input,
});

async function created(job: RouteJob): Promise<string> {
  const answer = await send(arkAdapter.submit(job));
  expect(answer.status).toBe(200);
  return arkAdapter.accepted(answer, job).remoteId;
}

async function status(id: string, job = video()): Promise<ProviderJobStatus> {
  const answer = await send(arkAdapter.status(id, job));
  expect(answer.status).toBe(200);
  return arkAdapter.readStatus(answer, job);
}

function links(done: ProviderJobStatus | undefined): string[] {
  if (done?.state !== 'succeeded') throw new Error(`expected succeeded, got ${JSON.stringify(done)}`);
  return done.files.map((f) => (f as { url: string }).url);
}

beforeEach(async () => {
  clock = 1_750_000_000_000;
  standIn = await new ArkStandIn(undefined, [SEEDANCE, SEEDREAM]).start();
  standIn.now = () => clock;
});
afterEach(() => standIn.stop());

describe('Ark stand-in and adapter', () => {
  it('probes with the task list (a filter: 200 for any model); a wrong key is 401 AuthenticationError', async () => {
    const probe = await send(arkAdapter.probe(SEEDANCE, 'video.generate'));
    expect(probe.status).toBe(200);
    expect(probe.json).toEqual({ total: 0, items: [] });
    expect((await send(arkAdapter.probe('doubao-nothing', 'video.generate'))).status).toBe(200);
    const denied = await send(arkAdapter.probe(SEEDANCE, 'video.generate'), 'wrong');
    expect(denied.status).toBe(401);
    expect(denied.json).toMatchObject({ error: { code: 'AuthenticationError', type: 'Unauthorized' } });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'GET', path: `/api/v3/contents/generations/tasks?page_num=1&page_size=1&filter.model=${SEEDANCE}`, auth: 'Bearer wrong' });
  });

  it('creates a video task and follows it queued → running → succeeded with an MP4 that expires after a day', async () => {
    const id = await created(video());
    expect(id).toMatch(/^cgt-\d{14}-[0-9a-f]{5}$/);
    expect(standIn.jobs()).toEqual([{ id, model: SEEDANCE, input: video().input, status: 'queued' }]);
    expect(await status(id)).toEqual({ state: 'queued' });
    standIn.run(id);
    expect(await status(id)).toEqual({ state: 'running' });
    standIn.succeed(id);
    const [url] = links(await status(id));
    expect(new URL(url!).origin).toBe(standIn.url);
    const bytes = Buffer.from(await (await fetch(url!)).arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const listed = await send(arkAdapter.probe(SEEDANCE, 'video.generate'));
    expect(listed.json).toMatchObject({ total: 1, items: [{ id, status: 'succeeded' }] });
    clock += standIn.linkLifetimeMs;
    expect((await fetch(url!)).status).toBe(404);
  });

  it('reads the last frame when the test gives one, and a failed task with its error', async () => {
    const id = await created(video());
    standIn.succeed(id, [{ kind: 'mp4' }, { kind: 'png' }]);
    expect(links(await status(id))).toHaveLength(2);
    const failing = await created(video());
    standIn.fail(failing, 'The request failed because the output video may contain sensitive information.');
    expect(await status(failing)).toEqual({ state: 'failed', detail: 'InternalServiceError: The request failed because the output video may contain sensitive information.' });
  });

  it('cancels a queued task with DELETE; a running one is refused and goes on', async () => {
    const id = await created(video());
    const canceled = await send(arkAdapter.cancel(id, video())!);
    expect(canceled.status).toBe(200);
    expect(arkAdapter.readCancel(canceled)).toBe('canceled');
    expect(await status(id)).toEqual({ state: 'canceled' });
    const running = await created(video());
    standIn.run(running);
    const refused = await send(arkAdapter.cancel(running, video())!);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { type: 'BadRequest' } });
    expect(await status(running)).toEqual({ state: 'running' });
  });

  it('refuses an unknown model 404 InvalidEndpointOrModel.NotFound, and a task without content', async () => {
    const unknown = await send(arkAdapter.submit(video({ supplierModel: 'doubao-nothing' })));
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ error: { code: 'InvalidEndpointOrModel.NotFound' } });
    const empty = await send(arkAdapter.submit(video({ input: {} })));
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({ error: { code: 'MissingParameter', param: 'content' } });
  });

  it('answers Seedream images at once: a JPEG link, or base64 when asked', async () => {
    const answer = await send(arkAdapter.submit(image()));
    const accepted = arkAdapter.accepted(answer, image());
    expect(accepted.remoteId).toBe(answer.headers.get('x-request-id'));
    const [url] = links(accepted.status);
    const bytes = Buffer.from(await (await fetch(url!)).arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const b64 = image({ prompt: 'p', response_format: 'b64_json' });
    const inline = arkAdapter.accepted(await send(arkAdapter.submit(b64)), b64).status;
    expect(inline).toMatchObject({ state: 'succeeded', files: [{ name: 'image-1.jpg' }] });
  });

  it('holds an image generation until the test settles it, and answers a failure 500', async () => {
    standIn.sync.hold = true;
    const pending = send(arkAdapter.submit(image()));
    const deadline = Date.now() + 5_000;
    let held: string | undefined;
    while (!(held = standIn.jobs().find((j) => j.status === 'running')?.id)) {
      if (Date.now() > deadline) throw new Error('no call was held');
      await new Promise((r) => setImmediate(r));
    }
    standIn.succeed(held, [{ kind: 'png' }]);
    expect(arkAdapter.accepted(await pending, image()).status).toMatchObject({ state: 'succeeded' });
    standIn.failNext();
    const failed = await send(arkAdapter.submit(image()));
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ error: { code: 'InternalServiceError' } });
  });

  it('plays scripted faults: 429 with Retry-After, a dropped create answer, a hang', async () => {
    standIn.fault('submit', { status: 429, retryAfter: 5 });
    const limited = await send(arkAdapter.submit(video()));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('5');
    expect(limited.json).toMatchObject({ error: { code: 'RateLimitExceeded.EndpointRPMExceeded', type: 'TooManyRequests' } });

    standIn.fault('submit', 'drop-after-create');
    await expect(send(arkAdapter.submit(video()))).rejects.toThrow();
    expect(standIn.jobs()).toMatchObject([{ model: SEEDANCE, status: 'queued' }]);

    standIn.fault('status', 'hang');
    await expect(send(arkAdapter.status(standIn.jobs()[0]!.id, video()), undefined, AbortSignal.timeout(300))).rejects.toThrow();
  });
});
