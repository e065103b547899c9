import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SharedCounters } from '@gensvc/http';
import { Authenticator } from '@gensvc/identity';
import { FixedClock } from '@gensvc/kernel';
import type { ReconciledCounters } from '../apps/api/src/rate-limit/reconciled-counters';
import { bearer, createAccount, createApiKey, createOAuthClient } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';

/**
 * The limits count in fixed windows of the service clock (a minute; 15 minutes for sign-ins).
 * The apps here run on a clock that stands still, so all the requests of a test fall in one window.
 */
const stillClock = () => new FixedClock(new Date());

/**
 * Has each app send its hits to the shared store and read back the totals, which then include
 * the others' hits: what the background reconciliation does every 200 ms. Each flushes twice,
 * since a flush already under way when asked may have begun before the latest hits.
 */
async function reconcile(...apps: TestApp[]): Promise<void> {
  for (const t of [...apps, ...apps]) {
    const counters = t.app.get(SharedCounters, { strict: false }) as ReconciledCounters;
    await counters.flush();
    await counters.flush();
  }
}

/** Polls `check` every 25 ms; fails naming `what` after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const textQuote = { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } };

function expectRateLimited(res: { status: number; body: unknown; headers: Record<string, string> }, policy: string): void {
  expect(res.status).toBe(429);
  expectError(res.body, 'RATE_LIMITED');
  const retry = Number(res.headers['retry-after']);
  expect(Number.isInteger(retry) && retry >= 1 && retry <= 60).toBe(true);
  expect(res.headers['ratelimit-policy']).toContain(policy);
  expect(res.headers['ratelimit']).toMatch(new RegExp(`"${policy.split(';')[0].replace(/"/g, '')}";r=0;t=\\d+`));
}

describe('rate limits (CONTRACT §13)', () => {
  describe('with the defaults', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ overrides: { clock: stillClock() } });
    });
    afterAll(() => t.close());

    it('announces the policies: 3,000 per minute per credential, 600 task creations, 3,000 per address', async () => {
      const acc = await createAccount(t, { credit: '1.00' });
      const authed = await t.http().get('/v1/wallet').set(bearer(acc)).expect(200);
      expect(authed.headers['ratelimit-policy']).toBe('"credential";q=3000;w=60');
      expect(authed.headers['ratelimit']).toMatch(/^"credential";r=2999;t=\d+$/);
      const q = await t.http().post('/v1/quotes').set(bearer(acc)).send(textQuote).expect(200);
      const created = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', 'policy-0001').send({ quote_id: q.body.quote_id }).expect(202);
      expect(created.headers['ratelimit-policy']).toBe('"credential";q=3000;w=60, "tasks";q=600;w=60');
      expect(created.headers['ratelimit']).toMatch(/^"credential";r=2997;t=\d+, "tasks";r=599;t=\d+$/);
      const anonymous = await t.http().get('/v1/models').expect(200);
      expect(anonymous.headers['ratelimit-policy']).toBe('"address";q=3000;w=60');
    });
  });

  describe('with low limits', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: '8', RATE_LIMIT_TASK_CREATIONS: '2', RATE_LIMIT_PER_ADDRESS: '5' }, overrides: { clock: stillClock() } });
    });
    afterAll(() => t.close());

    it('refuses the request after the limit per credential with 429, Retry-After and the headers; another key has its own allowance', async () => {
      const acc = await createAccount(t);
      for (let i = 0; i < 8; i++) await t.http().get('/v1/wallet').set(bearer(acc)).expect(200);
      expectRateLimited(await t.http().get('/v1/wallet').set(bearer(acc)), '"credential";q=8;w=60');
      const other = await createApiKey(t, acc.accountId);
      await t.http().get('/v1/wallet').set(bearer(other.apiKey)).expect(200);
    });

    it('limits task creations separately, and a refused creation reserves nothing', async () => {
      const acc = await createAccount(t, { credit: '1.00' });
      for (let i = 0; i < 2; i++) {
        const q = await t.http().post('/v1/quotes').set(bearer(acc)).send(textQuote).expect(200);
        await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `tasks-limit-${i}-0001`).send({ quote_id: q.body.quote_id }).expect(202);
      }
      const q = await t.http().post('/v1/quotes').set(bearer(acc)).send(textQuote).expect(200);
      const refused = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', 'tasks-limit-2-0001').send({ quote_id: q.body.quote_id });
      expectRateLimited(refused, '"tasks";q=2;w=60');
      const wallet = await t.http().get('/v1/wallet').set(bearer(acc)).expect(200);
      expect(wallet.body.reserved).toBe('0.040000');
    });

    it('counts requests without a valid credential per address, wrong credentials included', async () => {
      let last;
      for (let i = 0; i < 5; i++) {
        last = await t.http().get('/v1/wallet').set(bearer(`gsk_wrong${i}`));
        expect(last.status).toBe(401);
      }
      expectRateLimited(await t.http().get('/v1/models'), '"address";q=5;w=60');
      expectRateLimited(await t.http().get('/v1/wallet').set(bearer('gsk_another_wrong_one')), '"address";q=5;w=60');
      // a valid credential is counted for itself, not for the address
      const acc = await createAccount(t);
      await t.http().get('/v1/wallet').set(bearer(acc)).expect(200);
    });
  });

  it('RATE_LIMITS=off lifts the request limits (benchmarks)', async () => {
    const t = await startTestApp({ env: { RATE_LIMITS: 'off', RATE_LIMIT_PER_ADDRESS: '1' } });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await t.http().get('/v1/models').expect(200);
        expect(res.headers['ratelimit']).toBeUndefined();
      }
    } finally {
      await t.close();
    }
  });

  it('holds across processes that share one DATA_DIR (counts in the shared store)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gensvc-e2e-'));
    const env = { RATE_LIMIT_PER_CREDENTIAL: '10' };
    const clock = stillClock(); // one window for both
    const a = await startTestApp({ dataDir, env, overrides: { clock } });
    const b = await startTestApp({ dataDir, env, overrides: { clock } });
    try {
      const acc = await createAccount(a);
      await until('process b to know the new key', async () => Boolean(await b.app.get(Authenticator).verifyBearer(acc.apiKey)));
      for (let i = 0; i < 6; i++) await a.http().get('/v1/wallet').set(bearer(acc)).expect(200);
      await reconcile(a, b);
      await b.http().get('/v1/wallet').set(bearer(acc)).expect(200); // 7
      await reconcile(b, a);
      for (let i = 0; i < 3; i++) await b.http().get('/v1/wallet').set(bearer(acc)).expect(200); // 8, 9, 10
      expectRateLimited(await b.http().get('/v1/wallet').set(bearer(acc)), '"credential";q=10;w=60');
      await reconcile(b, a);
      expectRateLimited(await a.http().get('/v1/wallet').set(bearer(acc)), '"credential";q=10;w=60');
    } finally {
      await b.close();
      await a.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe('failed sign-ins', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { SIGNIN_FAILURES_PER_ACCOUNT: '3', SIGNIN_FAILURES_PER_ADDRESS: '5' }, overrides: { clock: stillClock() } });
    });
    afterAll(() => t.close());

    async function signIn(email: string, password: string) {
      const client = await createOAuthClient(t);
      const agent = (await import('supertest')).default.agent(t.app.getHttpServer());
      const q = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'read', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' });
      const page = await agent.get(`/authorize?${q}`).expect(200);
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.text)![1];
      return agent.post(`/authorize?${q}`).type('form').send({ action: 'login', email, password, transaction_id: field('transaction_id'), csrf_token: field('csrf_token') });
    }

    it('throttles an account after its failures, even with the right password, and says when to retry', async () => {
      await createAccount(t, { email: 'victim@example.com', password: 'the right password' });
      for (let i = 0; i < 3; i++) expect((await signIn('victim@example.com', `guess ${i}`)).status).toBe(401);
      const throttled = await signIn('Victim@Example.com', 'the right password');
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
      expect(throttled.text).toContain('Too many failed sign-ins');
    });

    it('throttles an address after its failures across accounts', async () => {
      await createAccount(t, { email: 'other@example.com', password: 'another right password' });
      // 3 failures of the test above plus 2 here: the address reaches 5
      for (let i = 0; i < 2; i++) expect((await signIn(`nobody${i}@example.com`, 'x')).status).toBe(401);
      expect((await signIn('other@example.com', 'another right password')).status).toBe(429);
    });
  });
});

describe('CORS (CONTRACT §13)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each(['/v1/tasks', '/v1/uploads/up_x/content', '/token', '/revoke'])('answers a preflight to %s from any origin, without cookies', async (path) => {
    const res = await t
      .http()
      .options(path)
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', path.endsWith('content') ? 'PUT' : 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type, idempotency-key, x-upload-token')
      .expect(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toContain(path.endsWith('content') ? 'PUT' : 'POST');
    for (const h of ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Upload-Token']) expect(res.headers['access-control-allow-headers']).toContain(h);
  });

  it('lets pages read the request id, Retry-After and the rate-limit headers, also on errors', async () => {
    const ok = await t.http().get('/v1/models').set('Origin', 'https://app.example').expect(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    for (const h of ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy']) expect(ok.headers['access-control-expose-headers']).toContain(h);
    const denied = await t.http().get('/v1/wallet').set('Origin', 'https://app.example').expect(401);
    expect(denied.headers['access-control-allow-origin']).toBe('*');
    const token = await t.http().post('/token').set('Origin', 'https://app.example').type('form').send({ grant_type: 'authorization_code', client_id: 'client_none' }).expect(401);
    expect(token.headers['access-control-allow-origin']).toBe('*');
  });

  it('does not open the sign-in page to other origins', async () => {
    const res = await t.http().options('/authorize').set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'POST');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const page = await t.http().get('/authorize').set('Origin', 'https://evil.example');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
  });
});
