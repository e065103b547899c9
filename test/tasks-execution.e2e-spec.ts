import { randomUUID } from 'node:crypto';
import { LocalSupplierControls, SupplierSettings } from '@gensvc/suppliers';
import { startTestApp, expectError, type TestApp } from './support/test-app';
import { bearer, createAccount, type TestAccount } from './support/accounts';

/** A task as GET /v1/tasks/{id} returns it (loosely typed for assertions). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type TaskBody = Record<string, any>;

const TEXT = { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'Write a haiku about rain' } };
const IMAGE = { model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a fox', size: '512x512', count: 2 } };

describe('task execution, settlement and cancellation (built-in local supplier)', () => {
  let t: TestApp;
  let controls: LocalSupplierControls;
  const DELAY = 400;

  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: String(DELAY) } });
    controls = t.app.get(LocalSupplierControls, { strict: false });
  });
  afterAll(() => t.close());
  afterEach(() => {
    controls.reset().setDelayMs(DELAY);
    t.app.get(SupplierSettings, { strict: false }).jobDeadlineMs = 600_000;
  });

  const start = async (acc: TestAccount, body: object = TEXT) => {
    const q = await t.http().post('/v1/quotes').set(bearer(acc)).send(body).expect(200);
    const res = await t.http().post('/v1/tasks').set(bearer(acc)).set('Idempotency-Key', `key-${randomUUID()}`).send({ quote_id: q.body.quote_id }).expect(202);
    return { task: res.body, quote: q.body };
  };
  const get = async (acc: TestAccount, id: string) => (await t.http().get(`/v1/tasks/${id}`).set(bearer(acc)).expect(200)).body;
  const wallet = async (acc: TestAccount) => (await t.http().get('/v1/wallet').set(bearer(acc)).expect(200)).body;
  const cancel = (acc: TestAccount, id: string) => t.http().post(`/v1/tasks/${id}/cancel`).set(bearer(acc));
  const waitFor = async (acc: TestAccount, id: string, done: (x: TaskBody) => boolean, timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    const seen: string[] = [];
    for (;;) {
      const x = await get(acc, id);
      if (seen.at(-1) !== x.status) seen.push(x.status);
      if (done(x)) return { task: x, seen };
      if (Date.now() > until) throw new Error(`task ${id} stuck: ${JSON.stringify(x)}`);
      await new Promise((r) => setTimeout(r, 15));
    }
  };
  const bills = async (acc: TestAccount) => (await t.http().get('/v1/billing').set(bearer(acc)).expect(200)).body.data;

  it('runs queued → running → succeeded, charges the estimated amount and settles the bill', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const { task, quote } = await start(acc, IMAGE);
    expect(task.status).toBe('queued');
    const { task: done, seen } = await waitFor(acc, task.id, (x) => x.settlement_status === 'settled');
    expect(seen).toEqual(expect.arrayContaining(['queued', 'running', 'succeeded']));
    expect(done).toMatchObject({
      status: 'succeeded',
      charged_amount: quote.estimated_amount,
      settlement_status: 'settled',
      error: null,
      completed_at: expect.any(String),
      cancellation: { status: 'none', requested_at: null, error_code: null },
    });
    expect(done.output.asset_ids).toHaveLength(2);
    expect(await wallet(acc)).toEqual({ currency: 'CNY', balance: '0.840000', reserved: '0.000000', available: '0.840000' });
    const [bill] = await bills(acc);
    expect(bill).toEqual({
      id: expect.stringMatching(/^bill_/),
      task_id: task.id,
      model: 'image-studio-v2',
      modality: 'image',
      currency: 'CNY',
      max_amount: '0.160000',
      charged_amount: '0.160000',
      released_amount: '0.000000',
      settlement_status: 'settled',
      created_at: task.created_at,
      settled_at: expect.any(String),
    });
    // the output is the account's asset
    await t.http().get(`/v1/assets/${done.output.asset_ids[0]}`).set(bearer(acc)).expect(200);
  });

  it('returns text output for text models', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    const { task } = await start(acc);
    const { task: done } = await waitFor(acc, task.id, (x) => x.status === 'succeeded');
    expect(done.output.text).toContain('haiku');
    expect(done.output.asset_ids).toHaveLength(1);
  });

  it('releases everything when the supplier fails', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    controls.failNext();
    const { task } = await start(acc);
    const { task: done } = await waitFor(acc, task.id, (x) => x.settlement_status !== 'reserved');
    expect(done).toMatchObject({ status: 'failed', settlement_status: 'released', charged_amount: '0.000000', output: null });
    expect(done.error).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(await wallet(acc)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.000000', available: '1.000000' });
    const [bill] = await bills(acc);
    expect(bill).toMatchObject({ settlement_status: 'released', charged_amount: '0.000000', released_amount: '0.020000' });
  });

  it('fails and releases a task stuck at its supplier past the deadline', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    t.app.get(SupplierSettings, { strict: false }).jobDeadlineMs = 1500;
    controls.hangNext();
    const { task } = await start(acc);
    const { task: done } = await waitFor(acc, task.id, (x) => x.settlement_status !== 'reserved');
    expect(done.status).toBe('failed');
    expect(done.settlement_status).toBe('released');
    expect((await wallet(acc)).reserved).toBe('0.000000');
  });

  it('cancels a queued task at once: 200, canceled, confirmed, released', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    controls.setDelayMs(3000);
    const { task } = await start(acc);
    const res = await cancel(acc, task.id).expect(200);
    expect(res.body).toEqual({ task_id: task.id, status: 'canceled', cancellation: { status: 'confirmed', requested_at: expect.any(String), error_code: null } });
    expect(await wallet(acc)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.000000', available: '1.000000' });
    const read = await get(acc, task.id);
    expect(read).toMatchObject({ status: 'canceled', settlement_status: 'released', charged_amount: '0.000000', cancellation: { status: 'confirmed' } });
    // repeating is harmless
    const again = await cancel(acc, task.id).expect(200);
    expect(again.body.cancellation.status).toBe('confirmed');
    expect((await wallet(acc)).available).toBe('1.000000');
  });

  it('cancels a running task through the supplier: 202 requested, then confirmed and released', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    controls.setDelayMs(1500);
    const { task } = await start(acc);
    await waitFor(acc, task.id, (x) => x.status === 'running');
    const res = await cancel(acc, task.id).expect(202);
    expect(res.body).toMatchObject({ task_id: task.id, status: 'running', cancellation: { status: expect.stringMatching(/^(requested|checking)$/), error_code: null } });
    expect((await wallet(acc)).reserved).toBe('0.020000'); // funds stay reserved until confirmed
    const repeat = await cancel(acc, task.id);
    expect([200, 202]).toContain(repeat.status);
    const { task: done } = await waitFor(acc, task.id, (x) => x.settlement_status !== 'reserved');
    expect(done).toMatchObject({ status: 'canceled', cancellation: { status: 'confirmed' }, settlement_status: 'released' });
    expect((await wallet(acc)).available).toBe('1.000000');
  });

  it('lets the task go on when the supplier refuses: refused, then succeeded and charged', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    controls.refuseCancelNext();
    const { task } = await start(acc);
    await waitFor(acc, task.id, (x) => x.status === 'running');
    await cancel(acc, task.id).expect(202);
    const { task: refused } = await waitFor(acc, task.id, (x) => x.cancellation.status === 'refused' || x.status !== 'running');
    expect(refused.cancellation).toMatchObject({ status: 'refused', error_code: 'CANCEL_REFUSED', requested_at: expect.any(String) });
    const { task: done } = await waitFor(acc, task.id, (x) => x.settlement_status !== 'reserved');
    expect(done).toMatchObject({ status: 'succeeded', settlement_status: 'settled', charged_amount: '0.020000' });
    expect((await wallet(acc)).balance).toBe('0.980000');
  });

  it('records an unconfirmed cancellation and keeps the funds reserved until the task settles', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    controls.leaveCancelUnconfirmedNext();
    const { task } = await start(acc);
    await waitFor(acc, task.id, (x) => x.status === 'running');
    await cancel(acc, task.id).expect(202);
    const { task: after } = await waitFor(acc, task.id, (x) => x.cancellation.status === 'unconfirmed' || x.status !== 'running');
    expect(after.cancellation.status).toBe('unconfirmed');
    if (after.status === 'running') expect((await wallet(acc)).reserved).toBe('0.020000');
    const { task: done } = await waitFor(acc, task.id, (x) => x.settlement_status !== 'reserved');
    expect(['succeeded', 'failed', 'canceled']).toContain(done.status);
    expect((await wallet(acc)).reserved).toBe('0.000000');
  });

  it('answers a cancel of a finished task 200 not_needed and leaves it unchanged', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    controls.setDelayMs(50);
    const { task } = await start(acc);
    const { task: done } = await waitFor(acc, task.id, (x) => x.settlement_status === 'settled');
    const res = await cancel(acc, task.id).expect(200);
    expect(res.body).toEqual({ task_id: task.id, status: 'succeeded', cancellation: { status: 'not_needed', requested_at: expect.any(String), error_code: null } });
    expect(await get(acc, task.id)).toEqual(done);
    expect((await wallet(acc)).balance).toBe('0.980000');
  });

  it('ends a race of cancel and completion in exactly one outcome with the right money', async () => {
    const acc = await createAccount(t, { credit: '5.00' });
    controls.setDelayMs(120);
    const tasks = await Promise.all(Array.from({ length: 8 }, () => start(acc)));
    // cancel each at a different moment around its completion
    await Promise.all(
      tasks.map(async ({ task }, i) => {
        await new Promise((r) => setTimeout(r, 100 + i * 25));
        const res = await cancel(acc, task.id);
        expect([200, 202]).toContain(res.status);
      }),
    );
    let charged = 0;
    for (const { task } of tasks) {
      const { task: done } = await waitFor(acc, task.id, (x) => x.settlement_status !== 'reserved');
      if (done.status === 'succeeded') {
        expect(done.settlement_status).toBe('settled');
        charged += 20_000;
      } else {
        expect(done.status).toBe('canceled');
        expect(done.settlement_status).toBe('released');
        expect(done.cancellation.status).toBe('confirmed');
      }
    }
    const w = await wallet(acc);
    expect(w.reserved).toBe('0.000000');
    expect(w.balance).toBe(((5_000_000 - charged) / 1_000_000).toFixed(6));
    const sum = (await bills(acc)).reduce((a: number, b: { charged_amount: string }) => a + Math.round(Number(b.charged_amount) * 1e6), 0);
    expect(sum).toBe(charged);
  });

  it('answers a cancel of an unknown task 404', async () => {
    const acc = await createAccount(t, { credit: '1.00' });
    expectError((await cancel(acc, 'task_unknown').expect(404)).body, 'NOT_FOUND');
  });
});
