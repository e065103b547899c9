import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import type { ProviderAnswer, ProviderRequest, RouteJob } from '../../application/providers/provider-adapter';
import { replicateAdapter } from '../../infrastructure/providers/replicate/replicate.adapter';
import { ReplicateStandIn } from './replicate.stand-in';

/**
 * The Replicate adapter's requests, sent over HTTP to the Replicate stand-in and read back by
 * the adapter: both follow Replicate's documentation, so they must agree.
 */
const MODEL = 'black-forest-labs/flux-schnell';
const VERSIONED = 'replicate/hello-world:5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa';
const SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

let standIn: ReplicateStandIn;
let clock: number;

async function send(request: ProviderRequest, token = standIn.token, signal?: AbortSignal): Promise<ProviderAnswer> {
  const url = request.url.startsWith('/') ? `${standIn.url}${request.url}` : request.url;
  const res = await fetch(url, {
    method: request.method,
    headers: { accept: 'application/json', ...replicateAdapter.auth(token), ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
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

const job = (over: Partial<RouteJob> = {}): RouteJob => ({ taskId: 'task_01', capability: 'image.generate', supplierModel: MODEL, input: { prompt: 'a red fox' }, ...over });

async function submitted(routeJob: RouteJob): Promise<string> {
  const answer = await send(replicateAdapter.submit(routeJob));
  expect(answer.status).toBe(201);
  const accepted = replicateAdapter.accepted(answer, routeJob);
  expect(accepted.status).toEqual({ state: 'queued' });
  return accepted.remoteId;
}

const status = async (id: string, routeJob = job()) => {
  const answer = await send(replicateAdapter.status(id, routeJob));
  expect(answer.status).toBe(200);
  return replicateAdapter.readStatus(answer, routeJob);
};

beforeEach(async () => {
  clock = 1_000_000;
  standIn = await new ReplicateStandIn(undefined, [MODEL, VERSIONED]).start();
  standIn.now = () => clock;
});
afterEach(() => standIn.stop());

describe('Replicate stand-in and adapter', () => {
  it('probes a known model and a pinned version; an unknown model is 404; a wrong token is 401 as documented', async () => {
    expect((await send(replicateAdapter.probe(MODEL, 'image.generate'))).status).toBe(200);
    expect((await send(replicateAdapter.probe(VERSIONED, 'text.generate'))).status).toBe(200);
    expect((await send(replicateAdapter.probe('replicate/hello-world:0000', 'text.generate'))).status).toBe(404);
    expect((await send(replicateAdapter.probe('acme/nothing', 'image.generate'))).status).toBe(404);
    const denied = await send(replicateAdapter.probe(MODEL, 'image.generate'), 'r8_wrong');
    expect(denied.status).toBe(401);
    expect(denied.json).toEqual({ title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v1/models/${MODEL}`, auth: 'Bearer r8_wrong' });
  });

  it('runs a prediction from starting to succeeded, and serves its PNG until the link expires', async () => {
    const id = await submitted(job());
    expect(standIn.jobs()).toEqual([{ id, model: MODEL, input: { prompt: 'a red fox' }, status: 'starting' }]);
    expect(await status(id)).toEqual({ state: 'queued' });
    standIn.run(id);
    expect(await status(id)).toEqual({ state: 'running' });
    standIn.succeed(id, [{ kind: 'png' }]);
    const done = await status(id);
    if (done.state !== 'succeeded') throw new Error(`expected succeeded, got ${done.state}`);
    expect(done.files).toHaveLength(1);
    const link = (done.files[0] as { url: string }).url;
    expect(link.startsWith(`${standIn.url}/pbxt/${id}/`)).toBe(true);
    const file = await fetch(link);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(PNG.sync.read(Buffer.from(await file.arrayBuffer())).width).toBe(2);

    clock += standIn.linkLifetimeMs; // an hour later: files and data are removed
    expect((await fetch(link)).status).toBe(404);
    expect(await status(id)).toMatchObject({ state: 'failed' });
  });

  it('creates a pinned version on /v1/predictions and reads a language model’s pieces as text', async () => {
    const text = job({ supplierModel: VERSIONED, capability: 'text.generate', input: { text: 'Alice' } });
    const id = await submitted(text);
    expect(standIn.jobs()[0]).toMatchObject({ id, model: 'replicate/hello-world' });
    standIn.succeed(id, [{ kind: 'text', text: 'hello Alice, how are you?' }]);
    expect(await status(id, text)).toEqual({ state: 'succeeded', files: [], text: 'hello Alice, how are you?' });
  });

  it('refuses an unknown version with 422 and an unknown model with 404', async () => {
    const unknownVersion = await send(replicateAdapter.submit(job({ supplierModel: 'replicate/hello-world:ffff' })));
    expect(unknownVersion.status).toBe(422);
    expect(unknownVersion.json).toMatchObject({ title: 'Invalid version or not permitted' });
    expect((await send(replicateAdapter.submit(job({ supplierModel: 'acme/nothing' })))).status).toBe(404);
    expect(standIn.jobs()).toEqual([]);
  });

  it('answers a video as one link (not a list), streamed at its full size', async () => {
    const id = await submitted(job({ supplierModel: MODEL, capability: 'video.generate' }));
    standIn.succeed(id, [{ kind: 'mp4', bytes: 16 * 1024 * 1024 }]);
    expect(typeof ((await send(replicateAdapter.status(id, job()))).json as { output: unknown }).output).toBe('string');
    const done = await status(id);
    if (done.state !== 'succeeded') throw new Error(`expected succeeded, got ${done.state}`);
    const res = await fetch((done.files[0] as { url: string }).url);
    expect(res.headers.get('content-length')).toBe(String(16 * 1024 * 1024));
    let size = 0;
    let head: Buffer | undefined;
    for await (const chunk of res.body!) {
      head ??= Buffer.from(chunk);
      size += chunk.length;
    }
    expect(size).toBe(16 * 1024 * 1024);
    expect(head!.toString('latin1', 4, 8)).toBe('ftyp');
  });

  it('fails a prediction with the error as the operator detail', async () => {
    const id = await submitted(job());
    standIn.fail(id, 'CUDA out of memory');
    expect(await status(id)).toEqual({ state: 'failed', detail: 'CUDA out of memory' });
  });

  it('cancels a starting prediction; a finished one answers unchanged (refused)', async () => {
    const id = await submitted(job());
    const canceled = await send(replicateAdapter.cancel(id, job())!);
    expect(canceled.status).toBe(200);
    expect(replicateAdapter.readCancel(canceled)).toBe('canceled');
    expect(await status(id)).toEqual({ state: 'canceled' });

    const other = await submitted(job());
    standIn.succeed(other);
    const late = await send(replicateAdapter.cancel(other, job())!);
    expect(replicateAdapter.readCancel(late)).toBe('refused');
    expect((await send(replicateAdapter.cancel('nosuchprediction', job())!)).status).toBe(404);
  });

  it('answers scripted faults: 429 with Retry-After and the documented body, a dropped create, a hang', async () => {
    standIn.fault('submit', { status: 429, retryAfter: 3 });
    const throttled = await send(replicateAdapter.submit(job()));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('3');
    expect(throttled.json).toEqual({ detail: 'Request was throttled. Expected available in 3 seconds.' });
    expect(standIn.jobs()).toHaveLength(0);

    standIn.fault('submit', 'drop-after-create');
    await expect(send(replicateAdapter.submit(job()))).rejects.toThrow();
    expect(standIn.jobs()).toHaveLength(1); // the prediction exists: a resend would make a second one

    standIn.fault('status', 'hang');
    await expect(send(replicateAdapter.status(standIn.jobs()[0]!.id, job()), standIn.token, AbortSignal.timeout(200))).rejects.toThrow();
    expect(await status(standIn.jobs()[0]!.id)).toEqual({ state: 'queued' }); // the next status request is answered
  });
});

describe('Replicate stand-in webhooks and the adapter’s verification', () => {
  let receiver: Server;
  const received: { headers: Headers; body: Buffer; verified: boolean }[] = [];

  beforeEach(async () => {
    received.length = 0;
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = new Headers(Object.entries(req.headers).map(([k, v]) => [k, String(v)] as [string, string]));
        const body = Buffer.concat(chunks);
        const verified = replicateAdapter.webhooks!.verify(headers, body, SECRET, Math.floor(Date.now() / 1000));
        received.push({ headers, body, verified });
        res.writeHead(verified ? 204 : 401).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  });
  afterEach(() => new Promise<void>((r) => receiver.close(() => r())));

  const hook = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/supplier-callbacks/task_01`;

  it('asks for the completed webhook, sends it signed, and the adapter verifies and reads it', async () => {
    const id = await submitted(job({ webhookUrl: hook() }));
    expect(standIn.jobs()[0]!.webhook).toBe(hook());
    standIn.succeed(id, [{ kind: 'webp' }]);
    expect(await standIn.sendWebhook(id, SECRET)).toBe(204);
    const reading = replicateAdapter.webhooks!.read(JSON.parse(received[0]!.body.toString()));
    expect(reading.remoteId).toBe(id);
    expect(reading.status).toMatchObject({ state: 'succeeded', files: [{ url: expect.stringContaining('/out-0.webp') }] });
  });

  it('refuses a tampered webhook and an old one', async () => {
    const id = await submitted(job({ webhookUrl: hook() }));
    standIn.succeed(id);
    expect(await standIn.sendWebhook(id, SECRET, { tamper: true })).toBe(401);
    expect(await standIn.sendWebhook(id, SECRET, { timestampOffsetS: -301 })).toBe(401);
    expect(await standIn.sendWebhook(id, 'whsec_' + Buffer.from('not the secret').toString('base64'))).toBe(401);
    expect(received.map((r) => r.verified)).toEqual([false, false, false]);
  });

  it('replays the last message exactly (same id, timestamp and signature)', async () => {
    const id = await submitted(job({ webhookUrl: hook() }));
    standIn.fail(id, 'boom');
    expect(await standIn.sendWebhook(id, SECRET)).toBe(204);
    expect(await standIn.sendWebhook(id, SECRET, { replay: true })).toBe(204);
    const [first, again] = received;
    for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(again!.headers.get(h)).toBe(first!.headers.get(h));
    expect(again!.body.equals(first!.body)).toBe(true);
    expect(replicateAdapter.webhooks!.read(JSON.parse(again!.body.toString())).status).toEqual({ state: 'failed', detail: 'boom' });
  });
});
