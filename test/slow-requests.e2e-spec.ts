import { connect, type AddressInfo } from 'node:net';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';

interface SlowResult {
  status: number;
  body: string;
  headers: Record<string, string>;
  /** Milliseconds from the end of the headers until the server closed the connection. */
  closedAfterMs: number;
  /** Bytes of the body written before that. */
  sent: number;
}

/**
 * A raw socket that sends `head` at once and then the body one byte every `everyMs`, until the
 * server closes the connection (or the whole body is sent); resolves when the socket closes.
 */
function trickle(port: number, head: string, body: string, everyMs: number): Promise<SlowResult> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let sent = 0;
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      started = Date.now();
      timer = setInterval(() => {
        if (sent < body.length && socket.writable) socket.write(body[sent++]);
      }, everyMs);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined); // a reset after the answer is the server closing
    socket.on('close', () => {
      clearInterval(timer);
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const lines = all.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0), body: all.slice(split + 4), headers, closedAfterMs: Date.now() - started, sent });
    });
    socket.setTimeout(120_000, () => reject(new Error('the server never closed the connection')));
  });
}

const jsonHead = (path: string, auth: string, length: number, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

describe('a request body must arrive within 30 seconds of its headers', () => {
  let t: TestApp;
  let acc: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    acc = await createAccount(t, { credit: '10.00' });
  });
  afterAll(() => t.close());

  it('ends a JSON body sent one byte every two seconds with 408 REQUEST_TIMEOUT after 30 s and closes the connection', async () => {
    const body = JSON.stringify({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x'.repeat(100) } });
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    const res = await trickle(port, jsonHead('/v1/quotes', acc.apiKey, Buffer.byteLength(body)), body, 2000);
    expect(res.status).toBe(408);
    expectError(JSON.parse(res.body), 'REQUEST_TIMEOUT');
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(29_000);
    expect(res.closedAfterMs).toBeLessThan(36_000);
    expect(res.sent).toBeLessThan(body.length);
  }, 60_000);

  it('has Node end slow headers and any request still arriving after the longest body deadline', () => {
    const server = t.app.getHttpServer();
    expect(server.headersTimeout).toBe(30_000);
    expect(server.requestTimeout).toBeGreaterThan(60_000); // file bodies have 60 s to arrive
    expect(server.requestTimeout).toBeLessThanOrEqual(120_000);
  });
});

describe('request deadlines (shortened here) on every kind of body', () => {
  let t: TestApp;
  let acc: TestAccount;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ overrides: { deadlines: { bodyMs: 1000, uploadBodyMs: 3000, headersMs: 1500 } } });
    acc = await createAccount(t, { credit: '10.00' });
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  const wallet = async () => (await t.http().get('/v1/wallet').set(bearer(acc)).expect(200)).body;

  it('a slow task creation is refused with 408 and creates nothing, reserves nothing', async () => {
    const quote = await t.http().post('/v1/quotes').set(bearer(acc)).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } }).expect(200);
    const before = await wallet();
    const body = JSON.stringify({ quote_id: quote.body.quote_id, title: 'slow' });
    const res = await trickle(port, jsonHead('/v1/tasks', acc.apiKey, body.length, 'Idempotency-Key: slow-body-0001\r\n'), body, 100);
    expect(res.status).toBe(408);
    expectError(JSON.parse(res.body), 'REQUEST_TIMEOUT');
    expect(res.headers['x-request-id']).toBe(JSON.parse(res.body).error.request_id);
    expect(res.closedAfterMs).toBeLessThan(5000);
    expect(await wallet()).toEqual(before);
    expect((await t.http().get('/v1/tasks').set(bearer(acc)).expect(200)).body.data).toEqual([]);
  });

  it.each([
    ['a form on /token', 'POST /token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n'],
    ['a chunked JSON body', 'POST /v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'],
  ])('%s sent a byte at a time is ended with 408', async (_name, head) => {
    const res = await trickle(port, head, 'a'.repeat(200), 100);
    expect(res.status).toBe(408);
    expectError(JSON.parse(res.body), 'REQUEST_TIMEOUT');
    expect(res.closedAfterMs).toBeLessThan(5000);
  });

  it('gives file bodies their own, longer deadline', async () => {
    const res = await trickle(port, `POST /v1/uploads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acc.apiKey}\r\nContent-Type: text/plain\r\nX-Filename: slow.txt\r\nContent-Length: 500\r\n\r\n`, 'a'.repeat(500), 100);
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(2500);
    expect(res.closedAfterMs).toBeLessThan(10_000);
    expect(res.status).toBe(408);
    expectError(JSON.parse(res.body), 'REQUEST_TIMEOUT');
    expect((await t.http().get('/v1/assets').set(bearer(acc)).expect(200)).body.data).toEqual([]);
  });

  it('ends headers that do not arrive in time with 408 in the error shape', async () => {
    const res = await trickle(port, 'GET /v1/models HTTP/1.1\r\n', 'X-Slow: ' + 'a'.repeat(100), 100);
    expect(res.status).toBe(408);
    expectError(JSON.parse(res.body), 'REQUEST_TIMEOUT');
    expect(res.closedAfterMs).toBeLessThan(6000);
  });

  it('still takes a slow body that arrives in time', async () => {
    const body = JSON.stringify({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } });
    const res = await trickle(port, jsonHead('/v1/quotes', acc.apiKey, body.length, 'Connection: close\r\n'), body, 5);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).quote_id).toMatch(/^qt_/);
  });
});
