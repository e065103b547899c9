import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DownloadIntegrityError, Gensvc } from '../src/index';
import { downloadAsset } from '../src/node';

/** The asset API and its signed file link, on a real socket. */
let server: Server;
let baseUrl: string;
let dir: string;
let file: Buffer;
let served: Buffer;
let requests: { url: string; range?: string; ifRange?: string; auth?: string }[];
/** How the file link answers: `cut` breaks the first body after that many bytes; `expired` answers 403 that many times. */
let behaviour: { cut?: number; expired?: number };

const checksum = () => createHash('sha256').update(file).digest('hex');

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push({ url: req.url!, range: req.headers.range, ifRange: req.headers['if-range'] as string | undefined, auth: req.headers.authorization });
    if (req.url === '/v1/assets/ast_1') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ id: 'ast_1', name: 'out.bin', download_name: '../out.bin', size: file.length, checksum: checksum(), download_url: `${baseUrl}/files/ast_1?sig=${requests.length}` }));
    }
    if (req.url!.startsWith('/files/ast_1')) {
      if (behaviour.expired) {
        behaviour.expired--;
        res.writeHead(403, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ error: { code: 'FORBIDDEN', message: 'expired', request_id: 'r' } }));
      }
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const start = m && req.headers['if-range'] === `"${checksum()}"` ? Number(m[1]) : 0;
      const body = served.subarray(start);
      res.writeHead(start ? 206 : 200, { 'Content-Length': body.length, ...(start ? { 'Content-Range': `bytes ${start}-${served.length - 1}/${served.length}` } : {}) });
      if (behaviour.cut !== undefined) {
        const cut = behaviour.cut;
        behaviour.cut = undefined;
        res.write(body.subarray(0, cut));
        return setTimeout(() => req.socket.destroy(), 20);
      }
      return res.end(body);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdk-download-'));
  file = randomBytes(200_000);
  served = file;
  requests = [];
  behaviour = {};
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const client = () => new Gensvc({ baseUrl, apiKey: 'gsk_test', retryDelayMs: 5 });

describe('downloadAsset', () => {
  it('writes the asset under its download name (made safe) in a directory, without the account credential on the link', async () => {
    const progress: number[] = [];
    const done = await downloadAsset(client(), 'ast_1', dir, { onProgress: (loaded) => progress.push(loaded) });
    expect(done).toEqual({ asset_id: 'ast_1', path: join(dir, 'out.bin'), size: file.length, checksum: checksum() });
    expect(readFileSync(done.path)).toEqual(file);
    expect(readdirSync(dir)).toEqual(['out.bin']);
    expect(progress[progress.length - 1]).toBe(file.length);
    expect(requests.find((r) => r.url.startsWith('/files/'))!.auth).toBeUndefined();
  });

  it('goes on with Range and If-Range from where a broken transfer stopped', async () => {
    behaviour.cut = 70_000;
    const done = await downloadAsset(client(), 'ast_1', join(dir, 'x.bin'));
    expect(readFileSync(done.path)).toEqual(file);
    const gets = requests.filter((r) => r.url.startsWith('/files/'));
    expect(gets).toHaveLength(2);
    expect(gets[1].range).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(gets[1].range!)![0])).toBeGreaterThan(0);
    expect(gets[1].ifRange).toBe(`"${checksum()}"`);
  });

  it('continues a part file an earlier call left behind', async () => {
    const target = join(dir, 'x.bin');
    writeFileSync(`${target}.${checksum().slice(0, 16)}.part`, file.subarray(0, 123_456));
    await downloadAsset(client(), 'ast_1', target);
    expect(readFileSync(target)).toEqual(file);
    expect(requests.filter((r) => r.url.startsWith('/files/')).map((r) => r.range)).toEqual(['bytes=123456-']);
  });

  it('fetches fresh links once when the link expired', async () => {
    behaviour.expired = 1;
    const done = await downloadAsset(client(), 'ast_1', join(dir, 'x.bin'));
    expect(readFileSync(done.path)).toEqual(file);
    expect(requests.filter((r) => r.url === '/v1/assets/ast_1')).toHaveLength(2);
  });

  it('refuses bytes that do not match the asset, keeping no file', async () => {
    served = Buffer.from(file);
    served[10] ^= 0xff;
    await expect(downloadAsset(client(), 'ast_1', join(dir, 'x.bin'))).rejects.toBeInstanceOf(DownloadIntegrityError);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, 'x.bin'))).toBe(false);
  });
});
