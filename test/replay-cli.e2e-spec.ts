import request from 'supertest';
import { createServer } from 'node:net';
import { EventStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { AdminServer } from '@gensvc/operations';
import { createAccount } from './support/accounts';
import { ADMIN_CLI, buildApps, oneJson, runCli } from './support/operations-cli';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'cli-admin-token-0123456789abcdef';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('npm run admin -- replay', () => {
  let t: TestApp;
  let adminPort: number;
  const replay = (env: Record<string, string | undefined>, ...args: string[]) =>
    runCli(ADMIN_CLI, ['replay', ...args], { DATA_DIR: t.dataDir, HOST: '127.0.0.1', ...env });
  const history = async () =>
    (await request(`http://127.0.0.1:${adminPort}`).get('/admin/replays').set('Authorization', `Bearer ${TOKEN}`).expect(200)).body.data as { replay_id: string }[];

  beforeAll(async () => {
    buildApps(ADMIN_CLI);
    t = await startTestApp({ env: { ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0' } });
    adminPort = t.app.get(AdminServer).address()!.port;
    for (let i = 0; i < 3; i++) await createAccount(t, { name: `cli ${i}` });
  }, 300_000);
  afterAll(() => t.close());

  it('asks the running server through the admin endpoint when ADMIN_TOKEN is set', async () => {
    const head = Number(await t.app.get(EventStore).headPosition());
    const run = await replay({ ADMIN_TOKEN: TOKEN, ADMIN_PORT: String(adminPort) });
    expect(run.code).toBe(0);
    const out = oneJson(run.stdout);
    expect(Object.keys(out).sort()).toEqual(['events', 'projections', 'seconds']);
    expect(out.projections).toEqual(t.app.get(SubscriptionEngine).listProjections().map((p) => p.name));
    expect(out.events).toBe(head);
    expect(out.seconds).toEqual(expect.any(Number));
    // the progress bar went to stderr
    expect(run.stderr).toMatch(new RegExp(`100% \\| ${head}/${head} events \\| \\d+ events/s \\| ETA 0s \\| done`));
    // the server did it: its history lists the run
    expect((await history()).length).toBe(1);
  });

  it('replays one projection by name', async () => {
    const run = await replay({ ADMIN_TOKEN: TOKEN, ADMIN_PORT: String(adminPort) }, '--projection', 'identity.api_keys');
    expect(run.code).toBe(0);
    expect(oneJson(run.stdout).projections).toEqual(['identity.api_keys']);
  });

  it('fails with an error object for an unknown projection or a wrong token', async () => {
    const unknown = await replay({ ADMIN_TOKEN: TOKEN, ADMIN_PORT: String(adminPort) }, '--projection', 'nope');
    expect(unknown.code).not.toBe(0);
    expect(oneJson(unknown.stdout)).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('nope') } });
    const wrong = await replay({ ADMIN_TOKEN: 'some-other-token-0123456789', ADMIN_PORT: String(adminPort) });
    expect(wrong.code).not.toBe(0);
    expect(oneJson(wrong.stdout)).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    const unknownLocal = await replay({ ADMIN_TOKEN: '' }, '--projection', 'nope');
    expect(unknownLocal.code).not.toBe(0);
    expect(oneJson(unknownLocal.stdout).error).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('replays in its own process without a reachable admin endpoint, into the read store the server shares', async () => {
    const before = (await history()).length;
    const envs = [{ ADMIN_TOKEN: '' }, { ADMIN_TOKEN: TOKEN, ADMIN_PORT: String(await closedPort()) }];
    for (const [i, env] of envs.entries()) {
      const head = Number(await t.app.get(EventStore).headPosition());
      const run = await replay(env);
      expect(run.code).toBe(0);
      const out = oneJson(run.stdout);
      expect(out).toEqual({ projections: expect.arrayContaining(['identity.accounts', 'operations.replay-history']), events: head, seconds: expect.any(Number) });
      // the run is recorded in DATA_DIR/read.db, which the server serves: its history lists it
      const deadline = Date.now() + 5000;
      while ((await history()).length < before + i + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect((await history()).length).toBe(before + i + 1);
    }
    // the server's read models still answer
    await t.http().get('/v1/models').expect(200);
  });
});
