import { Webhook } from 'standardwebhooks';
import { ProviderProtocolError, type ProviderAnswer, type RouteJob } from '../../../application/providers/provider-adapter';
import { parseModelRef, readOutput, replicateAdapter, signWebhook, verifyWebhook } from './replicate.adapter';

/** Answers below are copied from Replicate's HTTP API reference and topic pages (see the adapter's header). */
const answer = (json: unknown, status = 200): ProviderAnswer => ({ status, json, headers: new Headers() });

const job = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01',
  capability: 'image.generate',
  supplierModel: 'black-forest-labs/flux-schnell',
  input: { prompt: 'a red fox' },
  ...over,
});

/** `predictions.get`, example response (https://replicate.com/docs/reference/http#predictions.get). */
const helloWorld = {
  id: 'gm3qorzdhgbfurvjtvhg6dckhu',
  model: 'replicate/hello-world',
  version: '5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa',
  input: { text: 'Alice' },
  logs: '',
  output: 'hello Alice',
  error: null,
  status: 'succeeded',
  created_at: '2023-09-08T16:19:34.765994Z',
  data_removed: false,
  started_at: '2023-09-08T16:19:34.779176Z',
  completed_at: '2023-09-08T16:19:34.791859Z',
  metrics: { predict_time: 0.012683 },
  urls: {
    cancel: 'https://api.replicate.com/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu/cancel',
    get: 'https://api.replicate.com/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu',
  },
};
const withStatus = (status: string, extra: Record<string, unknown> = {}) => ({ ...helloWorld, status, output: null, completed_at: null, ...extra });

describe('Replicate adapter: requests', () => {
  it('authenticates with Bearer', () => {
    expect(replicateAdapter.auth('r8_abc')).toEqual({ authorization: 'Bearer r8_abc' });
  });

  it('creates a prediction of an owner/name model on the model route, with input and the completed webhook', () => {
    expect(replicateAdapter.submit(job({ webhookUrl: 'https://svc.example/v1/callbacks/task_01' }))).toEqual({
      method: 'POST',
      url: '/v1/models/black-forest-labs/flux-schnell/predictions',
      body: { input: { prompt: 'a red fox' }, webhook: 'https://svc.example/v1/callbacks/task_01', webhook_events_filter: ['completed'] },
    });
    expect(replicateAdapter.submit(job()).body).toEqual({ input: { prompt: 'a red fox' } });
  });

  it('creates a prediction of a pinned version on /v1/predictions with the version id only', () => {
    const request = replicateAdapter.submit(job({ supplierModel: 'replicate/hello-world:5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa', input: { text: 'Alice' } }));
    expect(request).toEqual({
      method: 'POST',
      url: '/v1/predictions',
      body: { version: '5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa', input: { text: 'Alice' } },
    });
  });

  it('probes with models.get, or models.versions.get for a pinned version', () => {
    expect(replicateAdapter.probe('replicate/hello-world', 'text.generate')).toEqual({ method: 'GET', url: '/v1/models/replicate/hello-world' });
    expect(replicateAdapter.probe('replicate/hello-world:5c7d', 'text.generate')).toEqual({ method: 'GET', url: '/v1/models/replicate/hello-world/versions/5c7d' });
  });

  it('refuses a model reference that is not owner/name[:version]', () => {
    for (const bad of ['flux-schnell', 'a/b/c', '/b', 'a/', 'a/b:', 'a b/c']) expect(() => parseModelRef(bad)).toThrow(ProviderProtocolError);
  });

  it('reads and cancels a prediction by id', () => {
    expect(replicateAdapter.status('gm3qorzdhgbfurvjtvhg6dckhu', job())).toEqual({ method: 'GET', url: '/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu' });
    expect(replicateAdapter.cancel('gm3qorzdhgbfurvjtvhg6dckhu', job())).toEqual({ method: 'POST', url: '/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu/cancel' });
  });

  it('resolves a lost create answer by failing: Replicate has no idempotency key', () => {
    expect(replicateAdapter.lostAnswer).toBe('fail');
    expect(replicateAdapter.synchronous).toBeUndefined();
  });
});

describe('Replicate adapter: statuses', () => {
  it('reads the create answer: the id, and starting as queued', () => {
    expect(replicateAdapter.accepted(answer(withStatus('starting')), job())).toEqual({ remoteId: 'gm3qorzdhgbfurvjtvhg6dckhu', status: { state: 'queued' } });
  });

  it.each([
    ['starting', { state: 'queued' }],
    ['processing', { state: 'running' }],
    ['canceled', { state: 'canceled' }],
    ['aborted', { state: 'canceled' }],
  ])('reads %s', (status, expected) => {
    expect(replicateAdapter.readStatus(answer(withStatus(status)), job())).toEqual(expected);
  });

  it('reads failed with the error as the operator detail', () => {
    expect(replicateAdapter.readStatus(answer(withStatus('failed', { error: 'CUDA out of memory' })), job())).toEqual({ state: 'failed', detail: 'CUDA out of memory' });
  });

  it('refuses an unknown status, a missing id and a body that is not a prediction', () => {
    expect(() => replicateAdapter.readStatus(answer(withStatus('queued')), job())).toThrow(ProviderProtocolError);
    expect(() => replicateAdapter.readStatus(answer({ ...helloWorld, id: undefined }), job())).toThrow(ProviderProtocolError);
    expect(() => replicateAdapter.accepted(answer({ title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 }), job())).toThrow(ProviderProtocolError);
    expect(() => replicateAdapter.readStatus(answer(null), job())).toThrow(ProviderProtocolError);
  });

  it('fails a succeeded prediction whose data was removed (an hour after an API prediction)', () => {
    expect(replicateAdapter.readStatus(answer({ ...helloWorld, output: null, data_removed: true }), job())).toMatchObject({ state: 'failed' });
  });
});

describe('Replicate adapter: outputs', () => {
  it('reads a list of file URLs (image models)', () => {
    const output = ['https://replicate.delivery/yhqm/u7FcMqBWtgKpJ5NRgoFnt/out-0.webp', 'https://replicate.delivery/yhqm/u7FcMqBWtgKpJ5NRgoFnt/out-1.webp'];
    expect(replicateAdapter.readStatus(answer({ ...helloWorld, output }), job())).toEqual({
      state: 'succeeded',
      files: [{ url: output[0] }, { url: output[1] }],
    });
  });

  it('reads one file URL (video and audio models)', () => {
    const output = 'https://replicate.delivery/xezq/2ufeKTsnYmvPPapNE9IQgK5yNWGdL8x/tmp.mp4';
    expect(replicateAdapter.readStatus(answer({ ...helloWorld, output }), job({ capability: 'video.generate' }))).toEqual({ state: 'succeeded', files: [{ url: output }] });
  });

  it("joins a language model's list of text pieces into text", () => {
    const output = ['', 'The', ' sky', ' is', ' blue', '.'];
    expect(replicateAdapter.readStatus(answer({ ...helloWorld, output }), job({ capability: 'text.generate' }))).toEqual({ state: 'succeeded', files: [], text: 'The sky is blue.' });
  });

  it('reads a text capability as text even when a piece looks like a link', () => {
    expect(readOutput(['https://example.com'], 'text.generate')).toEqual({ state: 'succeeded', files: [], text: 'https://example.com' });
  });

  it('reads a string that is not a link as text (hello-world)', () => {
    expect(replicateAdapter.readStatus(answer(helloWorld), job({ capability: 'text.generate' }))).toEqual({ state: 'succeeded', files: [], text: 'hello Alice' });
    expect(readOutput('hello Alice')).toEqual({ state: 'succeeded', files: [], text: 'hello Alice' });
  });

  it('reads data URIs as inline bytes', () => {
    expect(readOutput(['data:image/png;base64,iVBORw0KGgo='])).toEqual({ state: 'succeeded', files: [{ base64: 'iVBORw0KGgo=' }] });
    expect(readOutput('data:text/plain,hi%21')).toEqual({ state: 'succeeded', files: [{ base64: Buffer.from('hi!').toString('base64') }] });
  });

  it('reads the file links of an object output', () => {
    expect(readOutput({ audio_out: 'https://replicate.delivery/a/out.wav', seed: 3, extra: { preview: 'https://replicate.delivery/a/p.png' } })).toEqual({
      state: 'succeeded',
      files: [{ url: 'https://replicate.delivery/a/out.wav' }, { url: 'https://replicate.delivery/a/p.png' }],
    });
    expect(() => readOutput({ seed: 3 })).toThrow(ProviderProtocolError);
  });

  it('fails a succeeded prediction without output', () => {
    expect(readOutput(null)).toMatchObject({ state: 'failed' });
    expect(readOutput([], 'image.generate')).toMatchObject({ state: 'failed' });
  });
});

describe('Replicate adapter: cancel answers', () => {
  it.each([
    ['canceled', 'canceled'],
    ['starting', 'pending'],
    ['processing', 'pending'],
    ['succeeded', 'refused'],
    ['failed', 'refused'],
  ])('reads a cancel answer with the prediction %s as %s', (status, reading) => {
    expect(replicateAdapter.readCancel(answer(withStatus(status)))).toBe(reading);
  });
});

describe('Replicate adapter: webhooks (Standard Webhooks)', () => {
  const secret = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD'; // the example key of the verify-webhook page
  const body = Buffer.from(JSON.stringify(helloWorld));
  const now = 1_700_000_000;
  const headers = (over: Record<string, string> = {}) =>
    new Headers({ 'webhook-id': 'msg_2ZC5Pr0a5IPAXlCpzwArQpTFrOU', 'webhook-timestamp': String(now), 'webhook-signature': `v1,${signWebhook(secret, 'msg_2ZC5Pr0a5IPAXlCpzwArQpTFrOU', now, body)}`, ...over });

  it('matches the Standard Webhooks test vector (the signature shown on the verify-webhook page)', () => {
    const h = new Headers({ 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' });
    expect(verifyWebhook(h, Buffer.from('{"test": 2432232314}'), 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 1614265330)).toBe(true);
    expect(verifyWebhook(h, Buffer.from('{"test": 2432232315}'), 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 1614265330)).toBe(false);
  });

  it('verifies a webhook signed with the secret, within five minutes either way', () => {
    expect(replicateAdapter.webhooks!.verify(headers(), body, secret, now)).toBe(true);
    expect(replicateAdapter.webhooks!.verify(headers(), body, secret, now + 300)).toBe(true);
    expect(replicateAdapter.webhooks!.verify(headers(), body, secret, now - 300)).toBe(true);
  });

  it('agrees with the standardwebhooks library both ways', () => {
    const wh = new Webhook(secret);
    const at = new Date(now * 1000);
    const signature = wh.sign('msg_1', at, body.toString());
    expect(verifyWebhook(new Headers({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(now), 'webhook-signature': signature }), body, secret, now)).toBe(true);
    expect(signature).toBe(`v1,${signWebhook(secret, 'msg_1', now, body)}`);
  });

  it('refuses a tampered body, a wrong secret, an old or future timestamp', () => {
    const tampered = Buffer.from(body.toString().replace('succeeded', 'failed'));
    expect(verifyWebhook(headers(), tampered, secret, now)).toBe(false);
    expect(verifyWebhook(headers(), body, 'whsec_' + Buffer.from('another secret').toString('base64'), now)).toBe(false);
    expect(verifyWebhook(headers(), body, secret, now + 301)).toBe(false);
    expect(verifyWebhook(headers(), body, secret, now - 301)).toBe(false);
  });

  it('refuses missing headers, a malformed timestamp and signatures of other versions', () => {
    const good = headers().get('webhook-signature')!;
    expect(verifyWebhook(headers({ 'webhook-id': '' }), body, secret, now)).toBe(false);
    expect(verifyWebhook(headers({ 'webhook-timestamp': `${now}.5` }), body, secret, now)).toBe(false);
    expect(verifyWebhook(headers({ 'webhook-signature': good.replace('v1,', 'v2,') }), body, secret, now)).toBe(false);
    expect(verifyWebhook(headers({ 'webhook-signature': 'v1,' }), body, secret, now)).toBe(false);
  });

  it('accepts the matching signature among several (key rotation)', () => {
    const good = headers().get('webhook-signature')!;
    expect(verifyWebhook(headers({ 'webhook-signature': `v1,bm9ldHUjKzFob2VudXRob2VodWUzMjRvdWVvdW9ldQo= ${good}` }), body, secret, now)).toBe(true);
  });

  it('reads the prediction a webhook carries', () => {
    const output = ['https://replicate.delivery/yhqm/x/out-0.webp'];
    expect(replicateAdapter.webhooks!.read({ ...helloWorld, output })).toEqual({ remoteId: helloWorld.id, status: { state: 'succeeded', files: [{ url: output[0] }] } });
    expect(replicateAdapter.webhooks!.read(withStatus('failed', { error: 'boom' }))).toEqual({ remoteId: helloWorld.id, status: { state: 'failed', detail: 'boom' } });
    expect(() => replicateAdapter.webhooks!.read({ nothing: true })).toThrow(ProviderProtocolError);
  });
});

describe('replicate adapter: the prediction list (one request for many open jobs)', () => {
  it('asks for the first page, then the next page by the URL Replicate gave', () => {
    expect(replicateAdapter.list!(null)).toEqual({ method: 'GET', url: '/v1/predictions' });
    expect(replicateAdapter.list!('https://api.replicate.com/v1/predictions?cursor=cD0yMDI0')).toEqual({ method: 'GET', url: 'https://api.replicate.com/v1/predictions?cursor=cD0yMDI0' });
  });

  it('reads each prediction of a page as its status, and the next cursor', () => {
    const answer = {
      status: 200,
      headers: new Headers(),
      json: {
        next: 'https://api.replicate.com/v1/predictions?cursor=cD0yMDI0',
        previous: null,
        results: [
          { id: 'p1', status: 'processing', output: null, error: null },
          { id: 'p2', status: 'succeeded', output: ['https://replicate.delivery/pbxt/a/out-0.png'], error: null },
          { id: 'p3', status: 'failed', output: null, error: 'CUDA out of memory' },
          { status: 'succeeded' },
        ],
      },
    };
    const page = replicateAdapter.readList!(answer, null);
    expect(page.next).toBe('https://api.replicate.com/v1/predictions?cursor=cD0yMDI0');
    expect(page.jobs.map((j) => [j.remoteId, j.status.state])).toEqual([
      ['p1', 'running'],
      ['p2', 'succeeded'],
      ['p3', 'failed'],
    ]);
    expect(replicateAdapter.readList!({ ...answer, json: { results: [], next: null } }, null).next).toBeNull();
    expect(() => replicateAdapter.readList!({ ...answer, json: { detail: 'nope' } }, null)).toThrow();
  });
});
