import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { AssetRegistry } from '@gensvc/assets';
import { LocalSupplierControls, SupplierGateway, SupplierSettings, type SupplierJobEvent } from '@gensvc/suppliers';
import { jobEvents, jobEventTypes, newTaskId, waitForJob, waitForJobAsleep, waitForRunnerToLetGo } from '@gensvc/suppliers/testing/job-events';
import { FixedClock } from '@gensvc/kernel';
import { VoiceRegistry } from '@gensvc/voices';
import { bearer, createAccount } from './support/accounts';
import { startTestApp, type TestApp } from './support/test-app';

const readAsset = async (t: TestApp, id: string): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of await t.app.get(AssetRegistry, { strict: false }).open(id)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

const outputOf = (events: SupplierJobEvent[]) => {
  const done = events.find((e) => e.type === 'SupplierJobSucceeded');
  if (!done || done.type !== 'SupplierJobSucceeded') throw new Error(`job did not succeed: ${events.map((e) => e.type).join(', ')}`);
  return done.data.output;
};

describe('built-in local supplier', () => {
  let t: TestApp;
  let gateway: SupplierGateway;
  let controls: LocalSupplierControls;
  let accountId: string;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '150' } });
    gateway = t.app.get(SupplierGateway, { strict: false });
    controls = t.app.get(LocalSupplierControls, { strict: false });
    ({ accountId, apiKey } = await createAccount(t));
  });
  afterAll(() => t.close());
  afterEach(() => {
    controls.reset().setDelayMs(150);
    t.app.get(SupplierSettings, { strict: false }).jobDeadlineMs = 600_000;
  });

  const submit = async (modelId: string, capability: string, params: Record<string, unknown>) => {
    const taskId = newTaskId();
    await gateway.submit({ taskId, accountId, modelId, capability, params });
    return taskId;
  };

  it('writes text: queued, then dispatched, then succeeded with output.text and a .txt asset', async () => {
    const taskId = await submit('text-writer-lite', 'text.generate', { prompt: 'Autumn in Kyoto', max_tokens: 128, temperature: 0.7, tone: 'casual' });
    expect(await jobEventTypes(t, taskId)).toEqual(['SupplierJobQueued']);
    await waitForJob(t, taskId, (types) => types.includes('SupplierJobDispatched'));
    expect(await jobEventTypes(t, taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched']);
    const events = await waitForJob(t, taskId);
    expect(events.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
    const output = outputOf(events);
    expect(output.text).toContain('Autumn in Kyoto');
    expect(output.asset_ids).toHaveLength(1);
    expect((await readAsset(t, output.asset_ids[0])).toString('utf8')).toBe(output.text);
    const queued = events[0];
    expect(queued.type === 'SupplierJobQueued' && queued.data).toMatchObject({ task_id: taskId, account_id: accountId, supplier: 'local' });
  });

  it('renders one decodable PNG per count, of the requested size', async () => {
    const taskId = await submit('image-studio-v2', 'image.generate', { prompt: 'a lighthouse at dusk', size: '512x512', count: 2, seed: 42, negative_prompt: '', asset_ids: [] });
    const output = outputOf(await waitForJob(t, taskId));
    expect(output.asset_ids).toHaveLength(2);
    const [a, b] = await Promise.all(output.asset_ids.map((id) => readAsset(t, id)));
    for (const png of [a, b]) {
      const img = PNG.sync.read(png);
      expect([img.width, img.height]).toEqual([512, 512]);
    }
    expect(a.equals(b)).toBe(false);
  });

  it('synthesizes WAV speech at the requested sample rate, longer for longer text', async () => {
    const short = await submit('speech-tts-std', 'speech.synthesize', { text: 'Hello world.', speed: 1, sample_rate: 16000 });
    const long = await submit('speech-tts-std', 'speech.synthesize', { text: 'Hello world. '.repeat(10), speed: 1, sample_rate: 16000 });
    const [s, l] = await Promise.all([short, long].map(async (id) => readAsset(t, outputOf(await waitForJob(t, id)).asset_ids[0])));
    for (const wav of [s, l]) {
      expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
      expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
      expect(wav.readUInt16LE(20)).toBe(1);
      expect(wav.readUInt32LE(24)).toBe(16000);
    }
    const seconds = (wav: Buffer) => wav.readUInt32LE(40) / 2 / 16000;
    expect(seconds(s)).toBeCloseTo(12 * 0.065, 1);
    expect(seconds(l)).toBeGreaterThan(seconds(s) * 8);
  });

  it('clones a voice from an uploaded WAV, then speaks with it; the voice is bound to its channel', async () => {
    const upload = await t
      .http()
      .post('/v1/uploads')
      .set(bearer(apiKey))
      .set('Content-Type', 'audio/wav')
      .set('X-Filename', 'sample.wav')
      .send(readFileSync(join(__dirname, 'fixtures', 'audio.wav')))
      .expect(201);
    const assetId: string = upload.body.asset_id ?? upload.body.asset?.id ?? upload.body.id;
    const cloneTask = await submit('voice-clone-std', 'voice.clone', { asset_ids: [assetId], name: 'Narrator', consent_attested: true });
    const output = outputOf(await waitForJob(t, cloneTask));
    expect(output.voice_id).toMatch(/^voice_/);
    expect(output.asset_ids).toHaveLength(1); // a spoken preview
    const registry = t.app.get(VoiceRegistry, { strict: false });
    const usable = await registry.requireUsable(accountId, output.voice_id!, 'local');
    expect(usable.id).toBe(output.voice_id);
    await expect(registry.requireUsable(accountId, output.voice_id!, 'acme')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(registry.requireUsable('acc_other', output.voice_id!, 'local')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });

    const tts = await submit('speech-tts-std', 'speech.synthesize', { text: 'aaaa aaaa', voice_id: output.voice_id, speed: 1, sample_rate: 24000 });
    const wav = await readAsset(t, outputOf(await waitForJob(t, tts)).asset_ids[0]);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
  });

  it('fails a voice clone whose sample is not audio, with INVALID_INPUT', async () => {
    const upload = await t.http().post('/v1/uploads').set(bearer(apiKey)).set('Content-Type', 'text/plain').set('X-Filename', 'notes.txt').send(Buffer.from('hello')).expect(201);
    const assetId: string = upload.body.asset_id ?? upload.body.asset?.id ?? upload.body.id;
    const taskId = await submit('voice-clone-std', 'voice.clone', { asset_ids: [assetId], name: 'X', consent_attested: true });
    const events = await waitForJob(t, taskId);
    const failed = events.find((e) => e.type === 'SupplierJobFailed');
    expect(failed?.type === 'SupplierJobFailed' && failed.data.error.code).toBe('INVALID_INPUT');
  });

  it('fails when switched to fail', async () => {
    controls.failNext();
    const taskId = await submit('text-writer-lite', 'text.generate', { prompt: 'x' });
    const events = await waitForJob(t, taskId);
    expect(events.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobFailed']);
    const failed = events[2];
    expect(failed.type === 'SupplierJobFailed' && failed.data.error.code).toBe('SUPPLIER_ERROR');
    // the switch was for one job only
    const next = await submit('text-writer-lite', 'text.generate', { prompt: 'y' });
    expect((await waitForJob(t, next)).map((e) => e.type)).toContain('SupplierJobSucceeded');
  });

  it('fails a job that hangs past its deadline with SUPPLIER_TIMEOUT, not before the deadline', async () => {
    t.app.get(SupplierSettings, { strict: false }).jobDeadlineMs = 800;
    controls.hangNext();
    const taskId = await submit('text-writer-lite', 'text.generate', { prompt: 'never' });
    const events = await waitForJob(t, taskId);
    expect(events.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobFailed']);
    const [queued, , failed] = events;
    expect(failed.type === 'SupplierJobFailed' && failed.data.error.code).toBe('SUPPLIER_TIMEOUT');
    // recorded at or after the deadline the job was queued with, never before
    const deadline = queued.type === 'SupplierJobQueued' ? queued.data.deadline_at : undefined;
    expect(deadline).toEqual(expect.any(String));
    expect(Date.parse(failed.data.at)).toBeGreaterThanOrEqual(Date.parse(deadline!));
  });

  it('cancels a queued job at once: never dispatched, no output', async () => {
    controls.setDelayMs(400);
    const taskId = await submit('text-writer-lite', 'text.generate', { prompt: 'cancel me' });
    expect(await gateway.requestCancel(taskId)).toBe('canceled');
    expect(await gateway.requestCancel(taskId)).toBe('canceled'); // harmless repeat
    await waitForRunnerToLetGo(t, taskId); // it looked at the job once its delay passed, and left it
    expect(await jobEventTypes(t, taskId)).toEqual(['SupplierJobQueued', 'SupplierJobCanceled']);
  });

  it('cancels a running job after checking with the supplier', async () => {
    controls.setDelayMs(400);
    const taskId = await submit('text-writer-lite', 'text.generate', { prompt: 'cancel me while running' });
    await waitForJob(t, taskId, (types) => types.includes('SupplierJobDispatched'));
    expect(await gateway.requestCancel(taskId)).toBe('requested');
    expect(await gateway.requestCancel(taskId)).toBe('requested');
    const events = await waitForJob(t, taskId);
    expect(events.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierCancelChecking', 'SupplierJobCanceled']);
    expect(await gateway.requestCancel(taskId)).toBe('canceled');
  });

  it('a supplier switched to refuse keeps working and finishes', async () => {
    controls.setDelayMs(300).refuseCancelNext();
    const taskId = await submit('text-writer-lite', 'text.generate', { prompt: 'refuse' });
    await waitForJob(t, taskId, (types) => types.includes('SupplierJobDispatched'));
    expect(await gateway.requestCancel(taskId)).toBe('requested');
    const events = await waitForJob(t, taskId);
    expect(events.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierCancelChecking', 'SupplierCancelRefused', 'SupplierJobSucceeded']);
    expect(await gateway.requestCancel(taskId)).toBe('finished');
  });

  it('a supplier switched to stay silent leaves the cancellation unconfirmed and finishes', async () => {
    controls.setDelayMs(300).leaveCancelUnconfirmedNext();
    const taskId = await submit('text-writer-lite', 'text.generate', { prompt: 'silent' });
    await waitForJob(t, taskId, (types) => types.includes('SupplierJobDispatched'));
    expect(await gateway.requestCancel(taskId)).toBe('requested');
    const events = await waitForJob(t, taskId);
    expect(events.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierCancelChecking', 'SupplierCancelUnconfirmed', 'SupplierJobSucceeded']);
  });

  it('concurrent cancels and completion end in exactly one outcome', async () => {
    controls.setDelayMs(0);
    const outcomes = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const taskId = await submit('text-writer-lite', 'text.generate', { prompt: `race ${i}` });
      // Half the cancels come while the job is queued, half once it runs (racing its completion).
      if (i % 2) await waitForJob(t, taskId, (types) => types.includes('SupplierJobDispatched'));
      await Promise.all([gateway.requestCancel(taskId), gateway.requestCancel(taskId)]);
      const events = await waitForJob(t, taskId);
      await waitForRunnerToLetGo(t, taskId);
      const types = await jobEventTypes(t, taskId);
      const terminal = types.filter((x) => ['SupplierJobSucceeded', 'SupplierJobFailed', 'SupplierJobCanceled'].includes(x));
      expect(terminal).toHaveLength(1);
      expect(types.filter((x) => x === 'SupplierCancelChecking').length).toBeLessThanOrEqual(1);
      outcomes.add(events[events.length - 1].type);
    }
    expect(outcomes.size).toBeGreaterThanOrEqual(1);
  });

  it('a repeated submit queues one job and the supplier works once', async () => {
    const taskId = newTaskId();
    const request = { taskId, accountId, modelId: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'once' } };
    await Promise.all([gateway.submit(request), gateway.submit(request)]);
    await gateway.submit(request);
    await waitForJob(t, taskId);
    await gateway.submit(request);
    await waitForRunnerToLetGo(t, taskId);
    expect(await jobEventTypes(t, taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
  });

  it('a cancel before the job was submitted stands: the later submit does nothing', async () => {
    const taskId = newTaskId();
    expect(await gateway.requestCancel(taskId, accountId)).toBe('canceled');
    await gateway.submit({ taskId, accountId, modelId: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'late' } });
    await waitForRunnerToLetGo(t, taskId);
    expect(await jobEventTypes(t, taskId)).toEqual(['SupplierJobCanceled']);
  });
});

describe('local supplier across restarts', () => {
  it('resumes unfinished jobs from the event store and finishes each exactly once', async () => {
    const first = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '300' } });
    const dataDir = first.dataDir;
    try {
      const { accountId } = await createAccount(first);
      const gateway = first.app.get(SupplierGateway, { strict: false });
      const queued = newTaskId();
      const running = newTaskId();
      const hung = newTaskId();
      await gateway.submit({ taskId: running, accountId, modelId: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'running at the crash' } });
      await waitForJob(first, running, (types) => types.includes('SupplierJobDispatched'));
      await gateway.submit({ taskId: queued, accountId, modelId: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'queued at the crash' } });
      first.app.get(SupplierSettings, { strict: false }).jobDeadlineMs = 2500;
      first.app.get(LocalSupplierControls, { strict: false }).hangNext();
      await gateway.submit({ taskId: hung, accountId, modelId: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'hangs' } });
      await first.app.close();

      const second = await startTestApp({ dataDir, env: { LOCAL_SUPPLIER_DELAY_MS: '100' } });
      try {
        for (const id of [queued, running]) {
          const events = await waitForJob(second, id);
          expect(events.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
        }
        // the hang switch and the deadline were recorded with the job: they hold after the restart
        const hungEvents = await waitForJob(second, hung);
        const last = hungEvents[hungEvents.length - 1];
        expect(last.type === 'SupplierJobFailed' && last.data.error.code).toBe('SUPPLIER_TIMEOUT');
        await waitForRunnerToLetGo(second, running);
        expect((await jobEvents(second, running)).filter((e) => e.type === 'SupplierJobSucceeded')).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      const { rmSync } = await import('node:fs');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('supplier job deadlines on the service clock', () => {
  let t: TestApp;
  const clock = new FixedClock(new Date());
  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '50' }, overrides: { clock } });
  });
  afterAll(() => t.close());

  it('a waiting job is looked at when the clock passes its deadline, not at its next routine look', async () => {
    t.app.get(SupplierSettings, { strict: false }).jobDeadlineMs = 10 * 60_000;
    t.app.get(LocalSupplierControls, { strict: false }).hangNext();
    const { accountId } = await createAccount(t);
    const taskId = newTaskId();
    await t.app.get(SupplierGateway, { strict: false }).submit({ taskId, accountId, modelId: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'hang' } });
    await waitForJob(t, taskId, (types) => types.includes('SupplierJobDispatched'));
    await waitForJobAsleep(t, taskId); // the hung job now sleeps until its deadline, ten minutes ahead (or the longest sleep)
    expect(await jobEventTypes(t, taskId)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched']);
    clock.advance(10 * 60_000 + 1);
    const events = await waitForJob(t, taskId, undefined, 3000);
    expect(events.map((e) => e.type)).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobFailed']);
    expect(events[2].type === 'SupplierJobFailed' && events[2].data.error.code).toBe('SUPPLIER_TIMEOUT');
  });
});
