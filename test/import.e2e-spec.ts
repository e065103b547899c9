import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';
import { fixture, sha256, storedObjects } from './fixtures/helpers';
import { TestImportNetwork, startHttpsServer } from './fixtures/import-network';

const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

function routes(req: IncomingMessage, res: ServerResponse): void {
  const send = (type: string | null, body: Buffer, extra: Record<string, string> = {}) => {
    res.writeHead(200, { ...(type ? { 'Content-Type': type } : {}), 'Content-Length': String(body.length), ...extra });
    res.end(body);
  };
  const redirect = (to: string) => {
    res.writeHead(302, { Location: to });
    res.end();
  };
  switch (req.url) {
    case '/image.png':
      return send('image/png', fixture('image.png'));
    case '/photo.jpg':
      return send('image/jpeg', fixture('image.jpg'));
    case '/notes.txt':
      return send('text/plain; charset=utf-8', fixture('text.txt'));
    case '/data.json':
      return send('application/json', fixture('data.json'));
    case '/clip':
      return send(null, fixture('video.mp4'));
    case '/sound':
      return send('application/octet-stream', fixture('audio.mp3'));
    case '/mislabeled':
      return send('image/jpeg', fixture('image.png'));
    case '/anim.gif':
      return send('image/gif', GIF);
    case '/page.html':
      return send('text/html', Buffer.from('<!doctype html><p>hi</p>'));
    case '/bad.json':
      return send('application/json', Buffer.from('{"a": nope}'));
    case '/gzip':
      return send('text/plain', Buffer.from('x'), { 'Content-Encoding': 'gzip' });
    case '/redirect/ok':
      return redirect('/image.png');
    case '/redirect/other-host':
      return redirect('https://other.example.test/photo.jpg');
    case '/redirect/private-ip':
      return redirect('https://10.0.0.1/image.png');
    case '/redirect/loopback':
      return redirect('https://127.0.0.1/image.png');
    case '/redirect/private-name':
      return redirect('https://internal.example.test/image.png');
    case '/redirect/http':
      return redirect('http://files.example.test/image.png');
    case '/redirect/port':
      return redirect('https://files.example.test:8443/image.png');
    case '/redirect/loop':
      return redirect('/redirect/loop');
    case '/huge-declared':
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(67_108_865) });
      res.write('a');
      return;
    case '/huge-stream': {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(1 << 20, 0x61);
      let sent = 0;
      const pump = () => {
        while (sent <= 67_108_864 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    case '/slow':
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('still coming...');
      return;
    default:
      res.writeHead(404);
      res.end();
  }
}

const NAMES = {
  'files.example.test': ['93.184.216.34'],
  'other.example.test': ['93.184.216.35'],
  'internal.example.test': ['10.0.0.7'],
  'mixed.example.test': ['93.184.216.34', '192.168.0.10'],
  'ula.example.test': ['fd00::7'],
  'mapped.example.test': ['::ffff:127.0.0.1'],
  'metadata.example.test': ['169.254.169.254'],
  'loopback6.example.test': ['::1'],
  'compat.example.test': ['::7f00:1'],
  'nat64.example.test': ['64:ff9b::a00:1'],
  'rebind.example.test': (n: number) => (n === 1 ? ['93.184.216.34'] : ['127.0.0.1']),
};

describe('import from an HTTPS address (POST /v1/uploads/import)', () => {
  let https: Awaited<ReturnType<typeof startHttpsServer>>;
  let network: TestImportNetwork;
  let t: TestApp;
  let alice: TestAccount;

  beforeAll(async () => {
    https = await startHttpsServer(routes);
    network = new TestImportNetwork(NAMES, { port: https.port, ca: https.cert });
    t = await startTestApp({ overrides: { assets: { importNetwork: network, limits: { importTimeoutMs: 6000 } } } });
    alice = await createAccount(t);
  });
  afterAll(async () => {
    await t.close();
    await https.close();
  });

  const importUrl = (url: string, name = 'imported.bin') => t.http().post('/v1/uploads/import').set(bearer(alice)).send({ url, name });

  it.each([
    ['/image.png', 'image/png', 'image.png'],
    ['/photo.jpg', 'image/jpeg', 'image.jpg'],
    ['/notes.txt', 'text/plain', 'text.txt'],
    ['/data.json', 'application/json', 'data.json'],
    ['/clip', 'video/mp4', 'video.mp4'],
    ['/sound', 'audio/mpeg', 'audio.mp3'],
  ])('imports %s as %s (real type recognised), 201 with the asset', async (path, mime, file) => {
    const res = await importUrl(`https://files.example.test${path}`, `from-web ${file}`).expect(201);
    const bytes = fixture(file);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^ast_/), name: `from-web ${file}`, mime, size: bytes.length, checksum: sha256(bytes), download_name: `from-web ${file}` });
    await t.http().get(`/v1/assets/${res.body.id}`).set(bearer(alice)).expect(200);
  });

  it('connects to the address it checked (no second lookup, no DNS-rebinding window)', async () => {
    const before = network.resolved.filter((h) => h === 'rebind.example.test').length;
    network.dialed.length = 0;
    await importUrl('https://rebind.example.test/image.png').expect(201);
    expect(network.resolved.filter((h) => h === 'rebind.example.test').length - before).toBe(1);
    expect(network.dialed).toEqual(['93.184.216.34']);
  });

  it('follows redirects to public HTTPS addresses, checking each hop', async () => {
    expect((await importUrl('https://files.example.test/redirect/ok').expect(201)).body.mime).toBe('image/png');
    network.dialed.length = 0;
    expect((await importUrl('https://files.example.test/redirect/other-host').expect(201)).body.mime).toBe('image/jpeg');
    expect(network.dialed).toEqual(['93.184.216.34', '93.184.216.35']);
  });

  it.each([
    ['https://127.0.0.1/image.png', 'loopback'],
    ['https://127.8.9.10/image.png', 'loopback (whole 127/8)'],
    ['https://10.1.2.3/image.png', '10/8'],
    ['https://172.16.5.4/image.png', '172.16/12'],
    ['https://172.31.0.1/image.png', '172.16/12 upper end'],
    ['https://192.168.1.1/image.png', '192.168/16'],
    ['https://169.254.169.254/latest/meta-data', '169.254/16'],
    ['https://[::1]/image.png', '::1'],
    ['https://[fc00::1]/image.png', 'fc00::/7'],
    ['https://[fd12:3456:789a::1]/image.png', 'fc00::/7 (fd)'],
    ['https://[fe80::1]/image.png', 'IPv6 link-local'],
    ['https://[::ffff:127.0.0.1]/image.png', 'IPv4-mapped IPv6'],
    ['https://[::ffff:8.8.8.8]/image.png', 'IPv4-mapped IPv6 (even public)'],
    ['https://[::127.0.0.1]/image.png', 'IPv4-compatible IPv6 of loopback'],
    ['https://[::a9fe:a9fe]/image.png', 'IPv4-compatible IPv6 of 169.254.169.254'],
    ['https://[::10.0.0.1]/image.png', 'IPv4-compatible IPv6 of 10.0.0.1'],
    ['https://[::8.8.8.8]/image.png', 'IPv4-compatible IPv6 (even public)'],
    ['https://[64:ff9b:1::a00:1]/image.png', 'local-use NAT64 (64:ff9b:1::/48)'],
    ['https://[2a00:1450:4001::5efe:7f00:1]/image.png', 'ISATAP interface identifier under a global prefix'],
    ['https://compat.example.test/image.png', 'a name that resolves to ::7f00:1'],
    ['https://nat64.example.test/image.png', 'a name that resolves to NAT64 of 10.0.0.1'],
    ['https://0.0.0.0/image.png', 'unspecified'],
    ['https://[::]/image.png', 'unspecified IPv6'],
    ['https://224.0.0.1/image.png', 'multicast'],
    ['https://2130706433/image.png', 'decimal IPv4 spelling of 127.0.0.1'],
    ['https://0177.0.0.1/image.png', 'octal IPv4 spelling of 127.0.0.1'],
    ['https://0x7f.0.0.1/image.png', 'hexadecimal IPv4 spelling'],
    ['https://012.0.0.1/image.png', 'octal spelling of 10.0.0.1'],
    ['https://localhost/image.png', 'localhost'],
    ['https://internal.example.test/image.png', 'a name that resolves to a private address'],
    ['https://mixed.example.test/image.png', 'a name with one private address among public ones'],
    ['https://ula.example.test/image.png', 'a name that resolves to fc00::/7'],
    ['https://mapped.example.test/image.png', 'a name that resolves to an IPv4-mapped address'],
    ['https://metadata.example.test/image.png', 'a name that resolves to 169.254.169.254'],
    ['https://loopback6.example.test/image.png', 'a name that resolves to ::1'],
    ['https://files.example.test/redirect/private-ip', 'a redirect to a private address'],
    ['https://files.example.test/redirect/loopback', 'a redirect to loopback'],
    ['https://files.example.test/redirect/private-name', 'a redirect to a name that resolves to a private address'],
    ['https://files.example.test/redirect/http', 'a redirect to plain HTTP'],
    ['https://files.example.test/redirect/port', 'a redirect to a non-standard port'],
    ['http://files.example.test/image.png', 'plain HTTP'],
    ['https://files.example.test:8443/image.png', 'a non-standard port'],
    ['https://user:secret@files.example.test/image.png', 'credentials in the address'],
  ])('refuses %s (%s) with IMPORT_URL_FORBIDDEN, storing nothing', async (url) => {
    network.dialed.length = 0;
    const before = storedObjects(t, 'assets').length;
    const res = await importUrl(url).expect(422);
    expectError(res.body, 'IMPORT_URL_FORBIDDEN');
    expect(storedObjects(t, 'assets').length).toBe(before);
    // Nothing was ever dialled for a refused first address.
    if (!url.includes('/redirect/')) expect(network.dialed).toEqual([]);
  });

  it('checks the real content type of the download', async () => {
    expectError((await importUrl('https://files.example.test/mislabeled').expect(422)).body, 'FILE_TYPE_MISMATCH');
    expectError((await importUrl('https://files.example.test/anim.gif').expect(415)).body, 'UNSUPPORTED_MEDIA_TYPE');
    expectError((await importUrl('https://files.example.test/page.html').expect(415)).body, 'UNSUPPORTED_MEDIA_TYPE');
    expectError((await importUrl('https://files.example.test/bad.json').expect(422)).body, 'INVALID_JSON');
  });

  it('refuses downloads over 64 MiB, by Content-Length and while streaming', async () => {
    expectError((await importUrl('https://files.example.test/huge-declared').expect(413)).body, 'PAYLOAD_TOO_LARGE');
    expectError((await importUrl('https://files.example.test/huge-stream').expect(413)).body, 'PAYLOAD_TOO_LARGE');
  });

  it('gives up on a download that takes too long, and on failing servers (IMPORT_FAILED)', async () => {
    const slow = await importUrl('https://files.example.test/slow').expect(422);
    expectError(slow.body, 'IMPORT_FAILED');
    expect(slow.body.error.message).toMatch(/took longer|timed out/);
    expectError((await importUrl('https://files.example.test/missing').expect(422)).body, 'IMPORT_FAILED');
    expectError((await importUrl('https://files.example.test/gzip').expect(422)).body, 'IMPORT_FAILED');
    expectError((await importUrl('https://files.example.test/redirect/loop').expect(422)).body, 'IMPORT_FAILED');
    expectError((await importUrl('https://unknown.example.test/image.png').expect(422)).body, 'IMPORT_FAILED');
  });

  it('validates the body', async () => {
    for (const body of [{}, { url: 'https://files.example.test/image.png' }, { name: 'a' }, { url: 'not a url', name: 'a' }, { url: 'https://files.example.test/image.png', name: '' }, { url: 'https://files.example.test/image.png', name: 'a', extra: 1 }]) {
      const res = await t.http().post('/v1/uploads/import').set(bearer(alice)).send(body).expect(400);
      expectError(res.body, 'VALIDATION_ERROR');
    }
    await t.http().post('/v1/uploads/import').send({ url: 'https://files.example.test/image.png', name: 'a' }).expect(401);
  });
});

describe('import trust', () => {
  it('does not trust a certificate the network does not vouch for (the test CA is only added by the test network)', async () => {
    const https = await startHttpsServer(routes);
    const network = new TestImportNetwork(NAMES, { port: https.port, ca: null });
    const t = await startTestApp({ overrides: { assets: { importNetwork: network } } });
    try {
      const alice = await createAccount(t);
      const res = await t.http().post('/v1/uploads/import').set(bearer(alice)).send({ url: 'https://files.example.test/image.png', name: 'a.png' }).expect(422);
      expectError(res.body, 'IMPORT_FAILED');
      expect(res.body.error.message).toMatch(/TLS|certificate/i);
    } finally {
      await t.close();
      await https.close();
    }
  });
});
