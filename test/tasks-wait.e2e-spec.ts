import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startTestApp, expectError, type TestApp } from './support/test-app';
import { bearer, createAccount, type TestAccount } from './support/accounts';

/** Waiting for a result (CONTRACT §16): `Prefer: wait=N` and the task event stream. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type TaskBody = Record<string, any>;

const TEXT = { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'Write a haiku' } };
const FINISHED = ['succeeded', 'failed', 'canceled'];
const finished = (task: TaskBody) => FINISHED.includes(task.status) && task.settlement_status !== 'reserved';

interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Reads a server-sent event stream to its end: the events and the comment lines. */
async function readStream(res: Response, onEvent?: (e: SseEvent) => void): Promise<{ events: SseEvent[]; comments: string[] }> {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const e: SseEvent = { data: '' };
      let isEvent = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        else {
          isEvent = true;
          const [field, ...rest] = line.split(':');
          const value = rest.join(':').replace(/^ /, '');
          if (field === 'data') e.data += value;
          else if (field === 'id') e.id = value;
          else if (field === 'event') e.event = value;
        }
      }
      if (isEvent) {
        events.push(e);
        onEvent?.(e);
      }
    }
  }
  return { events, comments };
}

function helpers(t: () => TestApp) {
  const base = () => `http://127.0.0.1:${(t().app.getHttpServer().address() as AddressInfo).port}`;
  const quote = async (acc: TestAccount, body: object = TEXT): Promise<string> =>
    (await t().http().post('/v1/quotes').set(bearer(acc)).send(body).expect(200)).body.quote_id as string;
  const create = async (acc: TestAccount): Promise<TaskBody> =>
    (await t().http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: await quote(acc) }).expect(202)).body;
  const events = (acc: TestAccount, id: string, headers: Record<string, string> = {}) =>
    fetch(`${base()}/v1/tasks/${id}/events`, { headers: { ...bearer(acc), Accept: 'text/event-stream', ...headers } });
  return { base, quote, create, events };
}

describe('waiting for a task (a task takes about 0.6 s)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let other: TestAccount;
  const h = helpers(() => t);

  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '300' } });
    acc = await createAccount(t, { credit: '100.00' });
    other = await createAccount(t, { credit: '10.00' });
  });
  afterAll(() => t.close());

  it('GET /v1/tasks/{id} with Prefer: wait=N answers with the finished, settled task and Preference-Applied', async () => {
    const task = await h.create(acc);
    expect(task.status).toBe('queued');
    const res = await t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).set('Prefer', 'wait=30').expect(200);
    expect(res.headers['preference-applied']).toBe('wait=30');
    expect(res.body).toMatchObject({ id: task.id, status: 'succeeded', settlement_status: 'settled', charged_amount: expect.stringMatching(/^\d+\.\d{6}$/) });
    expect(res.body.output.text).toEqual(expect.any(String));
    // the body is exactly what a plain read returns
    expect((await t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).expect(200)).body).toEqual(res.body);
  });

  it('POST /v1/tasks with Prefer: wait=N answers 202 with the finished task; a repeat of the key too', async () => {
    const quoteId = await h.quote(acc);
    const key = `key-${randomUUID()}`;
    const res = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', key).set('Prefer', 'respond-async, wait=30').send({ quote_id: quoteId }).expect(202);
    expect(res.headers['preference-applied']).toBe('wait=30');
    expect(finished(res.body)).toBe(true);
    expect(res.body.status).toBe('succeeded');
    const again = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', key).set('Prefer', 'wait=5').send({ quote_id: quoteId }).expect(202);
    expect(again.headers['preference-applied']).toBe('wait=5');
    expect(again.body).toEqual(res.body);
  });

  it('a wait ends at a cancellation too, with the reservation released', async () => {
    const task = await h.create(acc);
    const waiting = t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).set('Prefer', 'wait=30').then((r) => r);
    await t.http().post(`/v1/tasks/${task.id}/cancel`).set(bearer(acc)).send({}).expect(200);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'canceled', settlement_status: 'released', charged_amount: '0.000000' });
  });

  it('another account\'s task or an unknown one is 404 at once, without Preference-Applied', async () => {
    const task = await h.create(acc);
    for (const id of [task.id, 'task_doesnotexist']) {
      const res = await t.http().get(`/v1/tasks/${id}`).set(bearer(other)).set('Prefer', 'wait=60').expect(404);
      expectError(res.body, 'NOT_FOUND');
      expect(res.headers['preference-applied']).toBeUndefined();
    }
  });

  it('serves many callers waiting at once, several on each task', async () => {
    const tasks = await Promise.all(Array.from({ length: 10 }, () => h.create(acc)));
    const answers = await Promise.all(
      tasks.flatMap((task) => Array.from({ length: 20 }, () => t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).set('Prefer', 'wait=60').then((r) => r))),
    );
    expect(answers).toHaveLength(200);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers['preference-applied']).toBe('wait=60');
      expect(res.body).toMatchObject({ status: 'succeeded', settlement_status: 'settled' });
    }
  });

  it('GET /v1/tasks/{id}/events streams the task now and at every change, then ends after the finished state', async () => {
    const task = await h.create(acc);
    const res = await h.events(acc, task.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
    const { events } = await readStream(res);
    const states = events.map((e) => JSON.parse(e.data) as TaskBody);
    expect(events.every((e) => e.event === 'task')).toBe(true);
    expect(states[0].id).toBe(task.id);
    expect(['queued', 'running']).toContain(states[0].status);
    expect(states.map((s) => s.status)).toContain('succeeded');
    expect(finished(states[states.length - 1])).toBe(true);
    expect(states.slice(0, -1).some(finished)).toBe(false);
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]))).toBe(true);
    // the last state is the task as a read shows it
    expect(states[states.length - 1]).toEqual((await t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).expect(200)).body);
  });

  it('honours Last-Event-ID: only newer states, and 204 once the caller holds the finished one', async () => {
    const task = await h.create(acc);
    const first = await readStream(await h.events(acc, task.id));
    const ids = first.events.map((e) => e.id!);
    expect(ids.length).toBeGreaterThan(1);

    const resumed = await readStream(await h.events(acc, task.id, { 'Last-Event-ID': ids[0] }));
    expect(resumed.events.map((e) => e.id)).toEqual([ids[ids.length - 1]]);
    expect(JSON.parse(resumed.events[0].data)).toEqual(JSON.parse(first.events[first.events.length - 1].data));

    const done = await h.events(acc, task.id, { 'Last-Event-ID': ids[ids.length - 1] });
    expect(done.status).toBe(204);
    expect(await done.text()).toBe('');

    // an id that is not one of ours is ignored: the whole current state comes
    const unknown = await readStream(await h.events(acc, task.id, { 'Last-Event-ID': 'not-an-id' }));
    expect(unknown.events.map((e) => e.id)).toEqual([ids[ids.length - 1]]);
  });

  it('the event stream answers 404 for another account\'s task and 401 without a credential, as JSON', async () => {
    const task = await h.create(acc);
    const res = await h.events(other, task.id);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expectError(await res.json(), 'NOT_FOUND');
    const anonymous = await fetch(`${h.base()}/v1/tasks/${task.id}/events`);
    expect(anonymous.status).toBe(401);
    expectError(await anonymous.json(), 'UNAUTHORIZED');
  });

  it('lets browsers of other origins send Prefer and Last-Event-ID and read Preference-Applied', async () => {
    const preflight = await t
      .http()
      .options('/v1/tasks/task_x')
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization, prefer, last-event-id')
      .expect(204);
    for (const name of ['Prefer', 'Last-Event-ID']) expect(preflight.headers['access-control-allow-headers']).toContain(name);
    const task = await h.create(acc);
    const res = await t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).set('Origin', 'https://app.example').set('Prefer', 'wait=1').expect(200);
    expect(res.headers['access-control-expose-headers']).toContain('Preference-Applied');
  });
});

describe('waiting for a task that takes a minute', () => {
  let t: TestApp;
  let acc: TestAccount;
  const h = helpers(() => t);
  let closed = false;

  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '60000' } });
    acc = await createAccount(t, { credit: '100.00' });
  });
  afterAll(async () => {
    if (!closed) await t.close();
  });

  it('Prefer: wait=1 answers with the task as it is after a second', async () => {
    const task = await h.create(acc);
    const res = await t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).set('Prefer', 'wait=1').expect(200);
    expect(res.headers['preference-applied']).toBe('wait=1');
    expect(res.body).toMatchObject({ id: task.id, status: 'queued', settlement_status: 'reserved' });
    const created = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `key-${randomUUID()}`).set('Prefer', 'wait=1').send({ quote_id: await h.quote(acc) }).expect(202);
    expect(created.headers['preference-applied']).toBe('wait=1');
    expect(created.body.status).toBe('queued');
  });

  it('ignores invalid preferences (RFC 7240): the answer comes without waiting and without Preference-Applied', async () => {
    const task = await h.create(acc);
    // Honoured, any of these would hold the answer for up to a minute, past the test's time.
    for (const prefer of ['wait=0', 'wait=61', 'wait=3600', 'wait=abc', 'wait', 'wait=1.5', 'respond-async']) {
      const res = await t.http().get(`/v1/tasks/${task.id}`).set(bearer(acc)).set('Prefer', prefer).expect(200);
      expect({ prefer, applied: res.headers['preference-applied'] }).toEqual({ prefer, applied: undefined });
      expect(res.body.status).toBe('queued');
    }
    const created = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `key-${randomUUID()}`).set('Prefer', 'wait=99').send({ quote_id: await h.quote(acc) }).expect(202);
    expect(created.headers['preference-applied']).toBeUndefined();
  });

  it('a shutdown ends open streams instead of waiting for them', async () => {
    const task = await h.create(acc);
    const stream = await h.events(acc, task.id);
    let first!: () => void;
    const gotFirst = new Promise<void>((r) => (first = r));
    const reading = readStream(stream, () => first());
    await gotFirst;
    // The server closes only once its open answers end: without the shutdown ending them this would wait a minute.
    closed = true;
    await t.close();
    const { events } = await reading;
    expect(events.map((e) => JSON.parse(e.data).status)).toEqual(['queued']);
  });
});
