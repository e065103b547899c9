import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotificationSettings } from '../notification-settings';
import { WebhookNetwork } from './webhook-network';
import { WebhookSender } from './webhook-sender';

/** Resolves every name to one fixed address (what a DNS answer would say). */
class FixedNetwork extends WebhookNetwork {
  constructor(private readonly address: string) {
    super();
  }
  async resolve(): Promise<string[]> {
    return [this.address];
  }
}

const settings = (o: Partial<NotificationSettings> = {}) =>
  new NotificationSettings({
    retrySchedule: [1],
    jitter: 0,
    allowLocal: true,
    attemptTimeoutMs: 300,
    disableAfterMs: 1000,
    concurrency: 4,
    concurrencyPerEndpoint: 2,
    responseReadBytes: 4096,
    secretKey: 'x'.repeat(32),
    ...o,
  });

/** One attempt of a sender against a real receiver on loopback. */
describe('webhook sender (one attempt, against a receiver on loopback)', () => {
  let server: Server;
  let base: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      req.on('end', () => handler(req, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (hits.length = 0));

  const attempt = (url: string, sender = new WebhookSender(new FixedNetwork('127.0.0.1'), settings())) =>
    sender.send({ url, messageId: 'msg_1', timestamp: 1_700_000_000, signature: 'v1,abc=', body: '{"type":"task.created"}' });

  it('given a 2xx, then delivered, with the Standard Webhooks headers sent', async () => {
    let headers: IncomingMessage['headers'] = {};
    handler = (req, res) => {
      headers = req.headers;
      res.writeHead(204).end();
    };
    expect(await attempt(`${base}/ok?x=1`)).toMatchObject({ statusCode: 204, error: null, kind: 'answered' });
    expect(hits).toEqual(['/ok?x=1']);
    expect(headers).toMatchObject({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc=', 'content-type': 'application/json' });
  });

  it('given a redirect, then the attempt fails with its status and the redirect is not followed', async () => {
    handler = (_req, res) => res.writeHead(307, { Location: `${base}/elsewhere` }).end();
    expect(await attempt(`${base}/moved`)).toMatchObject({ statusCode: 307, error: 'the receiver answered HTTP 307', kind: 'answered' });
    await new Promise((r) => setTimeout(r, 100));
    expect(hits).toEqual(['/moved']);
  });

  it('given a receiver that never answers, when the time limit passes, then a timeout', async () => {
    handler = () => undefined; // holds the request open
    const r = await attempt(`${base}/silent`);
    expect(r).toMatchObject({ statusCode: null, kind: 'timeout', error: expect.stringMatching(/^no answer within/) });
    expect(r.durationMs).toBeGreaterThanOrEqual(250);
    expect(r.durationMs).toBeLessThan(5000);
  });

  it('given an endless answer body, then the status decides at once and the sender closes the connection after a few KiB', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((r) => (closed = r));
    let written = 0;
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', closed);
      pump();
    };
    expect(await attempt(`${base}/endless`)).toMatchObject({ statusCode: 200, kind: 'answered' });
    await connectionClosed; // the test times out if the sender kept reading
    expect(written).toBeGreaterThan(0);
  });

  it('given a name that resolves to a private address, then refused without connecting', async () => {
    const sender = new WebhookSender(new FixedNetwork('10.0.0.7'), settings());
    expect(await attempt(`http://hooks.example:${new URL(base).port}/x`, sender)).toMatchObject({ statusCode: null, kind: 'refused_address', error: expect.stringContaining('10.0.0.7') });
    expect(hits).toEqual([]);
  });
});
