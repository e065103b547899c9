import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SubscriptionEngine } from '@gensvc/shared';
import { ALL_PROJECTIONS } from '../apps/api/src/projector/projections';
import { ADMIN_CLI, buildApps, oneJson, runCli } from './support/operations-cli';
import { API_ENTRY, startServer, type ServerProcess } from './support/processes';
import { startTestApp } from './support/test-app';

/**
 * PROJECTIONS=thread (the default of the built app on the embedded stores): a worker thread
 * writes the read models while the event loop answers requests, and every answer after a
 * command still reads its own writes.
 */
describe('projections in a thread of their own', () => {
  let dir: string;
  const running: ServerProcess[] = [];

  beforeAll(() => {
    buildApps(ADMIN_CLI);
    buildApps(API_ENTRY);
  });
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gensvc-projector-'))));
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map((p) => p.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string> = {}) => {
    const p = await startServer(dir, env);
    running.push(p);
    return p;
  };
  const call = async (base: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  it('the thread runs every projection the app composes', async () => {
    const app = await startTestApp();
    try {
      const discovered = app.app.get(SubscriptionEngine).listProjections().map((p) => p.name);
      expect(ALL_PROJECTIONS.map((P) => new P().name).sort()).toEqual([...discovered].sort());
    } finally {
      await app.close();
    }
  });

  it('reads after each creation see it, and a restart after SIGKILL leaves the read models complete', async () => {
    const made = await runCli(ADMIN_CLI, ['account', 'create', '--name', 'projector', '--credit', '100.000000'], { DATA_DIR: dir });
    expect(made.code).toBe(0);
    const key = oneJson(made.stdout).api_key as string;
    const server = await start();
    const health = await (await fetch(`${server.url}/health/ready`)).json();
    expect(health).toMatchObject({ status: 'ready', projections: 'elsewhere' });

    const created: string[] = [];
    const createOne = async () => {
      const q = await call(server.url, key, 'POST', '/v1/quotes', { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'thread' } });
      expect(q.status).toBe(200);
      const t = await call(server.url, key, 'POST', '/v1/tasks', { quote_id: q.body.quote_id }, { 'idempotency-key': randomUUID() });
      expect(t.status).toBe(202);
      // read-your-writes: the task, the list and the wallet show the creation at once
      const got = await call(server.url, key, 'GET', `/v1/tasks/${t.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body.id).toBe(t.body.id);
      created.push(t.body.id);
    };
    for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 8 }, createOne));
    const list = await call(server.url, key, 'GET', '/v1/tasks?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.data.map((t: { id: string }) => t.id).sort()).toEqual([...created].sort());
    const wallet = await call(server.url, key, 'GET', '/v1/wallet');
    expect(Number(wallet.body.balance) - Number(wallet.body.available)).toBeGreaterThan(0);

    await server.kill();
    running.splice(running.indexOf(server), 1);
    // the same read.db, projected by the event loop this time: nothing missing, nothing twice
    const again = await start({ PROJECTIONS: 'inline' });
    expect(await (await fetch(`${again.url}/health/ready`)).json()).toMatchObject({ projections: 'here' });
    const after = await call(again.url, key, 'GET', '/v1/tasks?limit=100');
    expect(after.body.data.map((t: { id: string }) => t.id).sort()).toEqual([...created].sort());
    expect(after.body.has_more).toBe(false);
  });
});
