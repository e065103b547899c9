import { randomUUID } from 'node:crypto';
import { EventStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { FixedClock, type NewEvent } from '@gensvc/kernel';
import { WalletCommands } from '@gensvc/wallet';
import { startTestApp, expectError, type TestApp } from './support/test-app';
import { bearer, createAccount, createApiKey, type TestAccount } from './support/accounts';

const AMOUNT = /^\d+\.\d{6}$/;
const TASK_FIELDS = [
  'cancellation',
  'capability',
  'charged_amount',
  'completed_at',
  'created_at',
  'currency',
  'error',
  'id',
  'max_amount',
  'model',
  'modality',
  'output',
  'price_version',
  'quote_id',
  'resolved_model',
  'settlement_status',
  'status',
  'title',
  'updated_at',
].sort();

/** A task as GET /v1/tasks/{id} returns it (loosely typed for assertions). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type TaskBody = Record<string, any>;

const TEXT = { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'Write a haiku' } };
const IMAGE = (count = 1) => ({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a fox', count } });
const key = () => `key-${randomUUID()}`;

function helpers(t: () => TestApp) {
  const quote = async (acc: TestAccount, body: object = TEXT): Promise<string> => {
    const res = await t().http().post('/v1/quotes').set(bearer(acc)).send(body).expect(200);
    return res.body.quote_id as string;
  };
  const create = (acc: TestAccount, body: object, idempotencyKey: string | null = key()) => {
    const req = t().http().post('/v1/tasks').set(bearer(acc));
    if (idempotencyKey !== null) req.set('Idempotency-Key', idempotencyKey);
    return req.send(body);
  };
  const wallet = async (acc: TestAccount) => (await t().http().get('/v1/wallet').set(bearer(acc)).expect(200)).body;
  const task = async (acc: TestAccount, id: string) => (await t().http().get(`/v1/tasks/${id}`).set(bearer(acc)).expect(200)).body;
  const waitFor = async (acc: TestAccount, id: string, done: (task: TaskBody) => boolean, timeoutMs = 15_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const body = await task(acc, id);
      if (done(body)) return body;
      if (Date.now() > until) throw new Error(`task ${id} did not reach the state in time: ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { quote, create, wallet, task, waitFor };
}

describe('POST /v1/tasks', () => {
  let t: TestApp;
  const h = helpers(() => t);

  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '300' } });
  });
  afterAll(() => t.close());

  it('creates a task from a quote: 202, the task object, the quote locked and max_amount reserved at once', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc, IMAGE(2));
    const res = await h.create(acc, { quote_id: quoteId, title: '  Foxes  ' }).expect(202);
    expect(Object.keys(res.body).sort()).toEqual(TASK_FIELDS);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^task_/),
      status: 'queued',
      model: 'image-studio-v2',
      resolved_model: 'image-studio-v2-2026-10-15',
      capability: 'image.generate',
      modality: 'image',
      title: 'Foxes',
      quote_id: quoteId,
      price_version: expect.any(String),
      currency: 'CNY',
      max_amount: '0.400000',
      charged_amount: null,
      settlement_status: 'reserved',
      cancellation: { status: 'none', requested_at: null, error_code: null },
      output: null,
      error: null,
      completed_at: null,
    });
    expect(res.body.max_amount).toMatch(AMOUNT);
    // read-your-writes: the reservation and the task are visible right after the 202
    expect(await h.wallet(acc)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.400000', available: '0.600000' });
    const read = await h.task(acc, res.body.id);
    expect(read.id).toBe(res.body.id);
    expect(['queued', 'running']).toContain(read.status);
  });

  it('validates the Idempotency-Key header: required, 8 to 150 characters', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc);
    for (const k of [null, '1234567', 'k'.repeat(151)]) {
      const res = await h.create(acc, { quote_id: quoteId }, k).expect(400);
      expectError(res.body, 'VALIDATION_ERROR');
      expect(res.body.error.message).toContain('Idempotency-Key');
    }
    await h.create(acc, { quote_id: quoteId }, 'k'.repeat(8)).expect(202);
    expect((await h.wallet(acc)).reserved).toBe('0.020000');
  });

  it('validates the body: quote_id required, title 1 to 200 characters after trimming, no other fields', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc);
    const cases: [object, string][] = [
      [{}, 'quote_id: is required'],
      [{ title: 'no quote' }, 'quote_id: is required'],
      [{ quote_id: '' }, 'quote_id'],
      [{ quote_id: 5 }, 'quote_id'],
      [{ quote_id: quoteId, title: '   ' }, 'title'],
      [{ quote_id: quoteId, title: 'x'.repeat(201) }, 'title'],
      [{ quote_id: quoteId, title: 7 }, 'title'],
      [{ quote_id: quoteId, priority: 'high' }, 'priority'],
    ];
    for (const [body, field] of cases) {
      const res = await h.create(acc, body).expect(400);
      expectError(res.body, 'VALIDATION_ERROR');
      expect(res.body.error.message).toContain(field);
    }
    const ok = await h.create(acc, { quote_id: quoteId, title: ` ${'y'.repeat(200)} ` }).expect(202);
    expect(ok.body.title).toBe('y'.repeat(200));
  });

  it('returns the same task for the same key and body, with no second reservation', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc);
    const k = key();
    const first = await h.create(acc, { quote_id: quoteId, title: 'once' }, k).expect(202);
    const again = await h.create(acc, { quote_id: quoteId, title: 'once' }, k).expect(202);
    expect(again.body.id).toBe(first.body.id);
    expect((await h.wallet(acc)).reserved).toBe('0.020000');
    const list = await t.http().get('/v1/tasks').set(bearer(acc)).expect(200);
    expect(list.body.data).toHaveLength(1);
  });

  it('creates one task and one reservation for 20 concurrent identical requests', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc, IMAGE(1));
    const k = key();
    const results = await Promise.all(Array.from({ length: 20 }, () => h.create(acc, { quote_id: quoteId }, k)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await h.wallet(acc)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.200000', available: '0.800000' });
    const list = await t.http().get('/v1/tasks').set(bearer(acc)).expect(200);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([results[0].body.id]);
  });

  it('answers the same key with another body 409 IDEMPOTENCY_CONFLICT, with Location naming the task the key created', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const [q1, q2] = [await h.quote(acc), await h.quote(acc)];
    const k = key();
    const created = await h.create(acc, { quote_id: q1 }, k).expect(202);
    const conflict = await h.create(acc, { quote_id: q2 }, k).expect(409);
    expectError(conflict.body, 'IDEMPOTENCY_CONFLICT');
    expect(conflict.headers.location).toBe(`/v1/tasks/${created.body.id}`);
    expectError((await h.create(acc, { quote_id: q1, title: 'other' }, k).expect(409)).body, 'IDEMPOTENCY_CONFLICT');
    expect((await h.wallet(acc)).reserved).toBe('0.020000');
  });

  it('answers a new key for a used quote 409 QUOTE_ALREADY_USED', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc);
    await h.create(acc, { quote_id: quoteId }).expect(202);
    const res = await h.create(acc, { quote_id: quoteId }).expect(409);
    expectError(res.body, 'QUOTE_ALREADY_USED');
    expect((await h.wallet(acc)).reserved).toBe('0.020000');
  });

  it('answers short funds 402 INSUFFICIENT_FUNDS and reserves nothing; the quote stays usable', async () => {
    const acc = await createAccount(t, { credit: '0.10' });
    const quoteId = await h.quote(acc, IMAGE(1));
    const k = key();
    const res = await h.create(acc, { quote_id: quoteId }, k).expect(402);
    expectError(res.body, 'INSUFFICIENT_FUNDS');
    expect(await h.wallet(acc)).toEqual({ currency: 'CNY', balance: '0.100000', reserved: '0.000000', available: '0.100000' });
    const none = await t.http().get('/v1/tasks').set(bearer(acc)).expect(200);
    expect(none.body.data).toEqual([]);
    await createCredit(t, acc, '0.10');
    await h.create(acc, { quote_id: quoteId }, k).expect(202);
  });

  it("answers another account's quote 404, and unknown quotes 404", async () => {
    const owner = await createAccount(t, { credit: '1.00' });
    const other = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(owner);
    expectError((await h.create(other, { quote_id: quoteId }).expect(404)).body, 'NOT_FOUND');
    expectError((await h.create(other, { quote_id: 'qt_doesnotexist' }).expect(404)).body, 'NOT_FOUND');
    expect((await h.wallet(other)).reserved).toBe('0.000000');
  });

  it("answers another account's task 404 on read and cancel", async () => {
    const owner = await createAccount(t, { credit: '1.00' });
    const other = await createAccount(t, { credit: '1.00' });
    const created = await h.create(owner, { quote_id: await h.quote(owner) }).expect(202);
    expectError((await t.http().get(`/v1/tasks/${created.body.id}`).set(bearer(other)).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().post(`/v1/tasks/${created.body.id}/cancel`).set(bearer(other)).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().get('/v1/tasks/task_nope').set(bearer(owner)).expect(404)).body, 'NOT_FOUND');
  });

  it('needs the create scope and a credential', async () => {
    await t.http().post('/v1/tasks').set('Idempotency-Key', key()).send({ quote_id: 'qt_x' }).expect(401);
  });
});

async function createCredit(t: TestApp, acc: TestAccount, amount: string): Promise<void> {
  await t.app.get(WalletCommands, { strict: false }).credit(acc.accountId, amount, 'test');
  // the projection follows the event store: wait until it shows the credit
  await t.app.get(SubscriptionEngine).waitFor(await t.app.get(EventStore).headPosition());
}

describe('an expired quote', () => {
  let t: TestApp;
  const clock = new FixedClock(new Date());
  const h = helpers(() => t);
  beforeAll(async () => {
    t = await startTestApp({ overrides: { clock } });
  });
  afterAll(() => t.close());

  it('is refused after 15 minutes with 409 QUOTE_EXPIRED and nothing reserved', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc);
    clock.advance(15 * 60_000 + 1);
    const res = await h.create(acc, { quote_id: quoteId }).expect(409);
    expectError(res.body, 'QUOTE_EXPIRED');
    expect((await h.wallet(acc)).reserved).toBe('0.000000');
  });
});

describe('a crash between the appends of a task creation', () => {
  let t: TestApp;
  const h = helpers(() => t);
  afterEach(() => t?.close());

  /** Makes the next append to a stream with this prefix fail, as if the process died there. */
  const crashOnNextAppend = (app: TestApp, prefix: string) => {
    const events = app.app.get(EventStore);
    const original = events.appendToStream.bind(events);
    events.appendToStream = (async (stream: string, evs: readonly NewEvent[], o?: object) => {
      if (stream.startsWith(prefix)) {
        events.appendToStream = original;
        throw new Error(`simulated crash before appending to ${stream}`);
      }
      return original(stream, evs, o);
    }) as EventStore['appendToStream'];
  };

  it('is finished by a retry with the same key: one task, one reservation', async () => {
    t = await startTestApp();
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc);
    const k = key();
    crashOnNextAppend(t, 'task-');
    const failed = await h.create(acc, { quote_id: quoteId }, k).expect(500);
    expectError(failed.body, 'INTERNAL');
    const retry = await h.create(acc, { quote_id: quoteId }, k).expect(202);
    expect(await h.wallet(acc)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.020000', available: '0.980000' });
    const done = await h.waitFor(acc, retry.body.id, (x) => x.status === 'succeeded' && x.settlement_status === 'settled');
    expect(done.charged_amount).toBe('0.020000');
    expect(await h.wallet(acc)).toEqual({ currency: 'CNY', balance: '0.980000', reserved: '0.000000', available: '0.980000' });
  });

  /**
   * From now on the process can no longer write the steps of one creation (its quote lock,
   * reservation and task), as if it had died right after recording the intent; the reactor's
   * attempts to finish it fail the same way. Returns the task id once the intent is recorded.
   */
  const freezeNextCreation = (app: TestApp) => {
    const events = app.app.get(EventStore);
    const original = events.appendToStream.bind(events);
    let taskId: string | null = null;
    events.appendToStream = (async (stream: string, evs: readonly NewEvent[], o?: object) => {
      const data = evs[0]?.data as { task_id?: string; reservation_id?: string } | undefined;
      if (stream.startsWith('taskcreation-') && taskId === null) taskId = data?.task_id ?? null;
      else if (taskId !== null && (data?.task_id === taskId || data?.reservation_id === taskId)) throw new Error(`simulated crash before appending to ${stream}`);
      return original(stream, evs, o);
    }) as EventStore['appendToStream'];
    return () => taskId;
  };

  const taskEvents = async (app: TestApp, taskId: string) => (await app.app.get(EventStore).readStream(`task-${taskId}`)).map((e) => e.type);

  it('is finished by the server after a restart, without the client retrying', async () => {
    t = await startTestApp();
    const dataDir = t.dataDir;
    const acc = await createAccount(t, { credit: '1.00' });
    const quoteId = await h.quote(acc);
    const frozen = freezeNextCreation(t);
    await h.create(acc, { quote_id: quoteId }).expect(500);
    const taskId = frozen()!;
    expect((await h.wallet(acc)).reserved).toBe('0.000000');
    expect((await t.http().get('/v1/tasks').set(bearer(acc)).expect(200)).body.data).toEqual([]);
    await t.app.close();

    // the next process hears the stored intent from its checkpoint and finishes the creation
    t = await startTestApp({ dataDir });
    const list = await waitForList(t, acc);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: taskId, quote_id: quoteId });
    const done = await h.waitFor(acc, list[0].id, (x) => x.settlement_status === 'settled');
    expect(done.status).toBe('succeeded');
    expect(await h.wallet(acc)).toEqual({ currency: 'CNY', balance: '0.980000', reserved: '0.000000', available: '0.980000' });
    expect(await taskEvents(t, taskId)).toEqual(['TaskCreated', 'TaskStarted', 'TaskSucceeded', 'TaskSettled']);
  });

  it('is rolled back by the server when it can no longer succeed: the lock and the reservation are given back', async () => {
    t = await startTestApp();
    const dataDir = t.dataDir;
    const acc = await createAccount(t, { credit: '0.20' });
    const quoteId = await h.quote(acc, IMAGE(1));
    const frozen = freezeNextCreation(t);
    await h.create(acc, { quote_id: quoteId }).expect(500);
    const taskId = frozen()!;
    // meanwhile another task spends the money
    await h.create(acc, { quote_id: await h.quote(acc, IMAGE(1)) }).expect(202);
    await t.app.close();

    t = await startTestApp({ dataDir });
    for (let i = 0; i < 250 && !(await taskEvents(t, taskId)).includes('TaskCreationRolledBack'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await taskEvents(t, taskId)).toEqual(['TaskCreationRejected', 'TaskCreationRolledBack']);
    await createCredit(t, acc, '0.20');
    // the quote is free again for a new key
    const res = await h.create(acc, { quote_id: quoteId }).expect(202);
    expect(res.body.quote_id).toBe(quoteId);
    expect((await h.wallet(acc)).balance).toMatch(AMOUNT);
  });

  async function waitForList(app: TestApp, acc: TestAccount) {
    for (let i = 0; i < 100; i++) {
      const res = await app.http().get('/v1/tasks').set(bearer(acc)).expect(200);
      if (res.body.data.length) return res.body.data;
      await new Promise((r) => setTimeout(r, 20));
    }
    return [];
  }
});

describe('more keys of one account', () => {
  let t: TestApp;
  const h = helpers(() => t);
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('scopes an Idempotency-Key to the account, across its API keys', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const second = await createApiKey(t, acc.accountId);
    const quoteId = await h.quote(acc);
    const k = key();
    const a = await h.create(acc, { quote_id: quoteId }, k).expect(202);
    const b = await h.create({ ...acc, apiKey: second.apiKey }, { quote_id: quoteId }, k).expect(202);
    expect(b.body.id).toBe(a.body.id);
    // the same key in another account is another task
    const other = await createAccount(t, { credit: '1.00' });
    const c = await h.create(other, { quote_id: await h.quote(other) }, k).expect(202);
    expect(c.body.id).not.toBe(a.body.id);
  });
});
