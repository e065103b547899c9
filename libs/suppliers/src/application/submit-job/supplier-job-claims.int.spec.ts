import { Logger } from '@nestjs/common';
import type { EventStoreDBClient } from '@eventstore/db-client';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { SystemClock, newId } from '@gensvc/kernel';
import { type AppConfig } from '@gensvc/config';
import { type SubscriptionEngine } from '@gensvc/event-sourcing';
import { EsdbConsumerGroups, EsdbEventStore, SqliteReadStore } from '@gensvc/storage';
import { EsdbPersistentSubscriptionsModel } from '@gensvc/event-sourcing/testing/esdb-persistent-subscriptions-model';
import type { SupplierJobEvent } from '../../contracts/supplier-gateway';
import { CancelJobHandler } from '../cancel-job/cancel-job.handler';
import { OpenJobsHandler } from '../job-list/open-jobs.handler';
import type { JobResources } from '../job-outputs';
import { NO_PROVIDERS } from '../../testing/no-providers';
import { SupplierChannelRegistry } from '../supplier-channel-registry';
import { SupplierGatewayService } from '../supplier-gateway/supplier-gateway.service';
import { SubmitJobHandler } from './submit-job.handler';
import { GroupJobClaims, SUPPLIER_JOB_GROUP, SUPPLIER_JOB_MAX_RETRIES } from './supplier-job-claims';
import { SupplierJobRunner } from './supplier-job-runner';
import { LocalSupplierChannel } from '../../infrastructure/local/local-supplier.channel';
import { LocalSupplierControls } from '../../infrastructure/local/local-supplier.controls';
import { SupplierSettings, type HttpChannelConfig } from '../../supplier-settings';
import { StandInSupplier } from '../../testing/stand-in-supplier';
import { catalogueWithHttpChannel } from '../../testing/test-catalogue';

const SECRET = 'callback-secret-for-tests-0123';

/**
 * Supplier jobs on EventStoreDB: workers take jobs from the persistent subscription
 * `gensvc-supplier-jobs` (competing consumers). Runs against the in-process model of
 * EventStoreDB's persistent subscriptions (EsdbPersistentSubscriptionsModel, a stand-in: no
 * EventStoreDB server runs here) and a stand-in HTTP supplier; each "worker" is the real
 * runner, gateway, event store adapter and consumer-group adapter on its own client of the
 * model, as a process would have its own connection.
 */
describe('Supplier jobs over a persistent subscription (in-process model of EventStoreDB)', () => {
  jest.setTimeout(30_000);
  let model: EsdbPersistentSubscriptionsModel;
  let supplier: StandInSupplier;
  let settings: SupplierSettings;
  let events: EsdbEventStore;
  const catalogue = Catalogue.fromText(catalogueWithHttpChannel('acme'));
  const workers: Worker[] = [];

  interface Worker {
    client: EventStoreDBClient;
    runner: SupplierJobRunner;
    gateway: SupplierGatewayService;
    finished: string[];
    events: EsdbEventStore;
  }

  beforeAll(() => Logger.overrideLogger(process.env.DEBUG_JOBS ? ['error', 'warn', 'log'] : false));

  const resources = {
    async storeOutput(job: { taskId: string }, index: number) {
      return `ast_${job.taskId.slice(5)}_${index}`;
    },
  } as unknown as JobResources;
  const channelConfig = (patch: Partial<HttpChannelConfig> = {}): HttpChannelConfig => ({
    name: 'acme',
    baseUrl: supplier.url,
    apiKey: 'supplier-api-key',
    callbackSecret: SECRET,
    requestTimeoutMs: 300,
    pollAfterMs: 100,
    pollIntervalMs: 100,
    cancelTimeoutMs: 800,
    retryBaseMs: 20,
    retryMaxMs: 100,
    ...patch,
  });

  /** Starts a worker process on its own connection. */
  function worker(): Worker {
    const client = model.client();
    const store = new EsdbEventStore(client);
    const clock = new SystemClock();
    const controls = new LocalSupplierControls({ localSupplierDelayMs: 0 } as AppConfig);
    const channels = new SupplierChannelRegistry(settings, catalogue, resources, new LocalSupplierChannel(controls, resources), ...NO_PROVIDERS);
    const engine = { health: () => ({ started: true, projected: 0n }), projectedPosition: () => 2n ** 62n } as unknown as SubscriptionEngine;
    const claims = new GroupJobClaims(new EsdbConsumerGroups(client, undefined, 50), settings);
    const finished: string[] = [];
    const finish = claims.finished.bind(claims);
    claims.finished = async (taskId: string) => {
      finished.push(taskId);
      await finish(taskId);
    };
    const runner = new SupplierJobRunner(store, new OpenJobsHandler(SqliteReadStore.open(':memory:')), engine, clock, channels, claims, { processRole: 'worker' } as AppConfig);
    const gateway = new SupplierGatewayService(new SubmitJobHandler(store, catalogue, settings, channels, controls, runner), new CancelJobHandler(store, runner), clock);
    runner.onApplicationBootstrap();
    const w = { client, runner, gateway, finished, events: store };
    workers.push(w);
    return w;
  }

  /** The process dies: its connection ends without a word, its timers stop. */
  async function kill(w: Worker): Promise<void> {
    model.crash(w.client);
    await w.runner.beforeApplicationShutdown();
  }

  const info = () => model.client().getPersistentSubscriptionToAllInfo(SUPPLIER_JOB_GROUP);
  const stored = async (taskId: string) => (await events.readStream<SupplierJobEvent>(`supplierjob-${taskId}`)).map((e) => ({ type: e.type, data: e.data }) as SupplierJobEvent);
  const types = async (taskId: string) => (await stored(taskId)).map((e) => e.type);
  const waitFor = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
    const end = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 15));
    }
  };
  const inFlight = async () => (await info()).connections.map((c) => c.inFlightMessages);
  const submit = async (w: Worker) => {
    const taskId = newId('task');
    await w.gateway.submit({ taskId, accountId: 'acc_01test', modelId: 'acme-writer', capability: 'text.generate', params: { prompt: 'hello', max_tokens: 8 } });
    return taskId;
  };

  beforeEach(async () => {
    model = new EsdbPersistentSubscriptionsModel({ systemEventsEvery: 7 });
    supplier = await new StandInSupplier(SECRET).start();
    settings = new SupplierSettings({
      jobDeadlineMs: 20_000,
      callbackWindowSeconds: 300,
      channels: new Map([['acme', channelConfig()]]),
      publicBaseUrl: 'http://127.0.0.1:9',
      signingSecret: 's'.repeat(40),
    });
    events = new EsdbEventStore(model.client());
  });

  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.runner.beforeApplicationShutdown()));
    await supplier.stop();
    model.stop();
  });

  it('creates the group with a message timeout longer than any job deadline', async () => {
    settings.channels = new Map([['acme', channelConfig({ deadlineMs: 900_000 })]]);
    worker();
    await waitFor('the group', async () => (await info().catch(() => null)) !== null);
    const s = (await info()).settings;
    expect(s.messageTimeout).toBe(960_000);
    expect(s.maxRetryCount).toBe(SUPPLIER_JOB_MAX_RETRIES);
  });

  it('two workers compete for jobs: each job is submitted once, by one worker, and acknowledged when it ends', async () => {
    const a = worker();
    const b = worker();
    await waitFor('both consumers', async () => (await info().catch(() => null))?.connections.length === 2);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await submit(i % 2 ? a : b));
    await waitFor('every job at the supplier', () => ids.every((id) => supplier.jobs.has(id)));
    for (const id of ids) await supplier.finish(id, { status: 'succeeded', output: { text: 'ok' } });
    await waitFor('every job done', async () => (await Promise.all(ids.map(types))).every((t) => t.includes('SupplierJobSucceeded')));
    await waitFor('every message acknowledged', async () => (await inFlight()).every((n) => n === 0));
    expect(ids.map((id) => supplier.jobs.get(id)!.submits)).toEqual(ids.map(() => 1));
    expect(supplier.count('PUT', '/jobs/')).toBe(12);
    expect([...a.finished, ...b.finished].sort()).toEqual([...ids].sort());
    expect(a.finished.length).toBeGreaterThan(0);
    expect(b.finished.length).toBeGreaterThan(0);
    for (const id of ids) expect(await types(id)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
  });

  it('a killed worker’s job goes to the other worker, which does not submit it again (the job’s stream says it was dispatched)', async () => {
    settings.channels = new Map([['acme', channelConfig({ pollAfterMs: 60_000, pollIntervalMs: 60_000 })]]);
    const a = worker();
    await waitFor('the first consumer', async () => (await info().catch(() => null))?.connections.length === 1);
    const taskId = await submit(a);
    await waitFor('the job dispatched', async () => (await types(taskId)).includes('SupplierJobDispatched'));
    settings.channels = new Map([['acme', channelConfig()]]); // the second worker polls soon
    const b = worker();
    await waitFor('the second consumer', async () => (await info()).connections.length === 2);
    await supplier.finish(taskId, { status: 'succeeded', output: { text: 'done while its worker died' } });
    await kill(a);
    await waitFor('the job done by the other worker', async () => (await types(taskId)).includes('SupplierJobSucceeded'));
    expect(b.finished).toEqual([taskId]);
    expect(a.finished).toEqual([]);
    expect(supplier.jobs.get(taskId)!.submits).toBe(1);
    expect(supplier.count('PUT', '/jobs/')).toBe(1);
    expect(await types(taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
  });

  it('a worker that stops hands its jobs over at once', async () => {
    settings.channels = new Map([['acme', channelConfig({ pollAfterMs: 60_000, pollIntervalMs: 60_000 })]]);
    const a = worker();
    await waitFor('the first consumer', async () => (await info().catch(() => null))?.connections.length === 1);
    const taskId = await submit(a);
    await waitFor('the job dispatched', async () => (await types(taskId)).includes('SupplierJobDispatched'));
    settings.channels = new Map([['acme', channelConfig()]]);
    const b = worker();
    await waitFor('the second consumer', async () => (await info()).connections.length === 2);
    await supplier.finish(taskId, { status: 'succeeded', output: { text: 'ok' } });
    const stopAt = Date.now();
    await a.runner.beforeApplicationShutdown();
    await waitFor('the job done by the other worker', async () => (await types(taskId)).includes('SupplierJobSucceeded'), 3000);
    expect(Date.now() - stopAt).toBeLessThan(3000);
    expect(b.finished).toEqual([taskId]);
    expect(supplier.jobs.get(taskId)!.submits).toBe(1);
  });

  it(`fails a job whose workers died ${SUPPLIER_JOB_MAX_RETRIES} times while holding it (SUPPLIER_UNAVAILABLE), instead of parking it`, async () => {
    settings.channels = new Map([['acme', channelConfig({ pollAfterMs: 60_000, pollIntervalMs: 60_000 })]]);
    let w = worker();
    await waitFor('a consumer', async () => (await info().catch(() => null))?.connections.length === 1);
    const taskId = await submit(w);
    for (let i = 0; i < SUPPLIER_JOB_MAX_RETRIES; i++) {
      await waitFor(`delivery ${i + 1}`, async () => (await inFlight()).some((n) => n === 1));
      await kill(w);
      w = worker();
    }
    await waitFor('the job failed', async () => (await types(taskId)).includes('SupplierJobFailed'));
    const failed = (await stored(taskId)).at(-1)!;
    expect(failed.type === 'SupplierJobFailed' && failed.data.error.code).toBe('SUPPLIER_UNAVAILABLE');
    expect(supplier.jobs.get(taskId)!.submits).toBe(1);
    await waitFor('the message acknowledged', async () => (await inFlight()).every((n) => n === 0));
    expect(model.parked(SUPPLIER_JOB_GROUP)).toEqual([]);
  });

  it('parks a queued-job event without a task id', async () => {
    worker();
    await waitFor('a consumer', async () => (await info().catch(() => null))?.connections.length === 1);
    await events.appendToStream(`supplierjob-broken`, [{ type: 'SupplierJobQueued', data: { note: 'no task id' } }]);
    await waitFor('the parked message', () => model.parked(SUPPLIER_JOB_GROUP).length === 1);
    expect(model.parked(SUPPLIER_JOB_GROUP)[0]).toMatchObject({ type: 'SupplierJobQueued', retryCount: 0 });
  });
});
