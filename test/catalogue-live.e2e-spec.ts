import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStore, RequestContexts } from '@gensvc/event-sourcing';
import { loadConfig } from '@gensvc/config';
import { createAdminApp } from '../apps/admin/src/admin.module';
import type { AdminUseCases } from '../apps/admin/src/admin-use-cases';
import { COMMANDS } from '../apps/admin/src/commands';
import { startTestApp, expectError, type TestApp } from './support/test-app';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { ADMIN_CLI, buildApps, oneJson, runCli } from './support/operations-cli';
import { OpenAiStandIn } from '@gensvc/suppliers/testing/stand-ins/openai.stand-in';

const ROOT = join(__dirname, '..');
/** The repository's catalogue, as plain JSON to edit. */
interface PlainFile {
  version: string;
  currency: string;
  models: { id: string; available: boolean; supplier?: string; pricing: { prices: { unit_price: string }[] }[] }[];
}
const repositoryCatalogue = (): PlainFile => JSON.parse(readFileSync(join(ROOT, 'libs', 'catalogue', 'catalogue', 'catalogue.json'), 'utf8'));
const model = (f: PlainFile, id: string) => f.models.find((m) => m.id === id)!;

/** Polls `check` until it holds; fails when `ms` pass first (for a publish: CONTRACT §1, the server serves it within 1 s). */
async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > ms) throw new Error(`not visible within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Runs an admin command as the CLI's main does (its words, arguments and `--flag value`s, actor `admin`), in this process. */
async function adminCommand(admin: { use: AdminUseCases }, ...argv: string[]): Promise<unknown> {
  const command = COMMANDS.filter((c) => c.words.every((w, i) => argv[i] === w)).sort((a, b) => b.words.length - a.words.length)[0]!;
  const rest = argv.slice(command.words.length);
  const flags = Object.fromEntries(rest.flatMap((a, i) => (a.startsWith('--') ? [[a.slice(2), rest[i + 1]!]] : [])));
  const args = rest.filter((a, i) => !a.startsWith('--') && !rest[i - 1]?.startsWith('--'));
  return RequestContexts.run({ requestId: `admin_${Date.now()}`, actor: 'admin' }, () => command.run(admin.use, flags, args));
}

describe('a catalogue published while the server serves', () => {
  let t: TestApp;
  let admin: { app: INestApplicationContext; use: AdminUseCases };
  let acc: TestAccount;
  const write = (content: unknown) => {
    const path = join(t.dataDir, `catalogue-${randomUUID()}.json`);
    writeFileSync(path, JSON.stringify(content, null, 2));
    return path;
  };
  const quote = async (body: object) => (await t.http().post('/v1/quotes').set(bearer(acc)).send(body).expect(200)).body;
  const create = (quoteId: string) => t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: quoteId });
  const listed = async (id: string) => ((await t.http().get('/v1/models').expect(200)).body.data as { id: string; available: boolean; prices: { unit_price: string; price_version: string }[] }[]).find((m) => m.id === id);
  const wallet = async () => (await t.http().get('/v1/wallet').set(bearer(acc)).expect(200)).body;

  beforeAll(async () => {
    t = await startTestApp();
    // The admin CLI's application on the same data directory, beside the running server.
    admin = await createAdminApp(loadConfig({ DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' }), { logger: false });
    acc = await createAccount(t, { credit: '10.00' });
  }, 60_000);
  afterAll(async () => {
    await admin?.app.close();
    await t?.close();
  });

  it('serves the new prices within a second, charges a quote issued before its own price, and refuses a quote of a model it made unavailable', async () => {
    const text = await quote({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'a haiku' } });
    const image = await quote({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a fox' } });
    expect(text).toMatchObject({ unit_price: '0.020000', estimated_amount: '0.020000' });

    const next = repositoryCatalogue();
    model(next, 'text-writer-lite').pricing[0]!.prices[0]!.unit_price = '0.050000';
    model(next, 'image-studio-v2').available = false;
    const published = (await adminCommand(admin, 'catalogue', 'publish', write(next))) as { version: number; changes: { model: string; change: string }[] };
    expect(published.version).toBe(2);
    expect(published.changes.map((c) => `${c.model} ${c.change}`)).toEqual(['text-writer-lite price', 'text-writer-lite price_version', 'image-studio-v2 available']);

    await within(1000, async () => (await listed('text-writer-lite'))?.prices[0]?.unit_price === '0.050000');
    expect((await listed('image-studio-v2'))?.available).toBe(false);
    const newVersion = (await listed('text-writer-lite'))!.prices[0]!.price_version;
    expect(newVersion).not.toBe(text.price_version);

    // The quote issued before keeps its price and price version.
    const task = (await create(text.quote_id).expect(202)).body;
    expect(task).toMatchObject({ max_amount: '0.020000', price_version: text.price_version });
    let done = task;
    await within(15_000, async () => (done = (await t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).expect(200)).body).settlement_status !== 'reserved');
    expect(done).toMatchObject({ status: 'succeeded', charged_amount: '0.020000', price_version: text.price_version });

    // A quote of the model it made unavailable no longer becomes a task, and nothing is reserved.
    const before = await wallet();
    expectError((await create(image.quote_id).expect(422)).body, 'MODEL_UNAVAILABLE');
    expect(await wallet()).toEqual(before);

    // A new quote gets the new price and price version.
    expect(await quote({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'a haiku' } })).toMatchObject({ unit_price: '0.050000', price_version: newVersion });
    await t.http().post('/v1/quotes').set(bearer(acc)).send({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a fox' } }).expect(422);

    // The version is the operator's: who and when are on the event.
    const [, event] = await t.app.get(EventStore).readStream('catalogue-main');
    expect(event).toMatchObject({ type: 'CataloguePublished', data: { version: 2, source: 'operator' }, metadata: { actor: 'admin' } });
  }, 60_000);
});

describe('a publish that adds a route', () => {
  let t: TestApp;
  let admin: { app: INestApplicationContext; use: AdminUseCases };
  let provider: OpenAiStandIn;
  const saved = process.env.SUPPLIER_CHANNELS;

  beforeAll(async () => {
    provider = await new OpenAiStandIn('sk-stand-in-0123456789', ['gpt-writer']).start();
    // A probe interval far beyond the test: only a probe the publish starts can make the model available.
    process.env.SUPPLIER_CHANNELS = JSON.stringify({ oai: { type: 'openai', base_url: provider.url, api_key: provider.key, probe_interval_s: 3600 } });
    t = await startTestApp();
    admin = await createAdminApp(loadConfig({ DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' }), { logger: false });
  }, 60_000);
  afterAll(async () => {
    await admin?.app.close();
    await t?.close();
    await provider?.stop();
    if (saved === undefined) delete process.env.SUPPLIER_CHANNELS;
    else process.env.SUPPLIER_CHANNELS = saved;
  });

  it('probes the new route at once: the model becomes available without waiting for the probe interval', async () => {
    const next = repositoryCatalogue() as PlainFile & { models: Record<string, unknown>[] };
    const { supplier: _s, supplier_model: _m, ...writer } = model(next, 'text-writer-lite') as unknown as Record<string, unknown>;
    next.models.push({ ...writer, id: 'routed-writer', name: 'Routed writer', resolved_model: 'routed-writer-1', routes: [{ channel: 'oai', supplier_model: 'gpt-writer', unit_cost: '0.004000' }] });
    const path = join(t.dataDir, 'routed.json');
    writeFileSync(path, JSON.stringify(next));
    const probesBefore = provider.requests.filter((r) => r.path === '/v1/models').length;
    expect(await adminCommand(admin, 'catalogue', 'publish', path)).toMatchObject({ version: 2, changes: [{ model: 'routed-writer', change: 'added' }] });
    // CONTRACT §14: a change shows within probe_interval_s plus 5 seconds; a new route is probed when it is published.
    await within(5000, async () => (await t.http().get('/v1/models/routed-writer')).body.available === true);
    expect(provider.requests.filter((r) => r.path === '/v1/models').length).toBeGreaterThan(probesBefore);
  }, 60_000);

  it('reports the margin of settled tasks by channel and by model: revenue charged, cost = the route\'s unit_cost × quantity', async () => {
    const acc = await createAccount(t, { credit: '5.00' });
    const run = async (modelId: string) => {
      const q = (await t.http().post('/v1/quotes').set(bearer(acc)).send({ model: modelId, capability: 'text.generate', input: { prompt: 'a haiku' } }).expect(200)).body;
      const task = (await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: q.quote_id }).expect(202)).body;
      let body = task;
      await within(15_000, async () => (body = (await t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).expect(200)).body).settlement_status !== 'reserved');
      expect(body).toMatchObject({ status: 'succeeded', settlement_status: 'settled', charged_amount: '0.020000' });
    };
    const from = new Date().toISOString();
    await run('routed-writer');
    await run('text-writer-lite');
    const byChannel = (await adminCommand(admin, 'report', 'margin', '--from', from, '--by', 'channel')) as { from: string; by: string; rows: unknown[]; total: unknown };
    expect(byChannel).toEqual({
      from,
      to: expect.any(String),
      by: 'channel',
      rows: [
        { key: 'local', tasks: 1, revenue: '0.020000', cost: '0.000000', margin: '0.020000' },
        { key: 'oai', tasks: 1, revenue: '0.020000', cost: '0.004000', margin: '0.016000' },
      ],
      total: { tasks: 2, revenue: '0.040000', cost: '0.004000', margin: '0.036000' },
    });
    expect(((await adminCommand(admin, 'report', 'margin', '--from', from)) as { rows: { key: string }[] }).rows.map((r) => r.key)).toEqual(['routed-writer', 'text-writer-lite']);
    await expect(adminCommand(admin, 'report', 'margin', '--by', 'account')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  }, 60_000);
});

describe('npm run admin -- catalogue', () => {
  let t: TestApp;
  const cli = (...args: string[]) => runCli(ADMIN_CLI, ['catalogue', ...args], { DATA_DIR: t.dataDir });
  const write = (name: string, content: unknown) => {
    const path = join(t.dataDir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  beforeAll(async () => {
    buildApps(ADMIN_CLI);
    t = await startTestApp();
  }, 300_000);
  afterAll(() => t?.close());

  it('shows the version in service as published', async () => {
    const run = await cli('show');
    expect(run.code).toBe(0);
    expect(oneJson(run.stdout)).toEqual({ version: 1, published_at: expect.any(String), catalogue: repositoryCatalogue() });
  }, 60_000);

  it('refuses a file that does not validate with an error naming the model and the field, a non-zero exit, and changes nothing', async () => {
    const bad = repositoryCatalogue();
    model(bad, 'speech-tts-std').pricing[0]!.prices[0]!.unit_price = '0.15';
    for (const command of ['publish', 'diff']) {
      const run = await cli(command, write('bad.json', bad));
      expect(run.code).not.toBe(0);
      expect(oneJson(run.stdout)).toEqual({
        error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/model speech-tts-std pricing\[0\]\.prices\[0\]\.unit_price/), model: 'speech-tts-std', field: 'pricing[0].prices[0].unit_price' },
      });
    }
    const unknownChannel = repositoryCatalogue();
    model(unknownChannel, 'text-writer-lite').supplier = 'nowhere';
    const refused = await cli('publish', write('channel.json', unknownChannel));
    expect(refused.code).not.toBe(0);
    expect(oneJson(refused.stdout)).toMatchObject({ error: { code: 'VALIDATION_ERROR', model: 'text-writer-lite', field: 'supplier' } });
    const missing = await cli('publish', join(t.dataDir, 'no-such-file.json'));
    expect([missing.code, oneJson(missing.stdout)]).toEqual([1, { error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('no-such-file.json') } }]);
    const usage = await cli('publish');
    expect([usage.code, oneJson(usage.stdout)]).toEqual([2, { error: { code: 'USAGE', message: expect.stringContaining('FILE is required') } }]);
    expect(oneJson((await cli('show')).stdout)).toMatchObject({ version: 1 });
  }, 120_000);

  it('diffs without publishing, then publishes; the running server serves it within a second', async () => {
    const next = repositoryCatalogue();
    model(next, 'voice-clone-std').pricing[0]!.prices[0]!.unit_price = '6.000000';
    const path = write('next.json', next);
    const diff = await cli('diff', path);
    expect(diff.code).toBe(0);
    expect(oneJson(diff.stdout)).toEqual({
      changes: [
        { model: 'voice-clone-std', change: 'price', capability: 'voice.clone', parameters: {}, from: '5.000000', to: '6.000000' },
        { model: 'voice-clone-std', change: 'price_version', from: expect.any(String), to: expect.any(String) },
      ],
    });
    expect(oneJson((await cli('show')).stdout)).toMatchObject({ version: 1 });
    const published = await cli('publish', path);
    expect(published.code).toBe(0);
    expect(oneJson(published.stdout)).toEqual({ version: 2, changes: oneJson(diff.stdout).changes });
    await within(1000, async () => (await t.http().get('/v1/models/voice-clone-std').expect(200)).body.prices[0].unit_price === '6.000000');
    expect(oneJson((await cli('show')).stdout)).toEqual({ version: 2, published_at: expect.any(String), catalogue: next });
    expect(oneJson((await cli('show', '--version', '1')).stdout)).toMatchObject({ version: 1, catalogue: repositoryCatalogue() });
  }, 120_000);

  it('prints the margin report as one JSON object, and refuses a window it cannot read', async () => {
    const report = await runCli(ADMIN_CLI, ['report', 'margin', '--to', '2026-11-01', '--by', 'channel'], { DATA_DIR: t.dataDir });
    expect([report.code, oneJson(report.stdout)]).toEqual([
      0,
      { from: null, to: '2026-11-01T00:00:00.000Z', by: 'channel', rows: [], total: { tasks: 0, revenue: '0.000000', cost: '0.000000', margin: '0.000000' } },
    ]);
    const bad = await runCli(ADMIN_CLI, ['report', 'margin', '--from', 'last week'], { DATA_DIR: t.dataDir });
    expect([bad.code, oneJson(bad.stdout)]).toEqual([1, { error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('--from') } }]);
  }, 60_000);
});
