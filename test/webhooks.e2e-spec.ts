import request from 'supertest';
import { createServer, type AddressInfo } from 'node:net';
import { createHash, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { EventStore, ReadStore } from '@gensvc/event-sourcing';
import { AdminServer, type ReplayState } from '@gensvc/operations';
import { NotificationSettings, WebhookNetwork } from '@gensvc/notifications';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { waitForQuiet } from './support/operations-read-models';
import { waitForDeliveriesSettled } from './support/webhook-deliveries';
import { expectError, startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver, type ReceivedMessage } from './support/webhook-receiver';

const TOKEN = 'test-admin-token-0123456789abcdef';
const DELIVERY_FIELDS = ['attempts', 'created_at', 'event_type', 'id', 'message_id', 'next_attempt_at', 'status'];

interface Delivery {
  id: string;
  message_id: string;
  event_type: string;
  status: string;
  attempts: { at: string; status_code: number | null; duration_ms: number; error: string | null }[];
  next_attempt_at: string | null;
  created_at: string;
}

describe('webhook deliveries', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let acc: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await startTestApp({ env: { ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0', LOCAL_SUPPLIER_DELAY_MS: '50' } });
    const settings = t.app.get(NotificationSettings);
    settings.allowLocal = true;
    settings.retrySchedule = [0.3, 0.3, 0.3];
    receiver = await new WebhookReceiver().start();
    acc = await createAccount(t, { credit: '100.00' });
    other = await createAccount(t, { credit: '100.00' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const endpoint = async (who: TestAccount, path: string, events: string[] = ['*'], base = receiver.url) =>
    (await t.http().post('/v1/webhook-endpoints').set(bearer(who)).send({ url: `${base}${path}`, events }).expect(201)).body as { id: string; secret: string };
  const runTask = async (who: TestAccount, prompt = 'hello') => {
    const quote = await t.http().post('/v1/quotes').set(bearer(who)).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt } }).expect(200);
    const task = await t.http().post('/v1/tasks').set(bearer(who)).set('Idempotency-Key', `k-${randomUUID()}`).send({ quote_id: quote.body.quote_id }).expect(202);
    return task.body.id as string;
  };
  const deliveries = async (who: TestAccount, endpointId: string) =>
    (await t.http().get(`/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`).set(bearer(who)).expect(200)).body.data as Delivery[];
  const untilDeliveries = async (who: TestAccount, endpointId: string, check: (d: Delivery[]) => boolean, ms = 20_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const list = await deliveries(who, endpointId);
      if (check(list)) return list;
      if (Date.now() > deadline) throw new Error(`deliveries: ${JSON.stringify(list)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const parsed = (m: ReceivedMessage) => JSON.parse(m.body) as { type: string; timestamp: string; data: { id: string; status: string } };
  const verify = (secret: string, m: ReceivedMessage) => new Webhook(secret).verify(m.body, m.headers as Record<string, string>);

  it('sends task messages signed the Standard Webhooks way, with the task object as GET shows it', async () => {
    const ep = await endpoint(acc, '/all');
    const taskId = await runTask(acc);
    const msgs = await receiver.until((r) => {
      const mine = r.filter((m) => m.path === '/all' && parsed(m).data.id === taskId);
      return mine.some((m) => parsed(m).type === 'task.succeeded') && mine;
    });
    expect(msgs.map((m) => parsed(m).type)).toEqual(['task.created', 'task.running', 'task.succeeded']);
    for (const m of msgs) {
      expect(m.headers['content-type']).toBe('application/json');
      expect(m.headers['webhook-id']).toMatch(/^msg_[0-9a-z]+$/);
      expect(Math.abs(Number(m.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(m.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verify(ep.secret, m)).toEqual(JSON.parse(m.body));
      // a body changed in transit, or another secret, does not verify
      expect(() => new Webhook(ep.secret).verify(m.body.replace('task.', 'tusk.'), m.headers as Record<string, string>)).toThrow();
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(m.body, m.headers as Record<string, string>)).toThrow();
    }
    const final = await t.http().get(`/v1/tasks/${taskId}`).set(bearer(acc)).expect(200);
    const succeeded = parsed(msgs[2]);
    expect(succeeded.data).toEqual(final.body);
    expect(succeeded.data).toMatchObject({ status: 'succeeded', settlement_status: 'settled' });
    expect(parsed(msgs[0]).data).toMatchObject({ id: taskId, status: 'queued', charged_amount: null });
    expect(new Date(succeeded.timestamp).toISOString()).toBe(succeeded.timestamp);

    const list = await untilDeliveries(acc, ep.id, (d) => d.filter((x) => x.status === 'delivered').length >= 3);
    expect(Object.keys(list[0]).sort()).toEqual(DELIVERY_FIELDS);
    const ids = msgs.map((m) => m.headers['webhook-id']);
    expect(list.map((d) => d.message_id).sort()).toEqual([...ids].sort());
    expect(list.map((d) => d.event_type)).toEqual(['task.succeeded', 'task.running', 'task.created']); // newest first
    for (const d of list) {
      expect(d).toMatchObject({ status: 'delivered', next_attempt_at: null });
      expect(d.attempts).toEqual([{ at: expect.any(String), status_code: 204, duration_ms: expect.any(Number), error: null }]);
    }
  });

  it('retries after a 500 with the same webhook-id, and records each attempt', async () => {
    receiver.answer('/flaky', 500, 503, 200);
    const ep = await endpoint(acc, '/flaky', ['task.created']);
    const taskId = await runTask(acc);
    const msgs = await receiver.until((r) => r.filter((m) => m.path === '/flaky').length >= 3 && r.filter((m) => m.path === '/flaky'));
    expect(new Set(msgs.map((m) => m.headers['webhook-id'])).size).toBe(1);
    expect(parsed(msgs[2]).data.id).toBe(taskId);
    for (const m of msgs) expect(verify(ep.secret, m)).toMatchObject({ type: 'task.created' });
    const [d] = await untilDeliveries(acc, ep.id, (l) => l[0]?.status === 'delivered');
    expect(d.message_id).toBe(msgs[0].headers['webhook-id']);
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 503, 200]);
    expect(d.attempts.map((a) => a.error)).toEqual(['http_500', 'http_503', null]);
    expect(msgs.length).toBe(3);
  });

  it('gives up when the schedule is spent, and sends the same message again on request', async () => {
    receiver.answer('/down', 500);
    const ep = await endpoint(acc, '/down', ['task.created']);
    await runTask(acc);
    const [d] = await untilDeliveries(acc, ep.id, (l) => l[0]?.status === 'failed');
    expect(d.attempts).toHaveLength(4); // one attempt, then one per schedule entry
    expect(d.next_attempt_at).toBeNull();

    receiver.answer('/down', 200);
    const res = await t.http().post(`/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`).set(bearer(acc)).expect(202);
    expect(res.body).toEqual({ id: d.id, status: 'pending' });
    const [again] = await untilDeliveries(acc, ep.id, (l) => l[0]?.status === 'delivered');
    expect(again.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 500, 200]);
    expect(new Set(receiver.on('/down').map((m) => m.headers['webhook-id']))).toEqual(new Set([d.message_id]));

    for (const path of [`/v1/webhook-endpoints/${ep.id}/deliveries/whd_00000000000000000000000000/retry`, `/v1/webhook-endpoints/whe_0000000000000000000000/deliveries/${d.id}/retry`]) {
      expectError((await t.http().post(path).set(bearer(acc)).expect(404)).body, 'NOT_FOUND');
    }
    expectError((await t.http().post(`/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`).set(bearer(other)).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().get(`/v1/webhook-endpoints/${ep.id}/deliveries`).set(bearer(other)).expect(404)).body, 'NOT_FOUND');
  });

  it('a 410 disables the endpoint: no retry, nothing more is sent, a retry request is refused', async () => {
    receiver.answer('/gone', 410);
    const ep = await endpoint(acc, '/gone', ['task.created']);
    await runTask(acc);
    const [d] = await untilDeliveries(acc, ep.id, (l) => l[0]?.status === 'failed');
    expect(d.attempts.map((a) => a.status_code)).toEqual([410]);
    const got = await t.http().get(`/v1/webhook-endpoints/${ep.id}`).set(bearer(acc)).expect(200);
    expect(got.body.status).toBe('disabled');
    const listed = (await t.http().get('/v1/webhook-endpoints?limit=100').set(bearer(acc)).expect(200)).body.data.find((e: { id: string }) => e.id === ep.id);
    expect(listed.status).toBe('disabled');

    await runTask(acc);
    await waitForQuiet(t);
    await waitForDeliveriesSettled(t); // the new task's events were handled: whatever they queued was attempted
    expect(receiver.on('/gone')).toHaveLength(1);
    expect(await deliveries(acc, ep.id)).toHaveLength(1);
    expectError((await t.http().post(`/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`).set(bearer(acc)).expect(409)).body, 'WEBHOOK_ENDPOINT_DISABLED');
  });

  it('an endpoint that failed every attempt for the disable period is disabled (5 days; shortened here)', async () => {
    const settings = t.app.get(NotificationSettings);
    settings.disableAfterMs = 500;
    settings.retrySchedule = [0.4, 0.4, 0.4, 0.4];
    try {
      receiver.answer('/failing', 500);
      const ep = await endpoint(acc, '/failing', ['task.created']);
      await runTask(acc);
      const [d] = await untilDeliveries(acc, ep.id, (l) => l[0]?.status === 'failed');
      expect(d.attempts.length).toBeGreaterThanOrEqual(2);
      expect(d.attempts.length).toBeLessThan(5); // ended by the disabling, not by the schedule
      expect((await t.http().get(`/v1/webhook-endpoints/${ep.id}`).set(bearer(acc)).expect(200)).body.status).toBe('disabled');
      const stored = await t.app.get(EventStore).readStream(`webhooks-${acc.accountId}`);
      expect(stored.filter((e) => e.type === 'WebhookEndpointDisabled').map((e) => e.data)).toContainEqual(expect.objectContaining({ endpoint_id: ep.id, reason: 'failing' }));
    } finally {
      settings.disableAfterMs = 5 * 86_400_000;
      settings.retrySchedule = [0.3, 0.3, 0.3];
    }
  });

  it("another account's events never reach an endpoint; a deleted endpoint gets nothing more", async () => {
    await endpoint(acc, '/mine', ['task.created']);
    const theirs = await endpoint(other, '/theirs', ['task.created']);
    const mineTask = await runTask(acc);
    const theirTask = await runTask(other);
    await receiver.until((r) => r.some((m) => m.path === '/mine' && parsed(m).data.id === mineTask) && r.some((m) => m.path === '/theirs' && parsed(m).data.id === theirTask));
    await t.http().delete(`/v1/webhook-endpoints/${theirs.id}`).set(bearer(other)).expect(200);
    await runTask(other);
    const laterMine = await runTask(acc);
    await waitForQuiet(t);
    await waitForDeliveriesSettled(t); // the later tasks' events were handled: whatever they queued was attempted
    expect(receiver.on('/mine').map((m) => parsed(m).data.id)).toContain(laterMine);
    expect(receiver.on('/mine').map((m) => parsed(m).data.id)).not.toContain(theirTask);
    expect(receiver.on('/theirs').map((m) => parsed(m).data.id)).toEqual([theirTask]);
  });

  it('checks the address at every attempt: a name that resolves to an internal address is refused (DNS rebinding)', async () => {
    const network = t.app.get(WebhookNetwork);
    const settings = t.app.get(NotificationSettings);
    settings.allowLocal = false;
    let ep: { id: string };
    try {
      ep = await endpoint(acc, '/hook', ['task.created'], 'https://hooks.rebind.example.com');
    } finally {
      settings.allowLocal = true;
    }
    const answers = [['10.0.0.7'], ['127.0.0.1'], ['93.184.215.14', '169.254.169.254'], ['::ffff:127.0.0.1']];
    const resolve = jest.spyOn(network, 'resolve').mockImplementation(async () => answers.shift() ?? ['192.168.1.1']);
    settings.allowLocal = false;
    try {
      await runTask(acc);
      const [d] = await untilDeliveries(acc, ep.id, (l) => l[0]?.status === 'failed');
      expect(d.attempts).toHaveLength(4);
      // Each attempt resolved the name again and refused what it got (the addresses are in the service's log, not on the delivery).
      for (const a of d.attempts) expect(a).toMatchObject({ status_code: null, error: 'address_refused' });
      expect(resolve).toHaveBeenCalledTimes(4);
      expect(resolve).toHaveBeenCalledWith('hooks.rebind.example.com');
    } finally {
      settings.allowLocal = true;
    }
    // With WEBHOOKS_ALLOW_LOCAL a private address is refused still.
    resolve.mockResolvedValue(['10.1.1.1']);
    const retried = await t.http().post(`/v1/webhook-endpoints/${ep.id}/deliveries/${(await deliveries(acc, ep.id))[0].id}/retry`).set(bearer(acc)).expect(202);
    const [d2] = await untilDeliveries(acc, ep.id, (l) => l[0]?.status === 'failed' && l[0].attempts.length === 8);
    expect(d2.id).toBe(retried.body.id);
    expect(d2.attempts[7].error).toBe('address_refused');
    expect(resolve).toHaveBeenCalledTimes(8);
  });

  it('records a failed attempt as a short code, never the network error: no port or TLS scanning through the deliveries', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await endpoint(acc, '/x', ['task.created'], `http://127.0.0.1:${closedPort}`);
    const plain = await endpoint(acc, '/tls', ['task.created'], receiver.url.replace('http:', 'https:'));
    await runTask(acc);
    const [a] = await untilDeliveries(acc, refused.id, (l) => l[0]?.attempts.length >= 2);
    const [b] = await untilDeliveries(acc, plain.id, (l) => l[0]?.attempts.length >= 2);
    for (const attempt of a.attempts) expect(attempt).toMatchObject({ status_code: null, error: 'connect_failed' });
    for (const attempt of b.attempts) expect(attempt).toMatchObject({ status_code: null, error: 'tls_error' });
    expect(JSON.stringify([a, b])).not.toMatch(/ECONN|SSL|wrong version|routines/i);
    await t.http().delete(`/v1/webhook-endpoints/${refused.id}`).set(bearer(acc)).expect(200);
    await t.http().delete(`/v1/webhook-endpoints/${plain.id}`).set(bearer(acc)).expect(200);
  });

  it('after a rotation both secrets sign, each verifying on its own', async () => {
    const ep = await endpoint(acc, '/rotated', ['task.created']);
    const rotated = await t.http().post(`/v1/webhook-endpoints/${ep.id}/rotate-secret`).set(bearer(acc)).expect(200);
    const taskId = await runTask(acc);
    const [m] = await receiver.until((r) => {
      const got = r.filter((x) => x.path === '/rotated' && parsed(x).data.id === taskId);
      return got.length > 0 && got;
    });
    const signatures = String(m.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verify(rotated.body.secret, m)).toMatchObject({ type: 'task.created' });
    expect(verify(ep.secret, m)).toMatchObject({ type: 'task.created' });
    // each signature belongs to one secret: with only the new one's signature the old secret fails
    const onlyNew = { ...(m.headers as Record<string, string>), 'webhook-signature': signatures[0] };
    expect(new Webhook(rotated.body.secret).verify(m.body, onlyNew)).toMatchObject({ type: 'task.created' });
    expect(() => new Webhook(ep.secret).verify(m.body, onlyNew)).toThrow();
  });

  it('sends upload, asset and voice events too', async () => {
    const ep = await endpoint(acc, '/files', ['upload.completed', 'asset.deleted']);
    const bytes = Buffer.from('{"n": 1}');
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const prepared = await t.http().post('/v1/uploads/prepare').set(bearer(acc)).send({ name: 'd.json', mime: 'application/json', size: bytes.length, checksum, idempotency_key: `wh-upload-${randomUUID()}` }).expect(200);
    await t.http().put(new URL(prepared.body.upload.url).pathname).set(prepared.body.upload.headers).set('Content-Type', 'application/json').send(bytes.toString()).expect(200);
    const completed = await t.http().post(`/v1/uploads/${prepared.body.upload_id}/complete`).set(bearer(acc)).send({}).expect(200);
    await t.http().delete(`/v1/assets/${completed.body.asset_id}`).set(bearer(acc)).expect(200);
    const msgs = await receiver.until((r) => r.filter((m) => m.path === '/files').length >= 2 && r.filter((m) => m.path === '/files'));
    for (const m of msgs) verify(ep.secret, m);
    expect(JSON.parse(msgs[0].body)).toMatchObject({ type: 'upload.completed', data: { upload_id: prepared.body.upload_id, asset_id: completed.body.asset_id, size: bytes.length, checksum } });
    expect(JSON.parse(msgs[1].body)).toMatchObject({ type: 'asset.deleted', data: { id: completed.body.asset_id, deleted: true } });
  });

  it('replay rebuilds endpoints and delivery lists identically', async () => {
    await waitForQuiet(t);
    await waitForDeliveriesSettled(t); // no delivery in flight or due: the models stand still
    const store = t.app.get(ReadStore);
    const snapshot = async () => ({
      endpoints: await store.collection('webhook_endpoints').find({}, { sort: { _id: 1 } }),
      deliveries: await store.collection('webhook_deliveries').find({}, { sort: { _id: 1 } }),
    });
    const before = await snapshot();
    expect(before.endpoints.length).toBeGreaterThanOrEqual(8);
    expect(before.deliveries.length).toBeGreaterThanOrEqual(10);
    const port = t.app.get(AdminServer).address()!.port;
    const admin = () => request(`http://127.0.0.1:${port}`);
    const started = await admin().post('/admin/replays').set('Authorization', `Bearer ${TOKEN}`).send({ projections: ['notifications.endpoints', 'notifications.deliveries'] }).expect(202);
    let state: ReplayState;
    for (;;) {
      state = (await admin().get(`/admin/replays/${started.body.id}`).set('Authorization', `Bearer ${TOKEN}`).expect(200)).body;
      if (state.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(state.status).toBe('succeeded');
    expect(await snapshot()).toEqual(before);

    // metrics: messages queued, attempts by outcome, latency, oldest open delivery
    const metrics = (await admin().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
    expect(metrics).toMatch(/^gensvc_webhook_messages_queued_total\{event_type="task.created"\} [1-9]/m);
    expect(metrics).toMatch(/^gensvc_webhook_attempts_total\{outcome="delivered"\} [1-9]/m);
    expect(metrics).toMatch(/^gensvc_webhook_attempts_total\{outcome="gone"\} 1$/m);
    expect(metrics).toMatch(/^gensvc_webhook_attempts_total\{outcome="refused_address"\} [1-9]/m);
    expect(metrics).toMatch(/^gensvc_webhook_delivery_latency_seconds_count [1-9]/m);
    expect(metrics).toMatch(/^gensvc_webhook_oldest_pending_seconds 0$/m);
    expect(await t.app.get(EventStore).headPosition()).toBeGreaterThan(0n);
  });
});
