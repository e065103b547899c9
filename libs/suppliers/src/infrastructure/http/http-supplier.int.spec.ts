import { Logger } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { AppError, SystemClock, newId, type ErrorCode } from '@gensvc/kernel';
import { type AppConfig } from '@gensvc/config';
import { type SubscriptionEngine } from '@gensvc/event-sourcing';
import { ReadStoreLeaseStore, SqliteEventStore, SqliteReadStore } from '@gensvc/storage';
import type { SupplierJobEvent } from '../../contracts/supplier-gateway';
import type { JobResources } from '../../application/job-outputs';
import { JobInputError } from '../../application/supplier-channel';
import { CancelJobHandler } from '../../application/cancel-job/cancel-job.handler';
import { OpenJobsHandler } from '../../application/job-list/open-jobs.handler';
import { ReceiveCallbackHandler } from '../../application/receive-callback/receive-callback.handler';
import { SubmitJobHandler } from '../../application/submit-job/submit-job.handler';
import { LeaseJobClaims } from '../../application/submit-job/supplier-job-claims';
import { SupplierJobRunner } from '../../application/submit-job/supplier-job-runner';
import { NO_PROVIDERS } from '../../testing/no-providers';
import { SupplierChannelRegistry } from '../../application/supplier-channel-registry';
import { SupplierGatewayService } from '../../application/supplier-gateway/supplier-gateway.service';
import { LocalSupplierChannel } from '../local/local-supplier.channel';
import { LocalSupplierControls } from '../local/local-supplier.controls';
import { SupplierSettings, type HttpChannelConfig } from '../../supplier-settings';
import { StandInSupplier } from '../../testing/stand-in-supplier';
import { HttpSupplierChannel } from './http-supplier.channel';
import { pollUntil, runnerLetsGo } from '../../testing/job-events';
import { catalogueWithHttpChannel } from '../../testing/test-catalogue';

const SECRET = 'callback-secret-for-tests-0123';
/** The statuses the API's callback route answers these errors with (apps/api/src/http/error-status.ts). */
const CALLBACK_STATUS: Partial<Record<ErrorCode, number>> = { VALIDATION_ERROR: 400, UNAUTHORIZED: 401, NOT_FOUND: 404 };
const ACCOUNT = 'acc_01test';

/**
 * The HTTP supplier adapter against a stand-in supplier on loopback: the real runner,
 * gateway, callback handling and event store (SQLite in memory); only the other contexts
 * (assets, voices) are fakes. Callbacks reach the service through a small HTTP server that
 * hands the raw body to ReceiveCallbackHandler, as the API's controller does.
 */
describe('HTTP supplier adapter (stand-in supplier)', () => {
  let supplier: StandInSupplier;
  let callbackServer: Server;
  let callbackBase: string;
  let events: SqliteEventStore;
  let runner: SupplierJobRunner;
  let gateway: SupplierGatewayService;
  let settings: SupplierSettings;
  let outputs: Map<string, { name: string; mime: string; body: Buffer }>;
  let voices: Map<string, { supplierVoiceId: string; name: string; supplier: string }>;
  let channelConfig: HttpChannelConfig;
  let callbacks: ReceiveCallbackHandler;
  const catalogue = Catalogue.fromText(catalogueWithHttpChannel('acme'));
  const sample = Buffer.from('RIFF....WAVEfmt sample bytes');

  beforeAll(() => Logger.overrideLogger(false));

  const resources = () =>
    ({
      async inputAssets(_job: unknown, ids: readonly string[]) {
        if (ids.includes('ast_gone')) throw new JobInputError('input.asset_ids[0]: "ast_gone" is not a registered asset of this account');
        return ids.map((id) => ({ asset: { id, name: 'sample.wav', mime: 'audio/wav', size: sample.length, checksum: 'c'.repeat(64) }, body: sample }));
      },
      async storeOutput(job: { taskId: string }, index: number, name: string, mime: string, body: Buffer) {
        const id = `ast_${job.taskId.slice(5)}_${index}`;
        if (!outputs.has(id)) outputs.set(id, { name, mime, body });
        return id;
      },
      async voice(_job: unknown, voiceId: string) {
        if (voiceId === 'voice_gone') throw new JobInputError('input.voice_id: no voice voice_gone of yours exists');
        return `sv-${voiceId}`;
      },
      async registerVoice(job: { taskId: string; supplier: string }, supplierVoiceId: string, name: string) {
        const id = `voice_${job.taskId.slice(5)}`;
        voices.set(id, { supplierVoiceId, name, supplier: job.supplier });
        return id;
      },
    }) as unknown as JobResources;

  /** Builds the suppliers context by hand on the given event store. */
  function build(store: SqliteEventStore) {
    const clock = new SystemClock();
    const res = resources();
    const controls = new LocalSupplierControls({ localSupplierDelayMs: 0 } as AppConfig);
    const channels = new SupplierChannelRegistry(settings, catalogue, res, new LocalSupplierChannel(controls, res), ...NO_PROVIDERS);
    const engine = { health: () => ({ started: true, projected: 0n }), projectedPosition: () => 0n } as unknown as SubscriptionEngine;
    const readStore = SqliteReadStore.open(':memory:');
    const r = new SupplierJobRunner(store, new OpenJobsHandler(readStore), engine, clock, channels, new LeaseJobClaims(new ReadStoreLeaseStore(readStore), settings), { processRole: 'all' } as AppConfig);
    return {
      runner: r,
      gateway: new SupplierGatewayService(new SubmitJobHandler(store, catalogue, settings, channels, controls, r), new CancelJobHandler(store, r), clock),
      callbacks: new ReceiveCallbackHandler(settings, channels, r),
    };
  }

  beforeEach(async () => {
    supplier = await new StandInSupplier(SECRET).start();
    callbackServer = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const token = (req.url ?? '').replace(/^\/v1\/supplier-callbacks\//, '');
      try {
        await callbacks.execute({
          type: 'ReceiveCallback',
          data: { token, timestamp: req.headers['x-gensvc-timestamp'] as string, signature: req.headers['x-gensvc-signature'] as string, body: Buffer.concat(chunks) },
          metadata: { now: new Date() },
        });
        res.writeHead(200).end('{"received":true}');
      } catch (err) {
        res.writeHead(err instanceof AppError ? (CALLBACK_STATUS[err.code] ?? 500) : 500).end(String((err as Error).message));
      }
    });
    await new Promise<void>((r) => callbackServer.listen(0, '127.0.0.1', r));
    callbackBase = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}`;
    outputs = new Map();
    voices = new Map();
    channelConfig = {
      name: 'acme',
      baseUrl: supplier.url,
      apiKey: 'supplier-api-key',
      callbackSecret: SECRET,
      requestTimeoutMs: 300,
      pollAfterMs: 60_000,
      pollIntervalMs: 60_000,
      cancelTimeoutMs: 800,
      retryBaseMs: 20,
      retryMaxMs: 100,
    };
    settings = new SupplierSettings({
      jobDeadlineMs: 10_000,
      callbackWindowSeconds: 300,
      channels: new Map([['acme', channelConfig]]),
      publicBaseUrl: callbackBase,
      signingSecret: 's'.repeat(40),
    });
    events = new SqliteEventStore(':memory:');
    ({ runner, gateway, callbacks } = build(events));
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await runner.beforeApplicationShutdown();
    await supplier.stop();
    const closed = new Promise((r) => callbackServer.close(r));
    callbackServer.closeAllConnections();
    await closed;
    await events.close();
  });

  const setChannel = (patch: Partial<HttpChannelConfig>) => {
    channelConfig = { ...channelConfig, ...patch };
    settings.channels = new Map([['acme', channelConfig]]);
    ({ runner, gateway, callbacks } = build(events));
  };

  const types = async (taskId: string) => (await events.readStream<SupplierJobEvent>(`supplierjob-${taskId}`)).map((e) => e.type);
  const stored = async (taskId: string) => (await events.readStream<SupplierJobEvent>(`supplierjob-${taskId}`)).map((e) => ({ type: e.type, data: e.data }) as SupplierJobEvent);
  const until = async (taskId: string, check: (t: string[]) => boolean, timeoutMs = 8000) => {
    const start = Date.now();
    for (;;) {
      const t = await types(taskId);
      if (check(t)) return t;
      if (Date.now() - start > timeoutMs) throw new Error(`timed out; events: ${t.join(', ')}`);
      await new Promise((r) => setTimeout(r, 15));
    }
  };
  /** Resolves once the runner let the job go: no step running or waiting, no look pending (it appends nothing more on its own). */
  const letGo = (taskId: string) => runnerLetsGo(runner, taskId, 8000);
  const ended = (t: string[]) => t.some((x) => ['SupplierJobSucceeded', 'SupplierJobFailed', 'SupplierJobCanceled'].includes(x));
  const dispatched = (t: string[]) => t.includes('SupplierJobDispatched');

  const submit = async (modelId = 'acme-writer', capability = 'text.generate', params: Record<string, unknown> = { prompt: 'hello', max_tokens: 64 }) => {
    const taskId = newId('task');
    await gateway.submit({ taskId, accountId: ACCOUNT, modelId, capability, params });
    return taskId;
  };

  it('submits with the supplier model name, its credential and a service-generated callback address; a signed callback completes the job', async () => {
    const taskId = await submit();
    await until(taskId, dispatched);
    const job = supplier.jobs.get(taskId)!;
    expect(job.request.model).toBe('acme-text-large');
    expect(job.request.capability).toBe('text.generate');
    expect(job.request.input).toEqual({ prompt: 'hello', max_tokens: 64 });
    expect(job.request.callback_url).toMatch(new RegExp(`^${callbackBase}/v1/supplier-callbacks/[A-Za-z0-9_-]{40,}$`));
    expect(job.request.callback_url).not.toContain(taskId);
    expect(supplier.requests[0].auth).toBe('Bearer supplier-api-key');

    const answer = await supplier.finish(taskId, { status: 'succeeded', output: { text: 'Hi there', files: [{ name: 'result.json', mime: 'application/json', content_base64: Buffer.from('{"a":1}').toString('base64') }] } }, {});
    expect(answer!.status).toBe(200);
    const evs = await stored(taskId);
    expect(evs.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
    const done = evs[2];
    expect(done.type === 'SupplierJobSucceeded' && done.data.output).toEqual({ asset_ids: [`ast_${taskId.slice(5)}_0`], text: 'Hi there' });
    expect(outputs.get(`ast_${taskId.slice(5)}_0`)).toEqual({ name: 'result.json', mime: 'application/json', body: Buffer.from('{"a":1}') });
    expect(supplier.count('GET', '/jobs/')).toBe(0); // the callback came: no polling needed

    // a replay of the genuine callback inside the window is acknowledged and changes nothing
    expect((await supplier.deliver(job, job.state)).status).toBe(200);
    expect(await types(taskId)).toHaveLength(3);
  });

  it('refuses callbacks with a bad or missing signature, a changed body or a stale timestamp, and unknown addresses', async () => {
    const taskId = await submit();
    await until(taskId, dispatched);
    const job = supplier.jobs.get(taskId)!;
    const result = { status: 'succeeded' as const, output: { text: 'x' } };
    expect((await supplier.deliver(job, result, { secret: 'another-secret-0123456789' })).status).toBe(401);
    expect((await supplier.deliver(job, result, { tamper: true })).status).toBe(401);
    expect((await supplier.deliver(job, result, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
    expect((await supplier.deliver(job, result, { timestamp: Math.floor(Date.now() / 1000) + 301 })).status).toBe(401);
    const unsigned = await fetch(job.request.callback_url, { method: 'POST', body: JSON.stringify(result) });
    expect(unsigned.status).toBe(401);
    const forged = await fetch(`${callbackBase}/v1/supplier-callbacks/${'A'.repeat(60)}`, { method: 'POST', body: '{}' });
    expect(forged.status).toBe(404);
    expect(await types(taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched']);
    // inside the window, an older timestamp is fine
    expect((await supplier.deliver(job, result, { timestamp: Math.floor(Date.now() / 1000) - 200 })).status).toBe(200);
    expect(await types(taskId)).toContain('SupplierJobSucceeded');
  });

  it('falls back to polling the status when no callback comes', async () => {
    setChannel({ pollAfterMs: 150, pollIntervalMs: 100 });
    const taskId = await submit();
    await until(taskId, dispatched);
    // a second status request: the first answer (running) was taken, changed nothing, and the job polls on
    await pollUntil(() => supplier.count('GET', `/jobs/${taskId}`) >= 2, () => `status requests: ${supplier.count('GET', `/jobs/${taskId}`)}`, 8000);
    expect(await types(taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched']);
    await supplier.finish(taskId, { status: 'succeeded', output: { text: 'polled result' } });
    const t = await until(taskId, ended);
    expect(t).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
    const evs = await stored(taskId);
    const done = evs[2];
    expect(done.type === 'SupplierJobSucceeded' && done.data.output.text).toBe('polled result');
    expect(outputs.get(`ast_${taskId.slice(5)}_0`)?.name).toBe('output.txt');
  });

  it('retries 5xx, 429 and timeouts with backoff; the supplier gets one job', async () => {
    supplier.faults.submit.push({ status: 503 }, { status: 429 }, 'hang', { status: 502 });
    setChannel({ pollAfterMs: 50, pollIntervalMs: 50 });
    supplier.faults.status.push({ status: 500 }, 'hang');
    const taskId = await submit();
    await until(taskId, dispatched);
    expect(supplier.count('PUT', `/jobs/${taskId}`)).toBe(5);
    expect(supplier.jobs.get(taskId)!.submits).toBe(1);
    await supplier.finish(taskId, { status: 'succeeded', output: { text: 'after retries' } });
    await until(taskId, ended);
    expect(supplier.count('GET', `/jobs/${taskId}`)).toBeGreaterThanOrEqual(3);
    expect(await types(taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
  });

  it('fails the job when the supplier refuses it (4xx)', async () => {
    supplier.faults.submit.push({ status: 400 });
    const taskId = await submit();
    await until(taskId, ended);
    const evs = await stored(taskId);
    const failed = evs[evs.length - 1];
    expect(failed.type === 'SupplierJobFailed' && failed.data.error).toEqual({ code: 'SUPPLIER_REJECTED', message: 'the supplier refused the job' });
    expect(supplier.count('PUT', '/jobs/')).toBe(1);
  });

  it('records a supplier failure without passing its message on', async () => {
    const taskId = await submit();
    await until(taskId, dispatched);
    await supplier.finish(taskId, { status: 'failed', error: { code: 'content_policy', message: 'internal cost 0.12 USD on node gpu-7' } }, {});
    const evs = await stored(taskId);
    const failed = evs[evs.length - 1];
    expect(failed.type === 'SupplierJobFailed' && failed.data.error).toEqual({ code: 'SUPPLIER_ERROR', message: 'the supplier could not complete the job (content_policy)' });
  });

  it('fails a job stuck past its deadline with SUPPLIER_TIMEOUT and tells the supplier to stop', async () => {
    setChannel({ deadlineMs: 700, pollAfterMs: 100, pollIntervalMs: 100 });
    const abandon = jest.spyOn(HttpSupplierChannel.prototype, 'abandon');
    const taskId = await submit();
    await until(taskId, dispatched);
    const t = await until(taskId, ended);
    expect(t).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobFailed']);
    const evs = await stored(taskId);
    expect(evs[2].type === 'SupplierJobFailed' && evs[2].data.error.code).toBe('SUPPLIER_TIMEOUT');
    // the supplier is told to stop (best effort, after the failure is recorded): once the runner let
    // the job go and the stop requests it made were answered, nothing more is sent for the job
    await letGo(taskId);
    await Promise.all(abandon.mock.results.map((r) => r.value));
    expect(abandon).toHaveBeenCalledTimes(1);
    expect(supplier.count('POST', `/jobs/${taskId}/cancel`)).toBe(1);
    // a result arriving after the deadline changes nothing
    expect((await supplier.finish(taskId, { status: 'succeeded', output: { text: 'late' } }, {}))!.status).toBe(200);
    expect(await types(taskId)).toHaveLength(3);
  });

  it('also keeps the deadline while the supplier cannot be reached at all', async () => {
    settings.jobDeadlineMs = 600;
    for (let i = 0; i < 50; i++) supplier.faults.submit.push({ status: 503 });
    const taskId = await submit();
    const t = await until(taskId, ended);
    expect(t).toEqual(['SupplierJobQueued', 'SupplierJobFailed']);
  });

  describe('cancellation', () => {
    it('confirmed by the supplier: checking, then canceled', async () => {
      const taskId = await submit();
      await until(taskId, dispatched);
      expect(await gateway.requestCancel(taskId)).toBe('requested');
      const t = await until(taskId, ended);
      expect(t).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierCancelChecking', 'SupplierJobCanceled']);
      expect(supplier.count('POST', `/jobs/${taskId}/cancel`)).toBe(1);
    });

    it('refused by the supplier: the job goes on and succeeds', async () => {
      supplier.cancelAnswer = 'refused';
      const taskId = await submit();
      await until(taskId, dispatched);
      expect(await gateway.requestCancel(taskId)).toBe('requested');
      await until(taskId, (t) => t.includes('SupplierCancelRefused'));
      await supplier.finish(taskId, { status: 'succeeded', output: { text: 'done anyway' } }, {});
      expect(await types(taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierCancelChecking', 'SupplierCancelRefused', 'SupplierJobSucceeded']);
      expect(await gateway.requestCancel(taskId)).toBe('finished');
    });

    it('not answered in time (errors, then pending): unconfirmed, and a later cancel by the supplier still confirms', async () => {
      supplier.cancelAnswer = 'pending';
      supplier.faults.cancel.push({ status: 503 }, 'hang');
      setChannel({ pollAfterMs: 60_000, pollIntervalMs: 60_000, cancelTimeoutMs: 900 });
      const taskId = await submit();
      await until(taskId, dispatched);
      expect(await gateway.requestCancel(taskId)).toBe('requested');
      await until(taskId, (t) => t.includes('SupplierCancelUnconfirmed'));
      expect(supplier.count('POST', `/jobs/${taskId}/cancel`)).toBe(3);
      await supplier.finish(taskId, { status: 'canceled' }, {});
      expect(await types(taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierCancelChecking', 'SupplierCancelUnconfirmed', 'SupplierJobCanceled']);
    });

    it('before the supplier accepted the job: canceled at once, and the submit is not tried again', async () => {
      supplier.faults.submit.push('hang');
      setChannel({ requestTimeoutMs: 400 });
      const taskId = await submit();
      while (supplier.count('PUT', '/jobs/') === 0) await new Promise((r) => setTimeout(r, 5)); // the submit is in flight
      expect(await gateway.requestCancel(taskId)).toBe('canceled');
      expect(runner.holds(taskId)).toBe(true); // the submit is still in flight
      // the runner lets the job go once the hanging submit timed out and it saw the job canceled
      await letGo(taskId);
      expect(await types(taskId)).toEqual(['SupplierJobQueued', 'SupplierJobCanceled']);
      // the hanging submit timed out; no second attempt was made for a canceled job
      expect(supplier.count('PUT', '/jobs/')).toBe(1);
    });
  });

  it('sends input assets as bytes and a voice as the supplier’s own voice id; a voice.clone result registers the voice', async () => {
    const clone = await submit('acme-voice-clone', 'voice.clone', { asset_ids: ['ast_sample'], name: 'Narrator', consent_attested: true });
    await until(clone, dispatched);
    const job = supplier.jobs.get(clone)!;
    expect(job.request.files).toEqual([{ name: 'sample.wav', mime: 'audio/wav', size: sample.length, sha256: 'c'.repeat(64), content_base64: sample.toString('base64') }]);
    expect(job.request.input).toEqual({ name: 'Narrator', consent_attested: true });
    expect(JSON.stringify(job.request)).not.toMatch(/https?:\/\/[^"]*\/v1\/assets/);
    await supplier.finish(clone, { status: 'succeeded', output: { voice_id: 'acme-voice-991' } }, {});
    const evs = await stored(clone);
    const done = evs[evs.length - 1];
    expect(done.type === 'SupplierJobSucceeded' && done.data.output).toEqual({ asset_ids: [], voice_id: `voice_${clone.slice(5)}` });
    expect(voices.get(`voice_${clone.slice(5)}`)).toEqual({ supplierVoiceId: 'acme-voice-991', name: 'Narrator', supplier: 'acme' });

    const tts = await submit('acme-tts', 'speech.synthesize', { text: 'hi', voice_id: 'voice_abc', speed: 1, sample_rate: 24000 });
    await until(tts, dispatched);
    expect(supplier.jobs.get(tts)!.request.input.voice_id).toBe('sv-voice_abc');
  });

  it('fails with INVALID_INPUT when an input asset or voice is no longer usable', async () => {
    const a = await submit('acme-voice-clone', 'voice.clone', { asset_ids: ['ast_gone'], name: 'X', consent_attested: true });
    const b = await submit('acme-tts', 'speech.synthesize', { text: 'hi', voice_id: 'voice_gone' });
    for (const id of [a, b]) {
      await until(id, ended);
      const evs = await stored(id);
      const failed = evs[evs.length - 1];
      expect(failed.type === 'SupplierJobFailed' && failed.data.error.code).toBe('INVALID_INPUT');
    }
    expect(supplier.count('PUT', '/jobs/')).toBe(0);
  });

  it('fails a job whose model no channel serves (left the catalogue) with SUPPLIER_UNAVAILABLE, without throwing at submit', async () => {
    const taskId = await submit('gone-model', 'text.generate', { prompt: 'x' });
    await until(taskId, ended);
    const evs = await stored(taskId);
    expect(evs.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobFailed']);
    expect(evs[1].type === 'SupplierJobFailed' && evs[1].data.error.code).toBe('SUPPLIER_UNAVAILABLE');
  });

  it('after a restart, resumes a dispatched job by polling without submitting it again', async () => {
    setChannel({ pollAfterMs: 100, pollIntervalMs: 100 });
    const taskId = await submit();
    await until(taskId, dispatched);
    await runner.beforeApplicationShutdown();
    ({ runner, gateway, callbacks } = build(events));
    await supplier.finish(taskId, { status: 'succeeded', output: { text: 'finished while we were down' } });
    runner.schedule(taskId); // what the runner's resume scan does at start
    await until(taskId, ended);
    expect(supplier.jobs.get(taskId)!.submits).toBe(1);
    expect(supplier.count('PUT', '/jobs/')).toBe(1);
    expect(await types(taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
  });
});
