import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';

/** Raw HTTP over a socket, for requests no HTTP client library would send. */
function rawRequest(port: number, text: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('latin1');
      const split = all.indexOf('\r\n\r\n');
      const head = all.slice(0, split).split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: all.slice(split + 4) });
    });
    socket.end(text);
  });
}

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('hostile input', () => {
  let t: TestApp;
  let acc: TestAccount;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp();
    acc = await createAccount(t, { credit: '10.00' });
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  const wallet = async () => (await t.http().get('/v1/wallet').set(bearer(acc)).expect(200)).body;
  const quoteId = async () =>
    (await t.http().post('/v1/quotes').set(bearer(acc)).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } }).expect(200)).body.quote_id as string;

  describe('JSON nesting depth is bounded at parse time (400 levels)', () => {
    it.each(['/v1/quotes', '/v1/uploads/prepare', '/v1/uploads/import', '/v1/tasks'])('answers 400 VALIDATION_ERROR for 2,000 levels on %s', async (path) => {
      const body = `{"input":${nested(2000)}}`;
      const res = await t.http().post(path).set(bearer(acc)).set('Idempotency-Key', 'deep-nesting-1').set('Content-Type', 'application/json').send(body).expect(400);
      expectError(res.body, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/nest/);
    });

    it('counts brackets inside strings as text, and accepts 400 levels', async () => {
      const inString = JSON.stringify({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: '['.repeat(5000) } });
      await t.http().post('/v1/quotes').set(bearer(acc)).set('Content-Type', 'application/json').send(inString).expect(200);
      // 400 levels in all: the parser takes it; the model schema then refuses the unknown field by name.
      const deep = `{"model":"text-writer-lite","capability":"text.generate","input":{"prompt":"x","extra":${nested(398)}}}`;
      const res = await t.http().post('/v1/quotes').set(bearer(acc)).set('Content-Type', 'application/json').send(deep).expect(400);
      expect(res.body.error.message).toMatch(/extra/);
      const tooDeep = `{"model":"text-writer-lite","capability":"text.generate","input":{"prompt":"x","extra":${nested(399)}}}`;
      const refused = await t.http().post('/v1/quotes').set(bearer(acc)).set('Content-Type', 'application/json').send(tooDeep).expect(400);
      expect(refused.body.error.message).toMatch(/nest/);
    });
  });

  describe('JSON bodies are UTF-8: any other charset is 415, so the depth bound holds for whatever bytes arrive', () => {
    /** `[` × 5,000 then `]` × 5,000 as UTF-7 spells them: no bracket byte for the depth scan to see. */
    const utf7Nested = '+AFs-'.repeat(5000) + '+AF0-'.repeat(5000);
    const routes: [string, Record<string, string>][] = [
      ['/v1/quotes', {}],
      ['/v1/tasks', { 'Idempotency-Key': 'utf7-nesting-1' }],
      ['/v1/webhook-endpoints', {}],
      ['/v1/uploads/import', {}],
      ['/v1/uploads/prepare', {}],
      ['/mcp', { Accept: 'application/json, text/event-stream' }],
    ];

    it.each(routes)('answers 415 UNSUPPORTED_MEDIA_TYPE for 5,000 UTF-7 levels on %s (never a 500 from the stack)', async (path, headers) => {
      const res = await t.http().post(path).set(bearer(acc)).set(headers).set('Content-Type', 'application/json; charset=utf-7').send(utf7Nested);
      expect(res.status).toBe(415);
      expectError(res.body, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it.each([
      ['utf-7', Buffer.from('{"url":"https://hooks.example.com/x","events":["*"],"description":"+AFs-"}', 'latin1')],
      ['UTF-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"url":"https://hooks.example.com/x","events":["*"]}', 'utf16le')])],
      ['utf-16le', Buffer.from('{"url":"https://hooks.example.com/x","events":["*"]}', 'utf16le')],
      ['"utf-32"', Buffer.from('{"url":"https://hooks.example.com/x","events":["*"]}'.split('').map((c) => String.fromCharCode(c.charCodeAt(0), 0, 0, 0)).join(''), 'latin1')],
      ['iso-8859-1', Buffer.from('{"url":"https://hooks.example.com/x","events":["*"]}', 'latin1')],
      ['utf8', Buffer.from('{"url":"https://hooks.example.com/x","events":["*"]}')],
    ])('refuses a well-formed body in charset %s with 415 and stores nothing', async (charset, body) => {
      const res = await t.http().post('/v1/webhook-endpoints').set(bearer(acc)).set('Content-Type', `application/json; charset=${charset}`).send(body);
      expect(res.status).toBe(415);
      expectError(res.body, 'UNSUPPORTED_MEDIA_TYPE');
      expect((await t.http().get('/v1/webhook-endpoints').set(bearer(acc)).expect(200)).body.data).toEqual([]);
    });

    it('still takes UTF-8 however the charset is spelled, and refuses its deep nesting with 400', async () => {
      for (const type of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"', 'application/json']) {
        await t.http().post('/v1/quotes').set(bearer(acc)).set('Content-Type', type).send('{"model":"text-writer-lite","capability":"text.generate","input":{"prompt":"h\u00e9"}}').expect(200);
      }
      const created = await t.http().post('/v1/webhook-endpoints').set(bearer(acc)).set('Content-Type', 'application/json; charset=utf-8').send('{"url":"https://hooks.example.com/x","events":["*"]}');
      expect(created.status).toBe(201);
      await t.http().delete(`/v1/webhook-endpoints/${created.body.id}`).set(bearer(acc)).expect(200);
      const deep = await t.http().post('/mcp').set(bearer(acc)).set('Accept', 'application/json, text/event-stream').set('Content-Type', 'application/json; charset=utf-8').send(nested(5000)).expect(400);
      expectError(deep.body, 'VALIDATION_ERROR');
    });
  });

  describe('titles, descriptions and names refuse control characters (400 VALIDATION_ERROR, nothing stored)', () => {
    const hostile = ['\u001b[2J\u001b]0;owned\u0007', 'a\u0000b', 'invoice\u202Efdp.exe', 'x\u0085y', 'x\u009b31m', 'line\nbreak', 'tab\there', 'del\u007f', 'iso\u2066late\u2069', 'emb\u202Aed'];

    it.each(hostile)('a task title %j', async (title) => {
      const before = await wallet();
      const tasks = (await t.http().get('/v1/tasks').set(bearer(acc)).expect(200)).body.data.length;
      const res = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `title-${Buffer.from(title).toString('hex').slice(0, 40)}`).send({ quote_id: await quoteId(), title }).expect(400);
      expectError(res.body, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/^title: /);
      expect(await wallet()).toEqual(before);
      expect((await t.http().get('/v1/tasks').set(bearer(acc)).expect(200)).body.data).toHaveLength(tasks);
    });

    it.each(hostile)('a webhook endpoint description %j', async (description) => {
      const res = await t.http().post('/v1/webhook-endpoints').set(bearer(acc)).send({ url: 'https://hooks.example.com/x', events: ['*'], description }).expect(400);
      expectError(res.body, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/^description: /);
      expect((await t.http().get('/v1/webhook-endpoints').set(bearer(acc)).expect(200)).body.data).toEqual([]);
    });

    it.each(hostile)('a file name %j (prepare, direct upload, import)', async (name) => {
      const prepared = await t.http().post('/v1/uploads/prepare').set(bearer(acc)).send({ name, mime: 'text/plain', size: 1, checksum: 'a'.repeat(64), idempotency_key: `name-${Buffer.from(name).toString('hex').slice(0, 40)}` }).expect(400);
      expectError(prepared.body, 'VALIDATION_ERROR');
      const direct = await t.http().post('/v1/uploads').set(bearer(acc)).set('Content-Type', 'text/plain').set('X-Filename', encodeURIComponent(name)).send('x').expect(400);
      expectError(direct.body, 'VALIDATION_ERROR');
      const imported = await t.http().post('/v1/uploads/import').set(bearer(acc)).send({ url: 'https://files.example.com/a.txt', name }).expect(400);
      expectError(imported.body, 'VALIDATION_ERROR');
    });

    it('still takes titles and descriptions in any script, trimmed', async () => {
      const other = await createAccount(t, { credit: '10.00' });
      const quote = await t.http().post('/v1/quotes').set(bearer(other)).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } }).expect(200);
      const res = await t.http().post('/v1/tasks').set(bearer(other)).set('Idempotency-Key', 'title-any-script').send({ quote_id: quote.body.quote_id, title: '  Café 日本語 👩‍💻 “Q1” – ok  ' }).expect(202);
      expect(res.body.title).toBe('Café 日本語 👩‍💻 “Q1” – ok');
      const hook = await t.http().post('/v1/webhook-endpoints').set(bearer(other)).send({ url: 'https://hooks.example.com/x', events: ['*'], description: 'Заказы — ok' }).expect(201);
      expect(hook.body.description).toBe('Заказы — ok');
    });
  });

  it.each(['__proto__', 'constructor'])('refuses a top-level %s as an unknown field', async (field) => {
    const body = `{"model":"text-writer-lite","capability":"text.generate","input":{"prompt":"hi"},"${field}":{"x":1}}`;
    const res = await t.http().post('/v1/quotes').set(bearer(acc)).set('Content-Type', 'application/json').send(body).expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
    const task = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `proto-${field}`).set('Content-Type', 'application/json').send(`{"quote_id":"${await quoteId()}","${field}":{}}`).expect(400);
    expect(task.body.error.message).toContain(field);
  });

  describe('JSON endpoints take only JSON bodies (415 UNSUPPORTED_MEDIA_TYPE)', () => {
    it('refuses a form body on POST /v1/tasks and creates no task, reserves nothing', async () => {
      const before = await wallet();
      const id = await quoteId();
      const res = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', 'form-body-0001').type('form').send({ quote_id: id }).expect(415);
      expectError(res.body, 'UNSUPPORTED_MEDIA_TYPE');
      expect(await wallet()).toEqual(before);
      expect((await t.http().get('/v1/tasks').set(bearer(acc)).expect(200)).body.data).toEqual([]);
    });

    it.each([
      ['text/plain', '{"model":"text-writer-lite","capability":"text.generate","input":{"prompt":"hi"}}'],
      ['application/x-www-form-urlencoded', 'model=text-writer-lite&capability=text.generate'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="model"\r\n\r\nm\r\n--x--\r\n'],
      ['application/xml', '<quote/>'],
    ])('refuses %s on POST /v1/quotes', async (type, body) => {
      const res = await t.http().post('/v1/quotes').set(bearer(acc)).set('Content-Type', type).send(body).expect(415);
      expectError(res.body, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('refuses a body without a Content-Type', async () => {
      const body = '{"name":"a.txt","mime":"text/plain","size":1,"checksum":"' + 'a'.repeat(64) + '","idempotency_key":"no-type-0001"}';
      const res = await rawRequest(
        port,
        `POST /v1/uploads/prepare HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acc.apiKey}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(res.status).toBe(415);
      expectError(JSON.parse(res.body), 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('still takes JSON with a charset, an empty body where none is needed, and forms on the OAuth endpoints', async () => {
      await t.http().post('/v1/quotes').set(bearer(acc)).set('Content-Type', 'application/json; charset=utf-8').send('{"model":"text-writer-lite","capability":"text.generate","input":{"prompt":"hi"}}').expect(200);
      const token = await t.http().post('/token').type('form').send({ grant_type: 'authorization_code', client_id: 'client_nope' }).expect(401);
      expect(token.body.error).toBe('invalid_client');
    });
  });

  describe('requests Node refuses before the app still get the error shape and a request id', () => {
    it('answers headers over 16 KiB with 431 HEADERS_TOO_LARGE', async () => {
      const res = await rawRequest(port, `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String), request_id: res.headers['x-request-id'] } });
    });

    it('answers a control byte in a header with 400 VALIDATION_ERROR', async () => {
      const res = await rawRequest(port, Buffer.from(`GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n`, 'latin1'));
      expect(res.status).toBe(400);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String), request_id: res.headers['x-request-id'] } });
    });
  });

  it.each(['2026-02-30T00:00:00Z', '2026-04-31T00:00:00Z', '2025-02-29T12:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z'])(
    'refuses the impossible date %s in list filters',
    async (date) => {
      for (const path of ['/v1/tasks', '/v1/billing']) {
        for (const name of ['created_from', 'created_before']) {
          const res = await t.http().get(path).query({ [name]: date }).set(bearer(acc)).expect(400);
          expect(res.body.error.message).toContain(name);
        }
      }
      await t.http().get('/v1/tasks').query({ created_from: '2028-02-29T00:00:00Z' }).set(bearer(acc)).expect(200);
    },
  );

  it('answers another method on an existing path with 405 and Allow, an unknown path with 404', async () => {
    for (const [method, path, allow] of [
      ['TRACE', '/v1/prices', 'GET, HEAD'],
      ['DELETE', '/v1/wallet', 'GET, HEAD'],
      ['PUT', '/v1/tasks/task_x/cancel', 'POST'],
      ['PATCH', '/v1/assets/ast_x', 'GET, HEAD, DELETE'],
    ] as const) {
      const res = await rawRequest(port, `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acc.apiKey}\r\nConnection: close\r\n\r\n`);
      expect(res.status).toBe(405);
      expect(res.headers['allow'].split(', ').sort()).toEqual(allow.split(', ').sort());
      expectError(JSON.parse(res.body), 'METHOD_NOT_ALLOWED');
    }
    expectError((await t.http().get('/v1/nothing-here').expect(404)).body, 'NOT_FOUND');
  });


  it('answers another method with a body 405 and Allow before reading the body (never 415 from the body parser)', async () => {
    for (const [method, path, type, body, allow] of [
      ['PUT', '/token', 'application/x-www-form-urlencoded', 'grant_type=authorization_code&code=x', 'POST'],
      ['PUT', '/revoke', 'application/x-www-form-urlencoded', 'token=x', 'POST'],
      ['POST', '/v1/uploads/up_x/content', 'image/png', '\x89PNG', 'PUT'],
      ['PUT', '/v1/quotes', 'text/plain', 'hello', 'POST'],
      ['DELETE', '/mcp', 'application/json', '{"jsonrpc":"2.0","id":1,"method":"ping"}', 'POST'],
    ] as const) {
      const res = await rawRequest(
        port,
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acc.apiKey}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body, 'latin1')}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect({ method, path, status: res.status, allow: res.headers['allow'] }).toEqual({ method, path, status: 405, allow });
      expectError(JSON.parse(res.body), 'METHOD_NOT_ALLOWED');
    }
  });
  it('ignores a Range of another unit (full 200) and keeps 416 for bad byte ranges', async () => {
    const bytes = Buffer.from('hello, ranges');
    const up = await t.http().post('/v1/uploads').set(bearer(acc)).set('Content-Type', 'text/plain').set('X-Filename', 'r.txt').send(bytes).expect(201);
    const asset = (await t.http().get(`/v1/assets/${up.body.id}`).set(bearer(acc)).expect(200)).body;
    const link = new URL(asset.url);
    const path = `${link.pathname}${link.search}`;
    for (const range of ['items=0-5', 'Items=0-1', 'none', 'x-bytes=0-3']) {
      const res = await t.http().get(path).set('Range', range).buffer(true).parse((r, cb) => {
        const c: Buffer[] = [];
        r.on('data', (d: Buffer) => c.push(d));
        r.on('end', () => cb(null, Buffer.concat(c)));
      }).expect(200);
      expect(res.body).toEqual(bytes);
      expect(res.headers['content-range']).toBeUndefined();
    }
    await t.http().get(path).set('Range', 'bytes=0-1,3-4').expect(416);
    await t.http().get(path).set('Range', 'bytes=100-').expect(416);
    await t.http().get(path).set('Range', 'BYTES=0-1').expect(206);
  });
});
