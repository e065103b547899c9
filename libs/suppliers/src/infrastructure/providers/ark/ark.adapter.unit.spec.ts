import { ProviderProtocolError, type ProviderAnswer, type RouteJob } from '../../../application/providers/provider-adapter';
import { ARK_LIST_PAGE, arkAdapter, readImages, readTask } from './ark.adapter';

/** Answers below are copied from the Ark API reference (see the adapter's header). */
const answer = (json: unknown, headers: Record<string, string> = {}): ProviderAnswer => ({ status: 200, json, headers: new Headers(headers) });

const video = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01JABCDEF',
  capability: 'video.generate',
  supplierModel: 'doubao-seedance-1-0-pro-250528',
  input: {
    content: [
      { type: 'text', text: '女孩抱着狐狸，女孩睁开眼，温柔地看向镜头 --resolution 1080p --duration 5' },
      { type: 'image_url', image_url: { url: 'https://ark-project.tos-cn-beijing.volces.com/doc_image/i2v_foxrgirl.png' } },
    ],
  },
  ...over,
});

const image = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01JABCDEF',
  capability: 'image.generate',
  supplierModel: 'doubao-seedream-3-0-t2i-250415',
  input: { prompt: '鱼眼镜头，一只猫咪的头部', size: '1024x1024', seed: 12, response_format: 'url' },
  ...over,
});

const taskId = 'cgt-20250331175019-68d9t';
const task = (fields: Record<string, unknown>) => ({ id: taskId, model: 'doubao-seedance-1-0-pro-250528', created_at: 1743414619, updated_at: 1743414673, ...fields });

describe('Ark adapter: requests', () => {
  it('authenticates with Bearer', () => {
    expect(arkAdapter.auth('ark-key')).toEqual({ authorization: 'Bearer ark-key' });
  });

  it('creates a content generation task with the route body (content list) and the model', () => {
    expect(arkAdapter.submit(video())).toEqual({ method: 'POST', url: '/api/v3/contents/generations/tasks', body: { model: 'doubao-seedance-1-0-pro-250528', ...video().input } });
    expect(arkAdapter.synchronous!(video())).toBe(false);
  });

  it('generates images synchronously on the image generation API', () => {
    expect(arkAdapter.submit(image())).toEqual({
      method: 'POST',
      url: '/api/v3/images/generations',
      body: { model: 'doubao-seedream-3-0-t2i-250415', prompt: '鱼眼镜头，一只猫咪的头部', size: '1024x1024', seed: 12, response_format: 'url' },
    });
    expect(arkAdapter.synchronous!(image())).toBe(true);
    expect(arkAdapter.cancel('sync-task_01JABCDEF', image())).toBeNull();
  });

  it('polls GET …/tasks/{id} and cancels with DELETE …/tasks/{id}', () => {
    expect(arkAdapter.status(taskId, video())).toEqual({ method: 'GET', url: `/api/v3/contents/generations/tasks/${taskId}` });
    expect(arkAdapter.cancel(taskId, video())).toEqual({ method: 'DELETE', url: `/api/v3/contents/generations/tasks/${taskId}` });
  });

  it('probes with the task list filtered by the model (a read that runs nothing); lost answers fail; no webhooks', () => {
    expect(arkAdapter.probe('doubao-seedance-1-0-pro-250528', 'video.generate')).toEqual({
      method: 'GET',
      url: '/api/v3/contents/generations/tasks?page_num=1&page_size=1&filter.model=doubao-seedance-1-0-pro-250528',
    });
    expect(arkAdapter.lostAnswer).toBe('fail');
    expect(arkAdapter.webhooks).toBeUndefined();
    expect(arkAdapter.deleteVoice).toBeUndefined();
  });
});

describe('Ark adapter: answers', () => {
  it('reads the create answer: the task id, nothing else', () => {
    expect(arkAdapter.accepted(answer({ id: taskId }), video())).toEqual({ remoteId: taskId });
    expect(() => arkAdapter.accepted(answer({}), video())).toThrow(ProviderProtocolError);
  });

  it('reads every task status word', () => {
    expect(readTask(task({ status: 'queued' }))).toEqual({ state: 'queued' });
    expect(readTask(task({ status: 'running' }))).toEqual({ state: 'running' });
    expect(readTask(task({ status: 'cancelled' }))).toEqual({ state: 'canceled' });
    expect(readTask(task({ status: 'expired' }))).toEqual({ state: 'failed', detail: 'expired' });
    const failed = task({ status: 'failed', error: { code: 'OutputVideoSensitiveContentDetected', message: 'The request failed because the output video may contain sensitive information.' } });
    expect(readTask(failed)).toEqual({ state: 'failed', detail: 'OutputVideoSensitiveContentDetected: The request failed because the output video may contain sensitive information.' });
    expect(() => readTask(task({ status: 'done' }))).toThrow(ProviderProtocolError);
    expect(() => readTask('queued')).toThrow(ProviderProtocolError);
  });

  it('reads a succeeded task: the video, and its last frame when it was asked for', () => {
    const body = task({
      status: 'succeeded',
      content: { video_url: 'https://ark-content-generation-cn-beijing.tos-cn-beijing.volces.com/doubao-seedance-1-0-pro/02174341461950400000000000000000000ffffac182c1748ddd6.mp4?X-Tos-Algorithm=TOS4-HMAC-SHA256' },
      usage: { completion_tokens: 108900, total_tokens: 108900 },
      seed: 10,
      resolution: '1080p',
      ratio: '16:9',
      duration: 5,
      framespersecond: 24,
    });
    expect(arkAdapter.readStatus(answer(body), video())).toEqual({
      state: 'succeeded',
      files: [{ url: 'https://ark-content-generation-cn-beijing.tos-cn-beijing.volces.com/doubao-seedance-1-0-pro/02174341461950400000000000000000000ffffac182c1748ddd6.mp4?X-Tos-Algorithm=TOS4-HMAC-SHA256' }],
    });
    const withFrame = task({ status: 'succeeded', content: { video_url: 'https://x.example/v.mp4', last_frame_url: 'https://x.example/f.png' } });
    expect(readTask(withFrame)).toEqual({ state: 'succeeded', files: [{ url: 'https://x.example/v.mp4' }, { url: 'https://x.example/f.png' }] });
    expect(readTask(task({ status: 'succeeded', content: {} }))).toEqual({ state: 'failed', detail: 'the task succeeded without content' });
  });

  it('reads image links and base64 images at once, under the x-request-id', () => {
    const body = { model: 'doubao-seedream-3-0-t2i-250415', created: 1589478378, data: [{ url: 'https://ark-content-generation-cn-beijing.tos-cn-beijing.volces.com/doubao-seedream-3-0-t2i/0217.jpeg' }], usage: { generated_images: 1 } };
    expect(arkAdapter.accepted(answer(body, { 'x-request-id': '021745896543123abcdef' }), image())).toEqual({
      remoteId: '021745896543123abcdef',
      status: { state: 'succeeded', files: [{ url: 'https://ark-content-generation-cn-beijing.tos-cn-beijing.volces.com/doubao-seedream-3-0-t2i/0217.jpeg' }] },
    });
    expect(arkAdapter.accepted(answer({ data: [{ b64_json: '/9j/4AAQ' }] }), image()).remoteId).toBe('sync-task_01JABCDEF');
    expect(readImages({ data: [{ b64_json: '/9j/4AAQ' }] })).toEqual({ state: 'succeeded', files: [{ base64: '/9j/4AAQ', name: 'image-1.jpg' }] });
  });

  it('skips images that failed and fails an answer without any', () => {
    const partial = { data: [{ url: 'https://x.example/1.jpeg', size: '2048x2048' }, { error: { code: 'OutputImageSensitiveContentDetected', message: 'The request failed because the output image may contain sensitive information.' } }] };
    expect(readImages(partial)).toEqual({ state: 'succeeded', files: [{ url: 'https://x.example/1.jpeg' }] });
    const none = { data: [{ error: { code: 'OutputImageSensitiveContentDetected', message: 'The request failed because the output image may contain sensitive information.' } }] };
    expect(readImages(none)).toEqual({ state: 'failed', detail: 'OutputImageSensitiveContentDetected: The request failed because the output image may contain sensitive information.' });
    expect(() => readImages({ created: 1 })).toThrow(ProviderProtocolError);
  });

  it('reads a 2xx DELETE as canceled (only a queued task can be)', () => {
    expect(arkAdapter.readCancel(answer({}))).toBe('canceled');
  });
});

describe('ark adapter: the task list (one request for many open tasks)', () => {
  const page = (n: number) => ({
    status: 200,
    headers: new Headers(),
    json: {
      total: n,
      items: Array.from({ length: n }, (_, i) => ({ id: `cgt-${i}`, model: 'doubao-seedance-1-0-pro-250528', status: i % 2 ? 'running' : 'queued', created_at: 1, updated_at: 1 })),
    },
  });

  it('asks for pages of 500 by number', () => {
    expect(arkAdapter.list!(null)).toEqual({ method: 'GET', url: `/api/v3/contents/generations/tasks?page_num=1&page_size=${ARK_LIST_PAGE}` });
    expect(arkAdapter.list!('3').url).toContain('page_num=3');
  });

  it('reads every task of a page with its status, and asks for the next page only after a full one', () => {
    const full = arkAdapter.readList!(page(ARK_LIST_PAGE), '2');
    expect(full.jobs).toHaveLength(ARK_LIST_PAGE);
    expect(full.jobs.slice(0, 2).map((j) => [j.remoteId, j.status.state])).toEqual([
      ['cgt-0', 'queued'],
      ['cgt-1', 'running'],
    ]);
    expect(full.next).toBe('3');
    expect(arkAdapter.readList!(page(3), null).next).toBeNull();
    expect(() => arkAdapter.readList!({ ...page(1), json: { error: { code: 'x' } } }, null)).toThrow();
  });
});
