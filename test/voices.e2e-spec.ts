import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStore } from '@gensvc/event-sourcing';
import { LocalSupplierControls } from '@gensvc/suppliers';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';

const VOICE_FIELDS = ['created_at', 'deletion', 'id', 'models', 'name', 'source_task_id', 'status', 'updated_at'];
/** The task and voice fields these tests read. */
interface TaskBody {
  status: string;
  output: { asset_ids: string[]; voice_id?: string } | null;
}
interface VoiceBody {
  status: string;
  deletion: { status: string; requested_at: string | null; completed_at: string | null };
}

const WAV = readFileSync(join(__dirname, 'fixtures', 'audio.wav'));

describe('voices', () => {
  let t: TestApp;
  let acc: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '100' } });
    acc = await createAccount(t, { credit: '100.00' });
    other = await createAccount(t, { credit: '100.00' });
  });
  afterAll(() => t.close());
  afterEach(() => t.app.get(LocalSupplierControls, { strict: false }).reset().setDelayMs(100));

  const quote = async (who: TestAccount, body: object) => (await t.http().post('/v1/quotes').set(bearer(who)).send(body).expect(200)).body.quote_id as string;
  const createTask = async (who: TestAccount, body: object) => {
    const quoteId = await quote(who, body);
    return (await t.http().post('/v1/tasks').set(bearer(who)).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: quoteId }).expect(202)).body.id as string;
  };
  const task = async (who: TestAccount, id: string) => (await t.http().get(`/v1/tasks/${id}`).set(bearer(who)).expect(200)).body as TaskBody;
  const waitTask = async (who: TestAccount, id: string, done: (task: TaskBody) => boolean): Promise<TaskBody> => {
    const until = Date.now() + 15_000;
    for (;;) {
      const body = await task(who, id);
      if (done(body)) return body;
      if (Date.now() > until) throw new Error(`task ${id}: ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const upload = async (who: TestAccount, body = WAV, mime = 'audio/wav', name = 'sample.wav') => {
    const res = await t.http().post('/v1/uploads').set(bearer(who)).set('Content-Type', mime).set('X-Filename', name).send(body).expect(201);
    return (res.body.asset_id ?? res.body.asset?.id ?? res.body.id) as string;
  };
  /** Voice cloning through the public flow: upload, quote, task, wait. */
  const cloneVoice = async (who: TestAccount, name: string) => {
    const assetId = await upload(who);
    const taskId = await createTask(who, { model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: [assetId], name, consent_attested: true } });
    const done = await waitTask(who, taskId, (x) => x.status === 'succeeded' || x.status === 'failed');
    expect(done.status).toBe('succeeded');
    return { taskId, voiceId: done.output!.voice_id as string, done };
  };
  const getVoice = (who: TestAccount, id: string) => t.http().get(`/v1/voices/${id}`).set(bearer(who));

  it('voice cloning makes an owned voice: listed and readable, with its deletion state and the models that can use it', async () => {
    const { taskId, voiceId, done } = await cloneVoice(acc, 'Narrator');
    expect(voiceId).toMatch(/^voice_/);
    expect(done.output!.asset_ids).toHaveLength(1);

    const res = await getVoice(acc, voiceId).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(VOICE_FIELDS);
    expect(res.body).toEqual({
      id: voiceId,
      name: 'Narrator',
      status: 'active',
      source_task_id: taskId,
      models: ['speech-tts-std'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
      deletion: { status: 'none', requested_at: null, completed_at: null },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/local|lv1-|supplier/);

    const list = await t.http().get('/v1/voices').set(bearer(acc)).expect(200);
    expect(list.body).toEqual({ data: expect.any(Array), page: 1, limit: 30, has_more: false });
    expect(list.body.data.map((v: { id: string }) => v.id)).toContain(voiceId);
    expect(list.body.data.find((v: { id: string }) => v.id === voiceId)).toEqual(res.body);
  });

  it('refuses voice cloning without consent at quote time', async () => {
    const assetId = await upload(acc);
    const res = await t
      .http()
      .post('/v1/quotes')
      .set(bearer(acc))
      .send({ model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: [assetId], name: 'x', consent_attested: false } })
      .expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
  });

  it('another account cannot see, use or delete a voice', async () => {
    const { voiceId } = await cloneVoice(acc, 'Mine');
    expectError((await getVoice(other, voiceId).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().delete(`/v1/voices/${voiceId}`).set(bearer(other)).expect(404)).body, 'NOT_FOUND');
    const list = await t.http().get('/v1/voices').set(bearer(other)).expect(200);
    expect(list.body.data.map((v: { id: string }) => v.id)).not.toContain(voiceId);
    const q = await t
      .http()
      .post('/v1/quotes')
      .set(bearer(other))
      .send({ model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'hi', voice_id: voiceId } })
      .expect(400);
    expectError(q.body, 'VALIDATION_ERROR');
    expect(q.body.error.message).toContain('voice_id');
    expectError((await getVoice(acc, 'voice_doesnotexist00').expect(404)).body, 'NOT_FOUND');
    expectError((await getVoice(acc, '..%2F..%2Fetc').expect(404)).body, 'NOT_FOUND');
  });

  it('speech with the voice, 409 VOICE_IN_USE while that task runs, then deletion queued (202) and carried out', async () => {
    const { voiceId } = await cloneVoice(acc, 'Reader');
    t.app.get(LocalSupplierControls, { strict: false }).setDelayMs(600);
    const ttsTask = await createTask(acc, { model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'Hello from my own voice.', voice_id: voiceId } });

    const busy = await t.http().delete(`/v1/voices/${voiceId}`).set(bearer(acc)).expect(409);
    expectError(busy.body, 'VOICE_IN_USE');
    expect((await getVoice(acc, voiceId).expect(200)).body.status).toBe('active');

    const spoken = await waitTask(acc, ttsTask, (x) => x.status === 'succeeded' || x.status === 'failed');
    expect(spoken.status).toBe('succeeded');
    expect(spoken.output!.asset_ids).toHaveLength(1);

    const del = await t.http().delete(`/v1/voices/${voiceId}`).set(bearer(acc)).expect(202);
    expect(del.body).toMatchObject({ id: voiceId, status: 'deleting', models: [], deletion: { status: 'queued', requested_at: expect.any(String), completed_at: null } });
    // repeating the delete is harmless
    await t.http().delete(`/v1/voices/${voiceId}`).set(bearer(acc)).expect(202);

    const until = Date.now() + 10_000;
    let body: VoiceBody;
    for (;;) {
      body = (await getVoice(acc, voiceId).expect(200)).body;
      if (body.status === 'deleted' || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(body).toMatchObject({ status: 'deleted', deletion: { status: 'completed', requested_at: del.body.deletion.requested_at, completed_at: expect.any(String) } });
    const events = await t.app.get(EventStore).readStream(`voice-${voiceId}`);
    expect(events.map((e) => e.type)).toEqual(['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted']);

    // gone from the list, no longer usable
    const list = await t.http().get('/v1/voices').set(bearer(acc)).expect(200);
    expect(list.body.data.map((v: { id: string }) => v.id)).not.toContain(voiceId);
    const deleted = await t.http().get('/v1/voices?status=deleted').set(bearer(acc)).expect(200);
    expect(deleted.body.data.map((v: { id: string }) => v.id)).toContain(voiceId);
    const q = await t
      .http()
      .post('/v1/quotes')
      .set(bearer(acc))
      .send({ model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'hi', voice_id: voiceId } })
      .expect(400);
    expectError(q.body, 'VALIDATION_ERROR');
  });

  it('a voice is free again when the task using it fails', async () => {
    const { voiceId } = await cloneVoice(acc, 'Failing');
    const controls = t.app.get(LocalSupplierControls, { strict: false });
    controls.setDelayMs(300).failNext();
    const ttsTask = await createTask(acc, { model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'x', voice_id: voiceId } });
    expectError((await t.http().delete(`/v1/voices/${voiceId}`).set(bearer(acc)).expect(409)).body, 'VOICE_IN_USE');
    expect((await waitTask(acc, ttsTask, (x) => x.status === 'failed' || x.status === 'succeeded')).status).toBe('failed');
    await t.http().delete(`/v1/voices/${voiceId}`).set(bearer(acc)).expect(202);
  });

  it('pages the list, newest first', async () => {
    const acc2 = await createAccount(t, { credit: '100.00' });
    const made: string[] = [];
    for (const name of ['One', 'Two', 'Three']) made.push((await cloneVoice(acc2, name)).voiceId);
    const p1 = await t.http().get('/v1/voices?limit=2').set(bearer(acc2)).expect(200);
    expect(p1.body).toMatchObject({ page: 1, limit: 2, has_more: true });
    expect(p1.body.data.map((v: { name: string }) => v.name)).toEqual(['Three', 'Two']);
    const p2 = await t.http().get('/v1/voices?limit=2&page=2').set(bearer(acc2)).expect(200);
    expect(p2.body).toMatchObject({ page: 2, limit: 2, has_more: false });
    expect(p2.body.data.map((v: { name: string }) => v.name)).toEqual(['One']);
    expectError((await t.http().get('/v1/voices?limit=0').set(bearer(acc2)).expect(400)).body, 'VALIDATION_ERROR');
    expectError((await t.http().get('/v1/voices?limit=101').set(bearer(acc2)).expect(400)).body, 'VALIDATION_ERROR');
    expectError((await t.http().get('/v1/voices?status=gone').set(bearer(acc2)).expect(400)).body, 'VALIDATION_ERROR');
    expectError((await t.http().get('/v1/voices?colour=red').set(bearer(acc2)).expect(400)).body, 'VALIDATION_ERROR');
  });

  it('needs a credential', async () => {
    expectError((await t.http().get('/v1/voices').expect(401)).body, 'UNAUTHORIZED');
    expectError((await t.http().delete('/v1/voices/voice_x').expect(401)).body, 'UNAUTHORIZED');
  });
});
