import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  Gensvc,
  NetworkError,
  NotFoundError,
  QuoteAboveLimitError,
  RateLimitError,
  ServerError,
  TaskCanceledError,
  TaskFailedError,
  TimeoutError,
  ValidationError,
  readEvents,
  uploadKey,
} from '../src/index';

/**
 * A small HTTP server that plays the API's part in each test: a real socket, so the client's
 * own fetch, headers, retries and dropped connections are exercised, not a stand-in fetch.
 */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}
type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer, n: number) => void;

let server: Server;
let baseUrl: string;
let handler: Handler;
let seen: Seen[];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, body, seen.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen = [];
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', 'X-Request-Id': 'req_test', ...headers });
  res.end(JSON.stringify(body));
};
const apiErr = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) =>
  json(res, status, { error: { code, message: `${code} happened`, request_id: `req_${code.toLowerCase()}` } }, headers);
const client = (o: Partial<ConstructorParameters<typeof Gensvc>[0]> = {}) => new Gensvc({ baseUrl, apiKey: 'gsk_test', retryDelayMs: 5, ...o });
const task = (id: string, status: string) => ({ id, status, cancellation: { status: 'none' }, settlement_status: 'reserved' });
/** Server-sent task events; the stream stays open unless `end`. */
const sse = (res: ServerResponse, events: [string, unknown][], end = true) => {
  if (!res.headersSent) res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  for (const [id, t] of events) res.write(`id: ${id}\nevent: task\ndata: ${JSON.stringify(t)}\n\n`);
  if (end) res.end();
};

describe('retries', () => {
  it('re-sends tasks.create after a dropped connection and a 503 with the same Idempotency-Key and body', async () => {
    handler = (req, res, _body, n) => {
      if (n === 1) return req.socket.destroy(); // the connection breaks before an answer
      if (n === 2) return apiErr(res, 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '0' });
      json(res, 202, task('task_1', 'queued'));
    };
    const created = await client().tasks.create({ quote_id: 'qt_1', title: 't' });
    expect(created.id).toBe('task_1');
    expect(seen).toHaveLength(3);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^gensvc-sdk-[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(new Set(seen.map((s) => s.body.toString())).size).toBe(1);
    expect(seen.every((s) => s.headers.authorization === 'Bearer gsk_test')).toBe(true);
  });

  it('keeps a given key, and a new call gets a new generated key', async () => {
    handler = (_req, res) => json(res, 202, task('task_1', 'queued'));
    await client().tasks.create({ quote_id: 'qt_1' }, { idempotencyKey: 'my-key-0001' });
    await client().tasks.create({ quote_id: 'qt_1' });
    await client().tasks.create({ quote_id: 'qt_1' });
    expect(seen[0].headers['idempotency-key']).toBe('my-key-0001');
    expect(seen[1].headers['idempotency-key']).not.toBe(seen[2].headers['idempotency-key']);
  });

  it('re-sends uploads.prepare with the same idempotency_key in the body', async () => {
    handler = (req, res, _b, n) => (n < 3 ? req.socket.destroy() : json(res, 200, { upload_id: 'up_1', status: 'prepared' }));
    const body = { name: 'a.txt', mime: 'text/plain', size: 1, checksum: 'a'.repeat(64), idempotency_key: 'file-key-1' };
    await client().uploads.prepare(body);
    expect(seen.map((s) => JSON.parse(s.body.toString()).idempotency_key)).toEqual(['file-key-1', 'file-key-1', 'file-key-1']);
  });

  it('waits Retry-After on 429 RATE_LIMITED, and stops after maxRetries', async () => {
    handler = (_req, res) => apiErr(res, 429, 'RATE_LIMITED', { 'Retry-After': '0' });
    const err = await client({ maxRetries: 3 }).wallet.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 0 });
    expect(seen).toHaveLength(4);
  });

  it('never repeats a POST that carries no idempotency key (uploads.import)', async () => {
    handler = (req) => req.socket.destroy();
    await expect(client().uploads.import({ url: 'https://example.com/a.png', name: 'a.png' })).rejects.toBeInstanceOf(NetworkError);
    expect(seen).toHaveLength(1);
  });

  it('retries a 429 even for a POST without a key (it took no effect), and a connection that was never opened', async () => {
    handler = (_req, res, _b, n) => (n === 1 ? apiErr(res, 429, 'RATE_LIMITED', { 'Retry-After': '0' }) : json(res, 201, { id: 'ast_1' }));
    await client().uploads.import({ url: 'https://example.com/a.png', name: 'a.png' });
    expect(seen).toHaveLength(2);
    // a port nothing listens on: the connection is refused before anything is sent
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const attempts: string[] = [];
    const counting = new Gensvc({
      baseUrl: `http://127.0.0.1:${port}`,
      retryDelayMs: 1,
      fetch: (async (...a: Parameters<typeof fetch>) => {
        attempts.push('try');
        return fetch(...a);
      }) as typeof fetch,
    });
    await expect(counting.uploads.import({ url: 'https://example.com/a.png', name: 'a.png' })).rejects.toBeInstanceOf(NetworkError);
    expect(attempts).toHaveLength(4); // the first try and 3 retries: the same defaults as the Python client
  });

  it('throws a 429 whose Retry-After is over 60 s at once (the caller decides)', async () => {
    handler = (_req, res) => apiErr(res, 429, 'RATE_LIMITED', { 'Retry-After': '3600' });
    await expect(client().wallet.get()).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfter: 3600 });
    expect(seen).toHaveLength(1);
  });

  it('does not retry a 4xx answer', async () => {
    handler = (_req, res) => apiErr(res, 409, 'QUOTE_ALREADY_USED');
    await expect(client().tasks.create({ quote_id: 'qt_1' })).rejects.toBeInstanceOf(ConflictError);
    expect(seen).toHaveLength(1);
  });
});

describe('errors', () => {
  it.each([
    [400, 'VALIDATION_ERROR', ValidationError],
    [401, 'UNAUTHORIZED', AuthenticationError],
    [404, 'NOT_FOUND', NotFoundError],
    [409, 'IDEMPOTENCY_CONFLICT', ConflictError],
    [500, 'INTERNAL', ServerError],
  ])('maps %i %s to its class with code, status and request_id', async (status, code, Kind) => {
    handler = (_req, res) => apiErr(res, status, code);
    const err = (await client({ maxRetries: 0 }).tasks.get('task_x').catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(Kind);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(status);
    expect(err.code).toBe(code);
    expect(err.message).toBe(`${code} happened`);
    expect(err.request_id).toBe(`req_${code.toLowerCase()}`);
    expect(err.requestId).toBe(err.request_id);
    expect(JSON.parse(JSON.stringify(err))).toEqual({ error: { code, message: `${code} happened`, request_id: `req_${code.toLowerCase()}` } });
  });

  it('names a non-JSON error by its status and keeps the X-Request-Id header', async () => {
    handler = (_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html', 'X-Request-Id': 'req_proxy' });
      res.end('<html>bad gateway</html>');
    };
    const err = (await client({ maxRetries: 0 }).wallet.get().catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 502, code: 'HTTP_502', requestId: 'req_proxy' });
  });

  it('sends no Authorization header to the catalogue, and a function credential otherwise', async () => {
    handler = (_req, res) => json(res, 200, { data: [] });
    let n = 0;
    const c = client({ apiKey: () => `tok_${++n}` });
    await c.models.list({ modality: 'image' });
    await c.wallet.get();
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(seen[0].url).toBe('/v1/models?modality=image');
    expect(seen[1].headers.authorization).toBe('Bearer tok_1');
  });
});

describe('tasks.wait and pages', () => {
  it('follows the event stream until the task is finished and settled; a broken stream is followed again from its last id', async () => {
    const settled = { ...task('task_1', 'succeeded'), settlement_status: 'settled', charged_amount: '0.020000' };
    handler = (req, res, _b, n) => {
      expect(req.url).toBe('/v1/tasks/task_1/events');
      if (n === 1) {
        // the first connection breaks after one state, a comment and half an event
        sse(res, [['1', task('task_1', 'queued')]], false);
        res.write(': keep-alive\n\nid: 2\nevent: ta');
        return setTimeout(() => req.socket.destroy(), 20);
      }
      sse(res, [
        ['2', task('task_1', 'running')],
        ['3', { ...task('task_1', 'succeeded') }],
        ['4', settled],
      ]);
    };
    const updates: string[] = [];
    const done = await client().tasks.wait('task_1', { intervalMs: 10, onUpdate: (t) => updates.push(`${t.status}/${t.settlement_status}`) });
    expect(done).toEqual(settled);
    expect(updates).toEqual(['queued/reserved', 'running/reserved', 'succeeded/reserved', 'succeeded/settled']);
    expect(seen.map((r) => [r.headers.accept, r.headers['last-event-id']])).toEqual([
      ['text/event-stream', undefined],
      ['text/event-stream', '1'],
    ]);
  });

  it('reads the task when the stream ends without the finished state (204: the caller had it)', async () => {
    handler = (req, res) => {
      if (req.url!.endsWith('/events')) {
        res.writeHead(204);
        return res.end();
      }
      json(res, 200, { ...task('task_1', 'failed'), settlement_status: 'released' });
    };
    expect(await client().tasks.wait('task_1')).toMatchObject({ status: 'failed', settlement_status: 'released' });
    expect(seen.map((r) => r.url)).toEqual(['/v1/tasks/task_1/events', '/v1/tasks/task_1']);
  });

  it('gives up with TimeoutError carrying the task as last seen', async () => {
    handler = (_req, res) => sse(res, [['1', task('task_1', 'running')]], false);
    const err = (await client().tasks.wait('task_1', { timeoutMs: 100 }).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.task).toMatchObject({ id: 'task_1', status: 'running' });
  });

  it('tasks.get with wait asks the server to answer once the task is finished (Prefer: wait)', async () => {
    handler = (_req, res) => json(res, 200, task('task_1', 'running'));
    await client().tasks.get('task_1', { wait: 30 });
    await client().tasks.get('task_1');
    expect(seen.map((r) => r.headers.prefer)).toEqual(['wait=30', undefined]);
  });

  it('lists assets page by page with their source', async () => {
    handler = (req, res) => {
      const page = Number(new URL(req.url!, baseUrl).searchParams.get('page') ?? 1);
      json(res, 200, { data: [{ id: `ast_${page}`, source: 'upload', task_id: null }], page, limit: 1, has_more: page < 2 });
    };
    expect((await client().assets.list({ q: 'fox', limit: 1 })).data[0]).toMatchObject({ id: 'ast_1', source: 'upload' });
    const ids: string[] = [];
    for await (const a of client().assets.iterate({ limit: 1 })) ids.push(a.id);
    expect(ids).toEqual(['ast_1', 'ast_2']);
    expect(seen.map((r) => r.url)).toEqual(['/v1/assets?q=fox&limit=1', '/v1/assets?limit=1&page=1', '/v1/assets?limit=1&page=2']);
  });

  it('iterates every page until has_more is false', async () => {
    handler = (req, res) => {
      const page = Number(new URL(req.url!, baseUrl).searchParams.get('page'));
      json(res, 200, { data: [task(`task_${page}a`, 'queued'), task(`task_${page}b`, 'queued')], page, limit: 2, has_more: page < 3 });
    };
    const ids: string[] = [];
    for await (const t of client().tasks.iterate({ limit: 2, status: 'queued' })) ids.push(t.id);
    expect(ids).toEqual(['task_1a', 'task_1b', 'task_2a', 'task_2b', 'task_3a', 'task_3b']);
    expect(seen.map((s) => s.url)).toEqual(['/v1/tasks?limit=2&status=queued&page=1', '/v1/tasks?limit=2&status=queued&page=2', '/v1/tasks?limit=2&status=queued&page=3']);
  });
});

describe('run', () => {
  jest.setTimeout(60_000); // the first MIME detection loads file-type (transformed once by Jest)
  const quoteOf = (maxAmount: string) => ({ quote_id: 'qt_1', estimated_amount: maxAmount, max_amount: maxAmount, currency: 'CNY' });
  const finished = (id: string, status = 'succeeded', extra: Record<string, unknown> = {}) => ({
    ...task(id, status),
    model: 'writer',
    capability: 'text.generate',
    settlement_status: status === 'succeeded' ? 'settled' : 'released',
    ...extra,
  });

  /** The API of one run: a model with `capabilities`, a quote of `maxAmount`, a task ending `end`; `create` may answer otherwise. */
  function runServer(o: { capabilities?: string[]; maxAmount?: string; end?: Record<string, unknown>; create?: (res: ServerResponse) => void } = {}) {
    handler = (req, res, body) => {
      const url = new URL(req.url!, baseUrl);
      if (url.pathname === '/v1/models/writer') return json(res, 200, { id: 'writer', capabilities: o.capabilities ?? ['text.generate'] });
      if (url.pathname === '/v1/quotes') return json(res, 200, quoteOf(o.maxAmount ?? '0.020000'));
      if (url.pathname === '/v1/tasks') return o.create ? o.create(res) : json(res, 202, { ...task('task_1', 'queued'), model: 'writer', capability: 'text.generate' });
      if (url.pathname === '/v1/uploads/prepare') {
        const b = JSON.parse(body.toString());
        return json(res, 200, { upload_id: 'up_1', status: 'completed', asset_id: `ast_${b.name}`, asset: { id: `ast_${b.name}` } });
      }
      if (/^\/v1\/tasks\/[^/]+\/events$/.test(url.pathname)) return sse(res, [['1', task(url.pathname.split('/')[3], 'running')], ['2', o.end ?? finished(url.pathname.split('/')[3])]]);
      if (url.pathname === '/v1/tasks/task_9') return json(res, 200, { ...task('task_9', 'running'), model: 'writer', capability: 'text.generate' });
      apiErr(res, 404, 'NOT_FOUND');
    };
  }
  const paths = () => seen.map((r) => `${r.method} ${new URL(r.url, baseUrl).pathname}`);

  it('uploads the files, quotes with the model\'s only capability, shows the quote, creates under one key and follows the task to its end', async () => {
    runServer();
    const order: string[] = [];
    const done = await client().run(
      'writer',
      { prompt: 'hi', asset_ids: ['ast_given'] },
      {
        files: [new TextEncoder().encode('hello\n'), { data: new TextEncoder().encode('{"a":1}'), name: 'notes.json' }],
        options: { tone: 'dry' },
        title: 'one call',
        maxAmount: '0.02',
        onQuote: (q) => order.push(`quote ${q.max_amount} after ${seen.length} requests`),
        onCreated: (t, resumed) => order.push(`created ${t.id} ${resumed}`),
      },
    );
    expect(done).toMatchObject({ id: 'task_1', status: 'succeeded', settlement_status: 'settled' });
    expect(paths()).toEqual(['GET /v1/models/writer', 'POST /v1/uploads/prepare', 'POST /v1/uploads/prepare', 'POST /v1/quotes', 'POST /v1/tasks', 'GET /v1/tasks/task_1/events']);
    expect(JSON.parse(seen[3].body.toString())).toEqual({
      model: 'writer',
      capability: 'text.generate',
      input: { prompt: 'hi', asset_ids: ['ast_given', 'ast_file-1', 'ast_notes.json'] },
      options: { tone: 'dry' },
    });
    expect(JSON.parse(seen[4].body.toString())).toEqual({ quote_id: 'qt_1', title: 'one call' });
    expect(seen[4].headers['idempotency-key']).toMatch(/^gensvc-run-/);
    expect(order).toEqual(['quote 0.020000 after 4 requests', 'created task_1 false']);
  });

  it('refuses a quote above maxAmount before anything is reserved', async () => {
    runServer({ maxAmount: '0.500000' });
    const err = (await client().run('writer', { prompt: 'hi' }, { capability: 'text.generate', maxAmount: '0.1' }).catch((e: unknown) => e)) as QuoteAboveLimitError;
    expect(err).toBeInstanceOf(QuoteAboveLimitError);
    expect(err).toMatchObject({ code: 'QUOTE_ABOVE_LIMIT', limit: '0.1', quote: { max_amount: '0.500000' } });
    expect(paths()).toEqual(['POST /v1/quotes']);
  });

  it('asks for the capability when the model has several, before any quote', async () => {
    runServer({ capabilities: ['image.generate', 'image.edit'] });
    await expect(client().run('writer', { prompt: 'hi' })).rejects.toThrow(/image.generate, image.edit: pass capability/);
    expect(paths()).toEqual(['GET /v1/models/writer']);
  });

  it('throws TaskFailedError and TaskCanceledError with the task', async () => {
    runServer({ end: finished('task_1', 'failed', { error: { code: 'SUPPLIER_ERROR', message: 'the supplier failed' } }) });
    const failed = (await client().run('writer', {}).catch((e: unknown) => e)) as TaskFailedError;
    expect(failed).toBeInstanceOf(TaskFailedError);
    expect(failed).toMatchObject({ code: 'SUPPLIER_ERROR', task: { id: 'task_1', status: 'failed' } });
    runServer({ end: finished('task_1', 'canceled') });
    expect(await client().run('writer', {}).catch((e: unknown) => e)).toBeInstanceOf(TaskCanceledError);
  });

  it('follows the task its idempotency key created when run again with that key (409 names it in Location)', async () => {
    const conflict = (res: ServerResponse) => apiErr(res, 409, 'IDEMPOTENCY_CONFLICT', { Location: '/v1/tasks/task_9' });
    runServer({ create: conflict });
    const resumed: boolean[] = [];
    const done = await client().run('writer', { prompt: 'hi' }, { idempotencyKey: 'my-key-0001', onCreated: (_t, r) => resumed.push(r) });
    expect(done).toMatchObject({ id: 'task_9', status: 'succeeded' });
    expect(resumed).toEqual([true]);
    expect(paths().slice(-3)).toEqual(['POST /v1/tasks', 'GET /v1/tasks/task_9', 'GET /v1/tasks/task_9/events']);
    expect(seen.find((r) => r.method === 'POST' && r.url === '/v1/tasks')!.headers['idempotency-key']).toBe('my-key-0001');

    // a key that created a task of another model is a mistake: the conflict is thrown as it came
    runServer({ create: conflict });
    const other = await client().run('writer', {}, { capability: 'text.other', idempotencyKey: 'my-key-0001' }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(ConflictError);
    expect(other).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });
});

describe('readEvents', () => {
  it('parses events with ids, names, several data lines and any line ending; skips comments', async () => {
    const text = ': hello\r\nid: 7\r\nevent: task\r\ndata: {"a":\r\ndata: 1}\r\n\r\nretry: 10\rdata: plain\r\r\ndata: unfinished';
    const bytes = new TextEncoder().encode(text);
    // delivered in 3-byte pieces, so lines and CR LF pairs are split across chunks
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.subarray(i, i + 3));
        c.close();
      },
    });
    const events = [];
    for await (const e of readEvents(body)) events.push(e);
    expect(events).toEqual([
      { id: '7', event: 'task', data: '{"a":\n1}' },
      { event: 'message', data: 'plain' },
    ]);
  });
});

describe('uploads.upload', () => {
  jest.setTimeout(60_000); // the first MIME detection loads file-type (transformed once by Jest)
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  /** prepare → PUT → complete, with `putFails` first PUTs cut off mid-way. */
  function uploadServer(putFails: number, prepareStatus = 'prepared') {
    let puts = 0;
    const stored: Buffer[] = [];
    handler = (req, res, body) => {
      const url = new URL(req.url!, baseUrl);
      if (url.pathname === '/v1/uploads/prepare') {
        const b = JSON.parse(body.toString());
        const done = prepareStatus === 'completed' ? { asset_id: 'ast_1', asset: { id: 'ast_1' } } : {};
        return json(res, 200, { upload_id: 'up_1', status: prepareStatus, name: b.name, mime: b.mime, size: b.size, checksum: b.checksum, ...done, upload: { url: `${baseUrl}/v1/uploads/up_1/content`, method: 'PUT', headers: { 'X-Upload-Token': 'tok' } } });
      }
      if (url.pathname === '/v1/uploads/up_1/content') {
        puts++;
        if (puts <= putFails) return req.socket.destroy();
        stored.push(body);
        return json(res, 200, { upload_id: 'up_1', status: 'uploaded' });
      }
      if (url.pathname === '/v1/uploads/up_1') return json(res, 200, { upload_id: 'up_1', status: 'uploading' });
      if (url.pathname === '/v1/uploads/up_1/complete') return json(res, 200, { upload_id: 'up_1', status: 'completed', asset_id: 'ast_1' });
      apiErr(res, 404, 'NOT_FOUND');
    };
    return { stored };
  }

  it('computes size, real MIME and SHA-256, then prepares, PUTs with progress and completes', async () => {
    const { stored } = uploadServer(0);
    const progress: number[] = [];
    const inspected: unknown[] = [];
    const up = await client().uploads.upload(png, { name: 'pixel.bin', onProgress: (p) => progress.push(p.loaded), onInspected: (f) => inspected.push({ ...f, requestsBefore: seen.length }) });
    expect(up).toMatchObject({ status: 'completed', asset_id: 'ast_1' });
    const prepare = JSON.parse(seen[0].body.toString());
    const checksum = createHash('sha256').update(png).digest('hex');
    expect(inspected).toEqual([{ name: 'pixel.bin', size: png.length, mime: 'image/png', checksum, requestsBefore: 0 }]);
    expect(prepare).toEqual({ name: 'pixel.bin', mime: 'image/png', size: png.length, checksum, idempotency_key: await uploadKey({ name: 'pixel.bin', mime: 'image/png', size: png.length, checksum }) });
    const put = seen.find((s) => s.method === 'PUT')!;
    expect(put.headers).toMatchObject({ 'x-upload-token': 'tok', 'content-type': 'image/png', 'content-length': String(png.length) });
    expect(put.headers.authorization).toBeUndefined(); // the upload token is the only credential of the write
    expect(Buffer.concat(stored)).toEqual(png);
    expect(progress[progress.length - 1]).toBe(png.length);
  });

  it('re-sends the whole file after an interrupted PUT, under the same upload', async () => {
    const { stored } = uploadServer(1);
    const up = await client().uploads.upload(png, { name: 'pixel.png' });
    expect(up.status).toBe('completed');
    expect(seen.filter((s) => s.method === 'PUT')).toHaveLength(2);
    expect(new Set(seen.filter((s) => s.url === '/v1/uploads/prepare').map((s) => JSON.parse(s.body.toString()).idempotency_key)).size).toBe(1);
    expect(Buffer.concat(stored)).toEqual(png);
  });

  it('derives the same key for the same file, so a second call resumes instead of uploading twice', async () => {
    uploadServer(0, 'completed');
    const a = await client().uploads.upload(new TextEncoder().encode('hello\n'), { name: 'a.txt' });
    const b = await client().uploads.upload(new TextEncoder().encode('hello\n'), { name: 'a.txt' });
    expect(a.status).toBe('completed');
    expect(b.status).toBe('completed');
    const keys = seen.map((s) => JSON.parse(s.body.toString()));
    expect(keys[0]).toMatchObject({ mime: 'text/plain' });
    expect(keys[0].idempotency_key).toBe(keys[1].idempotency_key);
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('uploads a file again as a new asset when the asset of its earlier upload was deleted', async () => {
    const keys: string[] = [];
    handler = (req, res, body) => {
      const url = new URL(req.url!, baseUrl);
      if (url.pathname === '/v1/uploads/prepare') {
        const b = JSON.parse(body.toString());
        keys.push(b.idempotency_key);
        // the first key's upload completed long ago and its asset was deleted since: no `asset`
        if (keys.length === 1) return json(res, 200, { upload_id: 'up_old', status: 'completed', asset_id: 'ast_deleted', name: b.name });
        return json(res, 200, { upload_id: 'up_2', status: 'prepared', upload: { url: `${baseUrl}/v1/uploads/up_2/content`, method: 'PUT', headers: { 'X-Upload-Token': 'tok' } } });
      }
      if (url.pathname === '/v1/uploads/up_2/content') return json(res, 200, { upload_id: 'up_2', status: 'uploaded' });
      if (url.pathname === '/v1/uploads/up_2/complete') return json(res, 200, { upload_id: 'up_2', status: 'completed', asset_id: 'ast_new', asset: { id: 'ast_new' } });
      apiErr(res, 404, 'NOT_FOUND');
    };
    const up = await client().uploads.upload(png, { name: 'pixel.png' });
    expect(up).toMatchObject({ status: 'completed', asset_id: 'ast_new' });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(`${keys[0]}-g2`);
    expect(seen.filter((s) => s.method === 'PUT')).toHaveLength(1);
  });

  it('detects JSON and refuses an empty file before any request', async () => {
    uploadServer(0, 'completed');
    await client().uploads.upload(new TextEncoder().encode(' {"a": [1]}'), { name: 'data' });
    expect(JSON.parse(seen[0].body.toString()).mime).toBe('application/json');
    await expect(client().uploads.upload(new Uint8Array(0), { name: 'empty.txt' })).rejects.toThrow(/1 byte to 64 MiB/);
    expect(seen).toHaveLength(1);
  });
});

describe('webhookEndpoints', () => {
  const endpoint = { id: 'whe_1', url: 'https://hooks.example/a', events: ['task.succeeded'], description: null, status: 'enabled', created_at: '2026-11-25T00:00:00.000Z' };

  it('calls each route with its method, path (ids encoded), body and query', async () => {
    handler = (req, res) => {
      const path = new URL(req.url!, baseUrl).pathname;
      if (req.method === 'DELETE') return json(res, 200, { id: 'whe_1', deleted: true });
      if (path.endsWith('/retry')) return json(res, 202, { id: 'whd_1', status: 'pending' });
      if (path.endsWith('/deliveries')) return json(res, 200, { data: [], page: 2, limit: 5, has_more: false });
      if (req.method === 'GET' && path === '/v1/webhook-endpoints') return json(res, 200, { data: [endpoint], page: 1, limit: 30, has_more: false });
      json(res, req.method === 'POST' && path === '/v1/webhook-endpoints' ? 201 : 200, { ...endpoint, ...(req.method === 'POST' ? { secret: 'whsec_x' } : {}) });
    };
    const c = client();
    expect(await c.webhookEndpoints.create({ url: 'https://hooks.example/a', events: ['task.succeeded'], description: 'orders' })).toMatchObject({ id: 'whe_1', secret: 'whsec_x' });
    expect((await c.webhookEndpoints.list({ limit: 30 })).data).toEqual([endpoint]);
    expect(await c.webhookEndpoints.get('whe_1')).toEqual(endpoint);
    expect(await c.webhookEndpoints.rotateSecret('whe_1')).toMatchObject({ secret: 'whsec_x' });
    expect(await c.webhookEndpoints.deliveries('whe_1', { page: 2, limit: 5 })).toMatchObject({ page: 2, data: [] });
    expect(await c.webhookEndpoints.retryDelivery('whe_1', 'whd_1')).toEqual({ id: 'whd_1', status: 'pending' });
    expect(await c.webhookEndpoints.delete('whe/1')).toEqual({ id: 'whe_1', deleted: true });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /v1/webhook-endpoints',
      'GET /v1/webhook-endpoints?limit=30',
      'GET /v1/webhook-endpoints/whe_1',
      'POST /v1/webhook-endpoints/whe_1/rotate-secret',
      'GET /v1/webhook-endpoints/whe_1/deliveries?page=2&limit=5',
      'POST /v1/webhook-endpoints/whe_1/deliveries/whd_1/retry',
      'DELETE /v1/webhook-endpoints/whe%2F1',
    ]);
    expect(JSON.parse(seen[0].body.toString())).toEqual({ url: 'https://hooks.example/a', events: ['task.succeeded'], description: 'orders' });
    expect(seen.every((s) => s.headers.authorization === 'Bearer gsk_test')).toBe(true);
  });

  it('never repeats a create or a rotation (each would make another endpoint or secret), but repeats a retry request', async () => {
    handler = (_req, res) => apiErr(res, 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '0' });
    await expect(client().webhookEndpoints.create({ url: 'https://hooks.example/a', events: ['*'] })).rejects.toBeInstanceOf(ServerError);
    expect(seen).toHaveLength(1);
    await expect(client().webhookEndpoints.rotateSecret('whe_1')).rejects.toBeInstanceOf(ServerError);
    expect(seen).toHaveLength(2);
    handler = (_req, res, _b, n) => (n < 4 ? apiErr(res, 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '0' }) : json(res, 202, { id: 'whd_1', status: 'pending' }));
    expect(await client().webhookEndpoints.retryDelivery('whe_1', 'whd_1')).toEqual({ id: 'whd_1', status: 'pending' });
    expect(seen).toHaveLength(4);
  });

  it('iterates the deliveries of an endpoint page by page; a refusal is a typed error', async () => {
    handler = (req, res) => {
      const page = Number(new URL(req.url!, baseUrl).searchParams.get('page'));
      if (req.url!.includes('whe_gone')) return apiErr(res, 404, 'NOT_FOUND');
      json(res, 200, { data: [{ id: `whd_${page}` }], page, limit: 1, has_more: page < 2 });
    };
    const ids: string[] = [];
    for await (const d of client().webhookEndpoints.iterateDeliveries('whe_1', { limit: 1 })) ids.push(d.id);
    expect(ids).toEqual(['whd_1', 'whd_2']);
    await expect(client().webhookEndpoints.deliveries('whe_gone')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
