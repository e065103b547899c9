import { PNG } from 'pngjs';
import type { ProviderAnswer, ProviderJobStatus, ProviderRequest, RouteJob } from '../../application/providers/provider-adapter';
import { falAdapter } from '../../infrastructure/providers/fal/fal.adapter';
import { FalStandIn } from './fal.stand-in';

/**
 * The fal adapter's requests, sent over HTTP to the fal stand-in and read back by the
 * adapter: both follow fal's queue documentation, so they must agree.
 */
const MODEL = 'fal-ai/flux/dev';

let standIn: FalStandIn;
let clock: number;

async function send(request: ProviderRequest, key = standIn.key, signal?: AbortSignal): Promise<ProviderAnswer> {
  const url = request.url.startsWith('/') ? `${standIn.url}${request.url}` : request.url;
  const res = await fetch(url, {
    method: request.method,
    headers: { accept: 'application/json', ...falAdapter.auth(key), ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    ...(signal ? { signal } : {}),
  });
  const raw = Buffer.from(await res.arrayBuffer());
  let json: unknown = null;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, raw };
}

const job = (over: Partial<RouteJob> = {}): RouteJob => ({ taskId: 'task_01', capability: 'image.generate', supplierModel: MODEL, input: { prompt: 'Photo of a cute dog' }, ...over });

async function submitted(routeJob: RouteJob): Promise<string> {
  const answer = await send(falAdapter.submit(routeJob));
  expect(answer.status).toBe(200);
  return falAdapter.accepted(answer, routeJob).remoteId;
}

async function status(id: string, routeJob = job()): Promise<ProviderJobStatus> {
  const answer = await send(falAdapter.status(id, routeJob));
  expect(answer.status).toBe(200);
  return falAdapter.readStatus(answer, routeJob);
}

async function result(id: string, routeJob = job()): Promise<ProviderJobStatus> {
  const answer = await send(falAdapter.result!(id, routeJob));
  expect(answer.status).toBe(200);
  return falAdapter.readResult!(answer, routeJob);
}

function links(done: ProviderJobStatus): string[] {
  if (done.state !== 'succeeded') throw new Error(`expected succeeded, got ${JSON.stringify(done)}`);
  return done.files.map((f) => (f as { url: string }).url);
}

beforeEach(async () => {
  clock = 1_000_000;
  standIn = await new FalStandIn(undefined, [MODEL, 'fal-ai/kling-video/v2.1/master/text-to-video', 'fal-ai/any-llm', 'fal-ai/playai/tts/v3']).start();
  standIn.now = () => clock;
});
afterEach(() => standIn.stop());

describe('fal stand-in and adapter', () => {
  it("probes the Platform API's model read on the stand-in's origin; unknown is 404; a wrong key is 401 as fal answers it", async () => {
    const probe = falAdapter.probe(MODEL, 'image.generate', standIn.url);
    expect((await send(probe)).status).toBe(200);
    expect((await send(falAdapter.probe('fal-ai/nothing', 'image.generate', standIn.url))).status).toBe(404);
    const denied = await send(probe, 'wrong:key');
    expect(denied.status).toBe(401);
    expect(denied.json).toEqual({ detail: 'No user found for Key ID and Secret' });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v1/models?endpoint_id=${encodeURIComponent(MODEL)}`, auth: 'Key wrong:key' });
  });

  it('queues a request on the subpath, follows it on owner/app to COMPLETED, and reads the result', async () => {
    const id = await submitted(job());
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'POST', path: '/fal-ai/flux/dev' });
    expect(standIn.jobs()).toEqual([{ id, model: MODEL, input: { prompt: 'Photo of a cute dog' }, status: 'IN_QUEUE' }]);
    expect(await status(id)).toEqual({ state: 'queued' });
    expect(standIn.requests.at(-1)!.path).toBe(`/fal-ai/flux/requests/${id}/status`);
    standIn.run(id);
    expect(await status(id)).toEqual({ state: 'running' });
    standIn.succeed(id, [{ kind: 'png' }, { kind: 'jpeg' }]);
    expect(await status(id)).toEqual({ state: 'completed' });
    const [png, jpeg] = links(await result(id));
    expect(png!.startsWith(`${standIn.url}/files/`)).toBe(true);
    expect(PNG.sync.read(Buffer.from(await (await fetch(png!)).arrayBuffer())).width).toBe(2);
    expect((await fetch(jpeg!)).headers.get('content-type')).toBe('image/jpeg');
  });

  it('answers 404 for status asked on the subpath, as the queue documentation warns', async () => {
    const id = await submitted(job());
    const onSubpath = await send({ method: 'GET', url: `/fal-ai/flux/dev/requests/${id}/status` });
    expect(onSubpath.status).toBe(404);
  });

  it('reads video, audio and text results', async () => {
    const video = job({ supplierModel: 'fal-ai/kling-video/v2.1/master/text-to-video', capability: 'video.generate' });
    const v = await submitted(video);
    standIn.succeed(v);
    const [mp4] = links(await result(v, video));
    expect((await fetch(mp4!)).headers.get('content-type')).toBe('video/mp4');

    const speech = job({ supplierModel: 'fal-ai/playai/tts/v3', capability: 'audio.speech' });
    const s = await submitted(speech);
    standIn.succeed(s, [{ kind: 'wav' }]);
    const [wav] = links(await result(s, speech));
    expect(Buffer.from(await (await fetch(wav!)).arrayBuffer()).toString('latin1', 0, 4)).toBe('RIFF');

    const text = job({ supplierModel: 'fal-ai/any-llm', capability: 'text.generate', input: { prompt: 'sky?' } });
    const t = await submitted(text);
    standIn.succeed(t, [{ kind: 'text', text: 'The sky is blue.' }]);
    expect(await result(t, text)).toEqual({ state: 'succeeded', files: [], text: 'The sky is blue.' });
  });

  it('reports a failed request as COMPLETED with its error; the result is the error', async () => {
    const id = await submitted(job());
    standIn.fail(id, 'CUDA out of memory');
    expect(await status(id)).toEqual({ state: 'failed', detail: 'runner_server_error: CUDA out of memory' });
    const failed = await send(falAdapter.result!(id, job()));
    expect(failed.status).toBe(500);
    expect(failed.headers.get('x-fal-error-type')).toBe('runner_server_error');
  });

  it('cancels: requested (202) and then canceled in the status; a running request that ignores it finishes; a finished one is ALREADY_COMPLETED', async () => {
    const queued = await submitted(job());
    const asked = await send(falAdapter.cancel(queued, job())!);
    expect(asked.status).toBe(202);
    expect(falAdapter.readCancel(asked)).toBe('pending');
    expect(await status(queued)).toEqual({ state: 'canceled' });

    standIn.cancelInProgress = 'ignore';
    const running = await submitted(job());
    standIn.run(running);
    expect(falAdapter.readCancel(await send(falAdapter.cancel(running, job())!))).toBe('pending');
    expect(await status(running)).toEqual({ state: 'running' });
    standIn.succeed(running);
    expect(await status(running)).toEqual({ state: 'completed' });

    const late = await send(falAdapter.cancel(running, job())!);
    expect(late.status).toBe(400);
    expect(late.json).toEqual({ status: 'ALREADY_COMPLETED' });
  });

  it('answers scripted faults: 503 with Retry-After, a dropped submit (the request is queued), a hang', async () => {
    standIn.fault('submit', { status: 503, retryAfter: 2 });
    const busy = await send(falAdapter.submit(job()));
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('2');
    expect(busy.json).toMatchObject({ error_type: 'runner_scheduling_failure' });

    standIn.fault('submit', 'drop-after-create');
    await expect(send(falAdapter.submit(job()))).rejects.toThrow();
    expect(standIn.jobs()).toHaveLength(1);

    standIn.fault('result', 'hang');
    const id = standIn.jobs()[0]!.id;
    standIn.succeed(id);
    await expect(send(falAdapter.result!(id, job()), standIn.key, AbortSignal.timeout(200))).rejects.toThrow();
    expect(links(await result(id))).toHaveLength(1);
  });

  it('expires media links after linkLifetimeMs (none by default)', async () => {
    const id = await submitted(job());
    standIn.succeed(id);
    const [link] = links(await result(id));
    clock += 365 * 24 * 3600 * 1000;
    expect((await fetch(link!)).status).toBe(200);
    standIn.linkLifetimeMs = 60_000;
    expect((await fetch(link!)).status).toBe(404);
  });
});
