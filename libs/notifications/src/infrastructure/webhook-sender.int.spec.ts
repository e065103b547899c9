import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { NotificationSettings } from '../notification-settings';
import { WebhookNetwork } from './webhook-network';
import { WebhookSender, portAllowed } from './webhook-sender';

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
    allowedPorts: [],
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
    // The target would accept: a sender that followed would report its 200 and the server would have seen it.
    handler = (req, res) => (req.url === '/elsewhere' ? res.writeHead(204).end() : res.writeHead(307, { Location: `${base}/elsewhere` }).end());
    expect(await attempt(`${base}/moved`)).toMatchObject({ statusCode: 307, error: 'http_307', kind: 'answered' });
    expect(hits).toEqual(['/moved']);
  });

  it('given a receiver that never answers, when the time limit passes, then a timeout', async () => {
    handler = () => undefined; // holds the request open
    const r = await attempt(`${base}/silent`);
    expect(r).toMatchObject({ statusCode: null, kind: 'timeout', error: 'timeout' });
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
    const r = await attempt(`http://hooks.example:${new URL(base).port}/x`, sender);
    expect(r).toMatchObject({ statusCode: null, kind: 'refused_address', error: 'address_refused' });
    expect(r.detail).toContain('10.0.0.7'); // for the service's log only
    expect(hits).toEqual([]);
  });

  describe('failures are short codes, never the network library\'s message (no port or TLS scanning through the attempts)', () => {
    it('given a closed port, then connect_failed', async () => {
      const probe = createTcpServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const closedPort = (probe.address() as AddressInfo).port;
      await new Promise((r) => probe.close(r));
      const r = await attempt(`http://127.0.0.1:${closedPort}/x`);
      expect(r).toMatchObject({ statusCode: null, kind: 'network_error', error: 'connect_failed' });
      expect(r.detail).toMatch(/ECONNREFUSED/);
    });

    it('given https to a port that does not speak TLS, then tls_error', async () => {
      const r = await attempt(`${base.replace('http:', 'https:')}/x`);
      expect(r).toMatchObject({ statusCode: null, kind: 'network_error', error: 'tls_error' });
      expect(r.detail).toMatch(/SSL|TLS|version/i);
    });

    it('given a connection closed without an answer, then connect_failed', async () => {
      const rude = createTcpServer((socket) => socket.once('data', () => socket.destroy()));
      await new Promise<void>((r) => rude.listen(0, '127.0.0.1', r));
      try {
        expect(await attempt(`http://127.0.0.1:${(rude.address() as AddressInfo).port}/x`)).toMatchObject({ statusCode: null, error: 'connect_failed' });
      } finally {
        await new Promise((r) => rude.close(r));
      }
    });

    it('given an error status, then http_<status>', async () => {
      handler = (_req, res) => res.writeHead(503).end('busy');
      expect(await attempt(`${base}/busy`)).toMatchObject({ statusCode: 503, error: 'http_503', kind: 'answered' });
    });
  });

  describe('ports: 443, the ports the operator allowed, and any port on an allowed loopback address', () => {
    it('given a public address on another port, then refused without connecting', async () => {
      const sender = new WebhookSender(new FixedNetwork('93.184.215.14'), settings());
      for (const url of ['https://hooks.example.com:8443/x', 'https://hooks.example.com:22/x', 'http://hooks.example.com/x']) {
        expect(await attempt(url, sender)).toMatchObject({ statusCode: null, kind: 'refused_address', error: 'port_refused' });
      }
    });

    it('the rule: 443 always, a port the operator allowed, any port on an allowed loopback address', () => {
      expect(portAllowed(443, false, [])).toBe(true);
      expect(portAllowed(8443, false, [])).toBe(false);
      expect(portAllowed(8443, false, [8443, 9443])).toBe(true);
      expect(portAllowed(22, false, [8443])).toBe(false);
      expect(portAllowed(22, true, [])).toBe(true);
    });

    it('given loopback without WEBHOOKS_ALLOW_LOCAL, then refused whatever ports are allowed', async () => {
      const port = Number(new URL(base).port);
      const sender = new WebhookSender(new FixedNetwork('127.0.0.1'), settings({ allowLocal: false, allowedPorts: [port] }));
      expect(await attempt(`http://hooks.example.com:${port}/x`, sender)).toMatchObject({ statusCode: null, error: 'address_refused' });
      expect(hits).toEqual([]);
    });
  });
});
