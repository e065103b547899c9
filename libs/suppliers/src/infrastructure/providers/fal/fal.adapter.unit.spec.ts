import { ProviderProtocolError, type ProviderAnswer, type RouteJob } from '../../../application/providers/provider-adapter';
import { appPath, falAdapter, parseEndpointId, readQueueStatus, readResult } from './fal.adapter';

/** Answers below are copied from fal's queue, webhook and request-error documentation (see the adapter's header). */
const answer = (json: unknown, status = 200): ProviderAnswer => ({ status, json, headers: new Headers() });

const job = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01',
  capability: 'image.generate',
  supplierModel: 'fal-ai/flux/dev',
  input: { prompt: 'Photo of a cute dog' },
  ...over,
});

const id = '80e732af-660e-45cd-bd63-580e4f2a94cc';
const urls = {
  response_url: `https://queue.fal.run/fal-ai/fast-sdxl/requests/${id}`,
  status_url: `https://queue.fal.run/fal-ai/fast-sdxl/requests/${id}/status`,
  cancel_url: `https://queue.fal.run/fal-ai/fast-sdxl/requests/${id}/cancel`,
};

describe('fal adapter: requests', () => {
  it('authenticates with Key', () => {
    expect(falAdapter.auth('key_id:key_secret')).toEqual({ authorization: 'Key key_id:key_secret' });
  });

  it('submits to the full endpoint id, subpath included, with the input as the body', () => {
    expect(falAdapter.submit(job())).toEqual({ method: 'POST', url: '/fal-ai/flux/dev', body: { prompt: 'Photo of a cute dog' } });
    expect(falAdapter.submit(job({ supplierModel: 'fal-ai/fast-sdxl' })).url).toBe('/fal-ai/fast-sdxl');
    expect(falAdapter.submit(job({ supplierModel: 'fal-ai/kling-video/v2.1/master/text-to-video' })).url).toBe('/fal-ai/kling-video/v2.1/master/text-to-video');
  });

  it('reads status and results, and cancels, on owner/app only (no subpath)', () => {
    expect(falAdapter.status(id, job())).toEqual({ method: 'GET', url: `/fal-ai/flux/requests/${id}/status` });
    expect(falAdapter.result!(id, job())).toEqual({ method: 'GET', url: `/fal-ai/flux/requests/${id}` });
    expect(falAdapter.cancel(id, job())).toEqual({ method: 'PUT', url: `/fal-ai/flux/requests/${id}/cancel` });
  });

  it('parses endpoint ids as the fal client does: namespaces, subpaths, legacy numeric ids', () => {
    expect(parseEndpointId('fal-ai/flux/dev')).toEqual({ owner: 'fal-ai', alias: 'flux', path: 'dev' });
    expect(parseEndpointId('workflows/alice/my-flow/run')).toEqual({ namespace: 'workflows', owner: 'alice', alias: 'my-flow', path: 'run' });
    expect(appPath(parseEndpointId('comfy/alice/graph'))).toBe('comfy/alice/graph');
    expect(appPath(parseEndpointId('110602490-sharedsdxl'))).toBe('110602490/sharedsdxl');
    for (const bad of ['flux', 'fal-ai/', 'workflows/alice', 'fal-ai//dev', 'fal-ai/../x']) expect(() => parseEndpointId(bad)).toThrow(ProviderProtocolError);
  });

  it("probes with the Platform API's model read: api.fal.ai behind fal's queue host, the same origin behind any other base_url", () => {
    const query = `/v1/models?endpoint_id=${encodeURIComponent('fal-ai/flux/dev')}`;
    expect(falAdapter.probe('fal-ai/flux/dev', 'image.generate', 'https://queue.fal.run')).toEqual({ method: 'GET', url: `https://api.fal.ai${query}` });
    expect(falAdapter.probe('fal-ai/flux/dev', 'image.generate')).toEqual({ method: 'GET', url: `https://api.fal.ai${query}` });
    expect(falAdapter.probe('fal-ai/flux/dev', 'image.generate', 'http://127.0.0.1:4010')).toEqual({ method: 'GET', url: query });
    expect(() => falAdapter.probe('flux', 'image.generate', 'https://queue.fal.run')).toThrow(ProviderProtocolError);
    expect(falAdapter.apiHosts).toEqual(['api.fal.ai']);
  });

  it('resolves a lost submit answer by failing (fal documents no idempotency key), and polls (no webhooks)', () => {
    expect(falAdapter.lostAnswer).toBe('fail');
    expect(falAdapter.webhooks).toBeUndefined();
  });
});

describe('fal adapter: statuses', () => {
  it('reads the submit answer', () => {
    expect(falAdapter.accepted(answer({ request_id: id, ...urls, queue_position: 0 }), job())).toEqual({ remoteId: id });
    expect(falAdapter.accepted(answer({ status: 'IN_QUEUE', request_id: id, ...urls, queue_position: 2 }), job())).toEqual({ remoteId: id, status: { state: 'queued' } });
    expect(() => falAdapter.accepted(answer({ detail: 'No user found for Key ID and Secret' }), job())).toThrow(ProviderProtocolError);
  });

  it.each([
    [{ status: 'IN_QUEUE', queue_position: 0, response_url: urls.response_url }, { state: 'queued' }],
    [{ status: 'IN_PROGRESS', response_url: urls.response_url, logs: [{ message: 'step 1', level: 'INFO', source: 'USER', timestamp: '2024-01-01T00:00:00Z' }] }, { state: 'running' }],
    [{ status: 'COMPLETED', logs: null, response_url: urls.response_url, metrics: { inference_time: 1.22 } }, { state: 'completed' }],
  ])('reads %j', (body, expected) => {
    expect(falAdapter.readStatus(answer(body), job())).toEqual(expected);
  });

  it('reads a COMPLETED status with an error as failed, and a client_cancelled one as canceled', () => {
    expect(readQueueStatus({ status: 'COMPLETED', error: 'Request timed out', error_type: 'request_timeout' })).toEqual({ state: 'failed', detail: 'request_timeout: Request timed out' });
    expect(readQueueStatus({ status: 'COMPLETED', error: 'Internal Server Error' })).toEqual({ state: 'failed', detail: 'Internal Server Error' });
    expect(readQueueStatus({ status: 'COMPLETED', error: 'The request was cancelled by the client.', error_type: 'client_cancelled' })).toEqual({ state: 'canceled' });
  });

  it('refuses an unknown status', () => {
    expect(() => readQueueStatus({ status: 'CANCELLED' })).toThrow(ProviderProtocolError);
    expect(() => readQueueStatus(null)).toThrow(ProviderProtocolError);
  });
});

describe('fal adapter: results', () => {
  it('reads images[] (the webhook page’s successful payload)', () => {
    const payload = {
      images: [{ url: 'https://url.to/image.png', content_type: 'image/png', file_name: 'image.png', file_size: 1824075, width: 1024, height: 1024 }],
      seed: 196619188014358660,
    };
    expect(falAdapter.readResult!(answer(payload), job())).toEqual({ state: 'succeeded', files: [{ url: 'https://url.to/image.png', name: 'image.png' }] });
  });

  it('reads several images in order, with timings and NSFW flags beside them', () => {
    const payload = {
      images: [
        { url: 'https://v3.fal.media/files/rabbit/a.png', width: 1024, height: 768, content_type: 'image/png' },
        { url: 'https://v3.fal.media/files/rabbit/b.png', width: 1024, height: 768, content_type: 'image/png' },
      ],
      timings: { inference: 1.2249955059960485 },
      seed: 920212137,
      has_nsfw_concepts: [false, false],
      prompt: 'Extreme close-up of a single cat eye',
    };
    expect(readResult(payload, 'image.generate')).toEqual({ state: 'succeeded', files: [{ url: 'https://v3.fal.media/files/rabbit/a.png' }, { url: 'https://v3.fal.media/files/rabbit/b.png' }] });
  });

  it.each([
    ['video', { video: { url: 'https://v3.fal.media/files/zebra/out.mp4', content_type: 'video/mp4', file_name: 'out.mp4', file_size: 4_200_000 } }, 'video.generate'],
    ['audio', { audio: { url: 'https://v3.fal.media/files/koala/speech.mp3', content_type: 'audio/mpeg', file_name: 'speech.mp3' } }, 'audio.speech'],
    ['audio_file', { audio_file: { url: 'https://v3.fal.media/files/koala/speech.mp3', content_type: 'audio/mpeg', file_name: 'speech.mp3' } }, 'audio.speech'],
  ])('reads %s', (_name, payload, capability) => {
    const file = Object.values(payload)[0]!;
    expect(readResult(payload, capability)).toEqual({ state: 'succeeded', files: [{ url: file.url, name: file.file_name }] });
  });

  it('reads inline (sync mode) data URIs as bytes', () => {
    expect(readResult({ images: [{ url: 'data:image/png;base64,iVBORw0KGgo=', content_type: 'image/png' }] }, 'image.generate')).toEqual({ state: 'succeeded', files: [{ base64: 'iVBORw0KGgo=' }] });
  });

  it("reads a language model's output as text", () => {
    expect(readResult({ output: 'The sky is blue.', partial: false, error: null }, 'text.generate')).toEqual({ state: 'succeeded', files: [], text: 'The sky is blue.' });
    expect(() => readResult({ images: [] }, 'text.generate')).toThrow(ProviderProtocolError);
  });

  it('fails a result without output files', () => {
    expect(readResult({ images: [], seed: 1 }, 'image.generate')).toMatchObject({ state: 'failed' });
    expect(() => readResult('not json', 'image.generate')).toThrow(ProviderProtocolError);
  });
});

describe('fal adapter: cancel answers', () => {
  it('reads 202 CANCELLATION_REQUESTED as asked: the status tells the outcome', () => {
    expect(falAdapter.readCancel(answer({ status: 'CANCELLATION_REQUESTED' }, 202))).toBe('pending');
  });

  it('reads ALREADY_COMPLETED as refused', () => {
    expect(falAdapter.readCancel(answer({ status: 'ALREADY_COMPLETED' }, 200))).toBe('refused');
  });

  it('refuses an unknown answer', () => {
    expect(() => falAdapter.readCancel(answer({ status: 'MAYBE' }))).toThrow(ProviderProtocolError);
  });
});
