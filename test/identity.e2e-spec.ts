import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setLogDestination } from '@gensvc/logging';
import { Authenticator, UploadTokens, routeTable } from '@gensvc/identity';
import { WalletCommands } from '@gensvc/wallet';
import { startTestApp, type TestApp } from './support/test-app';
import { authorizeInBrowser, bearer, createAccount, createApiKey, createOAuthClient, oauthToken, revokeApiKey } from './support/accounts';

const ROOT = join(__dirname, '..');

const CLI = join(ROOT, 'dist', 'apps', 'admin', 'src', 'main.js');

/**
 * Builds once (`nest build api` compiles the admin CLI too). Type errors elsewhere in the
 * tree do not stop tsc from emitting, so only a missing entry point fails.
 */
function buildCli(): void {
  spawnSync(process.execPath, [join(ROOT, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build', 'api'], { cwd: ROOT, stdio: 'ignore', timeout: 200_000 });
  if (!existsSync(CLI)) throw new Error('the admin CLI did not build');
}

/** Runs the real admin CLI (what `npm run admin` runs after building). */
function admin(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string; endedAt: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, endedAt: Date.now() }));
  });
}

/** Exactly one JSON object on stdout. */
function oneJson(stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n').filter((l) => l.trim());
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

/** Whether the running server accepts the key: over HTTP when a private GET route exists, else through its authenticator. */
async function accepted(t: TestApp, apiKey: string): Promise<boolean> {
  const route = routeTable(t.app).find((r) => r.method === 'GET' && r.rule?.kind === 'scope' && !r.path.includes(':'));
  if (route) {
    const res = await t.http().get(route.path).set(bearer(apiKey));
    return res.status !== 401;
  }
  return (await t.app.get(Authenticator).verifyBearer(apiKey)) !== null;
}

async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not visible within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('accounts and API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('createAccount gives a key the server accepts at once; revocation is at once too', async () => {
    const a = await createAccount(t);
    expect(a.accountId).toMatch(/^acc_/);
    expect(a.keyId).toMatch(/^key_/);
    expect(await accepted(t, a.apiKey)).toBe(true);
    const second = await createApiKey(t, a.accountId);
    await revokeApiKey(t, a.keyId);
    expect(await accepted(t, a.apiKey)).toBe(false);
    expect(await accepted(t, second.apiKey)).toBe(true);
  });

  it('createAccount credits the wallet when asked', async () => {
    const a = await createAccount(t, { credit: '7.25' });
    expect(await t.app.get(WalletCommands, { strict: false }).view(a.accountId)).toMatchObject({ balance: '7.250000', available: '7.250000' });
  });

  it('stores keys only as hashes', async () => {
    const a = await createAccount(t, { email: 'hash@example.com', password: 'never stored plainly' });
    const { readFileSync } = await import('node:fs');
    const db = readFileSync(join(t.dataDir, 'events.db')).toString('latin1') + readFileSync(join(t.dataDir, 'events.db-wal'), { flag: 'a+' }).toString('latin1');
    expect(db).toContain(a.keyId);
    expect(db).not.toContain(a.apiKey);
    const randomPart = a.apiKey.slice(`gsk_${a.keyId.replace(/^key_/, '')}_`.length);
    expect(randomPart).toHaveLength(43);
    expect(db).not.toContain(randomPart);
    expect(db).not.toContain('never stored plainly');
  });

  describe('admin CLI against the running server (same DATA_DIR)', () => {
    beforeAll(buildCli, 240_000);

    it('creates accounts and keys the server sees within 1 s, and revokes them as fast', async () => {
      const created = await admin(t.dataDir, 'account', 'create', '--name', 'Cli User', '--email', 'cli@example.com', '--password', 'cli password 123');
      expect(created.code).toBe(0);
      const acc = oneJson(created.stdout);
      expect(Object.keys(acc).sort()).toEqual(['account_id', 'api_key']);
      expect(created.stdout + created.stderr).not.toContain('cli password 123');
      expect(await within(1000, () => accepted(t, acc.api_key as string))).toBeLessThan(1000);

      const key = await admin(t.dataDir, 'api-key', 'create', '--account', acc.account_id as string);
      expect(key.code).toBe(0);
      const k = oneJson(key.stdout);
      expect(Object.keys(k).sort()).toEqual(['api_key', 'key_id']);
      expect(k.key_id).toMatch(/^key_/);
      await within(1000, () => accepted(t, k.api_key as string));

      const revoke = await admin(t.dataDir, 'api-key', 'revoke', '--key-id', k.key_id as string);
      expect(revoke.code).toBe(0);
      expect(oneJson(revoke.stdout)).toEqual({ key_id: k.key_id, revoked: true });
      expect(await within(1000, async () => !(await accepted(t, k.api_key as string)))).toBeLessThan(1000);
      expect(await accepted(t, acc.api_key as string)).toBe(true);

      const client = await admin(t.dataDir, 'oauth-client', 'create', '--name', 'CLI app', '--redirect-uri', 'http://127.0.0.1:9/cb');
      expect(client.code).toBe(0);
      const c = oneJson(client.stdout);
      expect(c).toEqual({ client_id: expect.stringMatching(/^client_/), client_secret: expect.any(String) });
      const pub = oneJson((await admin(t.dataDir, 'oauth-client', 'create', '--name', 'SPA', '--redirect-uri', 'https://spa.example/cb', '--public')).stdout);
      expect(pub).toEqual({ client_id: expect.stringMatching(/^client_/), client_secret: null });

      // The CLI-registered client and login work in the running server at once.
      const q = new URLSearchParams({ response_type: 'code', client_id: c.client_id as string, redirect_uri: 'http://127.0.0.1:9/cb', scope: 'read', state: 's' });
      const back = await authorizeInBrowser(t, `/authorize?${q}`, { email: 'cli@example.com', password: 'cli password 123' });
      expect(back.searchParams.get('code')).toMatch(/^gsc_/);
    }, 60_000);

    it('credits the new account with --credit', async () => {
      const created = await admin(t.dataDir, 'account', 'create', '--name', 'Rich', '--credit', '12.5');
      expect(created.code).toBe(0);
      const acc = oneJson(created.stdout);
      expect(Object.keys(acc).sort()).toEqual(['account_id', 'api_key']);
      await within(1000, async () => (await t.app.get(WalletCommands, { strict: false }).view(acc.account_id as string)).balance === '12.500000');
      const bad = await admin(t.dataDir, 'account', 'create', '--name', 'Poor', '--credit', '-3');
      expect(bad.code).not.toBe(0);
      expect(oneJson(bad.stdout)).toMatchObject({ error: { code: expect.stringMatching(/VALIDATION_ERROR|USAGE/) } });
    }, 60_000);

    it('fails with an error JSON on stdout and a non-zero exit', async () => {
      const unknown = await admin(t.dataDir, 'api-key', 'create', '--account', 'acc_nope');
      expect(unknown.code).not.toBe(0);
      expect(oneJson(unknown.stdout)).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
      const usage = await admin(t.dataDir, 'account', 'create');
      expect(usage.code).not.toBe(0);
      expect(oneJson(usage.stdout)).toMatchObject({ error: { code: 'USAGE' } });
      const badUri = await admin(t.dataDir, 'oauth-client', 'create', '--name', 'x', '--redirect-uri', 'http://evil.example/cb');
      expect(badUri.code).not.toBe(0);
      expect(oneJson(badUri.stdout)).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
      const dup = await admin(t.dataDir, 'account', 'create', '--name', 'Again', '--email', 'CLI@example.com', '--password', 'another password');
      expect(dup.code).not.toBe(0);
      expect(oneJson(dup.stdout)).toMatchObject({ error: { code: 'CONFLICT' } });
    }, 60_000);
  });
});

describe('no credential in the logs', () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    setLogDestination({ write: (s: string) => void lines.push(s) } as never);
    t = await startTestApp({ env: { LOG_LEVEL: 'trace' } });
  });
  afterAll(async () => {
    await t.close();
    setLogDestination(undefined);
  });

  it('logs requests but never keys, passwords, codes, tokens, client secrets, upload tokens or supplier callback tokens', async () => {
    const secrets: string[] = [];
    const password = 'log-check password 42';
    const a = await createAccount(t, { email: 'logs@example.com', password });
    secrets.push(a.apiKey, password);
    await accepted(t, a.apiKey);
    await t.http().get('/v1/models').set(bearer(a.apiKey)).expect(200);
    await t.http().get(`/v1/models?access_token=${a.apiKey}`);
    const client = await createOAuthClient(t);
    secrets.push(client.clientSecret!);
    const token = await oauthToken(t, 'read create', { accountId: a.accountId, email: 'logs@example.com', password });
    secrets.push(token.accessToken, token.refreshToken);
    const refreshed = await t.http().post('/token').type('form').send({ grant_type: 'refresh_token', refresh_token: token.refreshToken, client_id: token.clientId, client_secret: 'gcs_wrong' });
    expect(refreshed.status).toBe(401);
    // a failing code exchange echoes nothing secret either
    const q = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'read' });
    const back = await authorizeInBrowser(t, `/authorize?${q}`, { email: 'logs@example.com', password });
    const code = back.searchParams.get('code')!;
    secrets.push(code);
    const bad = await t.http().post('/token').type('form').auth(client.clientId, client.clientSecret!).send({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/other' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toContain(code);
    const upload = await t.app.get(UploadTokens).issue({ accountId: a.accountId, connectionId: a.keyId, uploadId: 'up_x', expiresAt: new Date(Date.now() + 60_000) });
    secrets.push(upload);
    await t.http().put('/v1/uploads/up_x/content').set('X-Upload-Token', upload).send('x');
    await t.http().get('/v1/models').set('X-Upload-Token', upload);
    // A supplier callback address carries its task's secret token in the path.
    const callbackToken = 'cbt_' + 'k9'.repeat(24);
    secrets.push(callbackToken);
    await t.http().post(`/v1/supplier-callbacks/${callbackToken}`).set('Content-Type', 'application/json').send('{"status":"succeeded"}');
    await t.http().post(`/V1/Supplier-Callbacks/${callbackToken}/`).set('Content-Type', 'application/json').send('{}');
    expect(lines.join('')).toContain('"path":"/v1/supplier-callbacks/[redacted]"');

    const log = lines.join('');
    expect(log).toContain('"msg":"request"');
    expect(log).toContain('/token');
    for (const s of secrets) {
      expect(log).not.toContain(s);
      // nor the random part alone (after the type prefix and, for API keys, the key id);
      // splitting at the last '_' would not do: base64url secrets contain '_' themselves
      const randomPart = s.replace(/^[a-z]{2,4}_(?:[0-9a-z]{26}_)?/, '');
      expect(randomPart.length).toBeGreaterThanOrEqual(16);
      expect(log).not.toContain(randomPart);
    }
  });
});
