import { ProviderProtocolError, type ProviderAnswer, type RouteJob } from '../../../application/providers/provider-adapter';
import { DASHSCOPE_PATHS, dashscopeAdapter, dashscopeService, readSpeech, readTask, readVoiceList, voicePrefix } from './dashscope.adapter';

/** Answers below are copied from the Model Studio API references (see the adapter's header). */
const answer = (json: unknown, status = 200): ProviderAnswer => ({ status, json, headers: new Headers() });

const job = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01JABCDEFGHJKMNPQRSTVWXYZ0',
  capability: 'image.generate',
  supplierModel: 'wanx2.1-t2i-turbo',
  input: { input: { prompt: '一间有着精致窗户的花店，漂亮的木质门，摆放着花朵' }, parameters: { size: '1024*1024', n: 1 } },
  ...over,
});

const taskId = '0385dc79-5ff8-4d82-bcb6-xxxxxx';
const task = (output: Record<string, unknown>) => ({ request_id: 'e5d70b02-ebd3-98ce-9fe8-759d7d7b107d', output: { task_id: taskId, ...output } });

describe('DashScope adapter: requests', () => {
  it('authenticates with Bearer', () => {
    expect(dashscopeAdapter.auth('sk-abc')).toEqual({ authorization: 'Bearer sk-abc' });
  });

  it('submits an image task asynchronously: the service path, X-DashScope-Async, {model, input, parameters}', () => {
    expect(dashscopeAdapter.submit(job())).toEqual({
      method: 'POST',
      url: '/api/v1/services/aigc/text2image/image-synthesis',
      headers: { 'X-DashScope-Async': 'enable' },
      body: { model: 'wanx2.1-t2i-turbo', input: { prompt: '一间有着精致窗户的花店，漂亮的木质门，摆放着花朵' }, parameters: { size: '1024*1024', n: 1 } },
    });
  });

  it('picks the service path as the SDK does: image editing, text or image to video, first-and-last-frame video', () => {
    expect(dashscopeService('image.generate', 'wanx2.1-imageedit')).toEqual({ kind: 'task', path: DASHSCOPE_PATHS.image2image });
    expect(dashscopeService('image.generate', 'wan2.5-i2i-preview')).toEqual({ kind: 'task', path: '/api/v1/services/aigc/image2image/image-synthesis' });
    expect(dashscopeService('image.edit', 'qwen-image-edit')).toEqual({ kind: 'task', path: DASHSCOPE_PATHS.image2image });
    expect(dashscopeService('video.generate', 'wanx2.1-t2v-turbo')).toEqual({ kind: 'task', path: '/api/v1/services/aigc/video-generation/video-synthesis' });
    expect(dashscopeService('video.generate', 'wan2.2-i2v-plus')).toEqual({ kind: 'task', path: '/api/v1/services/aigc/video-generation/video-synthesis' });
    expect(dashscopeService('video.generate', 'wanx2.1-kf2v-plus')).toEqual({ kind: 'task', path: '/api/v1/services/aigc/image2video/video-synthesis' });
    expect(dashscopeService('speech.synthesize', 'qwen3-tts-flash')).toEqual({ kind: 'speech', path: '/api/v1/services/aigc/multimodal-generation/generation' });
    expect(dashscopeService('audio.speech', 'cosyvoice-v2')).toEqual({ kind: 'speech', path: '/api/v1/services/audio/tts/SpeechSynthesizer' });
    expect(() => dashscopeService('speech.synthesize', 'sambert-zhichu-v1')).toThrow(ProviderProtocolError);
    expect(() => dashscopeService('text.generate', 'qwen-plus')).toThrow(ProviderProtocolError);
  });

  it('sends a route without input_map as input (the channel wraps the parameters), and a video task alike', () => {
    const video = job({ capability: 'video.generate', supplierModel: 'wanx2.1-t2v-turbo', input: { input: { prompt: '一只小猫在月光下奔跑' } } });
    expect(dashscopeAdapter.submit(video)).toEqual({
      method: 'POST',
      url: '/api/v1/services/aigc/video-generation/video-synthesis',
      headers: { 'X-DashScope-Async': 'enable' },
      body: { model: 'wanx2.1-t2v-turbo', input: { prompt: '一只小猫在月光下奔跑' } },
    });
  });

  it('sends speech without the async header: it is answered at once', () => {
    const speech = job({ capability: 'speech.synthesize', supplierModel: 'qwen-tts', input: { input: { text: '那我来给大家推荐一款T恤', voice: 'Chelsie' } } });
    expect(dashscopeAdapter.submit(speech)).toEqual({ method: 'POST', url: DASHSCOPE_PATHS.qwenTts, body: { model: 'qwen-tts', input: { text: '那我来给大家推荐一款T恤', voice: 'Chelsie' } } });
    expect(dashscopeAdapter.synchronous!(speech)).toBe(true);
    expect(dashscopeAdapter.synchronous!(job())).toBe(false);
  });

  it('clones a voice with voice-enrollment create_voice: target_model is the route model, the sample link, the task prefix', () => {
    const clone = job({ capability: 'voice.clone', supplierModel: 'cosyvoice-v2', input: { input: { asset_ids: ['https://gensvc.example/v1/assets/ast_1/content?sig=x'], consent_attested: true, name: 'Narrator', language_hints: ['zh'] } } });
    expect(dashscopeAdapter.submit(clone)).toEqual({
      method: 'POST',
      url: '/api/v1/services/audio/tts/customization',
      body: {
        model: 'voice-enrollment',
        input: { action: 'create_voice', target_model: 'cosyvoice-v2', prefix: voicePrefix(clone.taskId), url: 'https://gensvc.example/v1/assets/ast_1/content?sig=x', language_hints: ['zh'] },
      },
    });
    const mapped = job({ capability: 'voice.clone', supplierModel: 'cosyvoice-v2', input: { input: { url: 'https://example.com/sample.wav', prefix: 'ignored' } } });
    expect((dashscopeAdapter.submit(mapped).body as { input: Record<string, unknown> }).input).toMatchObject({ url: 'https://example.com/sample.wav', prefix: voicePrefix(mapped.taskId) });
    expect(() => dashscopeAdapter.submit(job({ capability: 'voice.clone', supplierModel: 'cosyvoice-v2', input: { input: {} } }))).toThrow(ProviderProtocolError);
    expect(dashscopeAdapter.synchronous!(clone)).toBe(false);
  });

  it('makes voice prefixes DashScope accepts: lowercase letters and digits, under 10 characters', () => {
    expect(voicePrefix('task_01JABCDEFGHJKMNPQRSTVWXYZ0')).toBe('rstvwxyz0');
    expect(voicePrefix('task_01JABCDEFGHJKMNPQRSTVWXYZ0')).toMatch(/^[a-z0-9]{1,9}$/);
    expect(voicePrefix('task_')).toBe('gensvc');
  });

  it('polls tasks at GET /api/v1/tasks/{id}, and a cloned voice by listing the task prefix', () => {
    expect(dashscopeAdapter.status(taskId, job())).toEqual({ method: 'GET', url: `/api/v1/tasks/${encodeURIComponent(taskId)}` });
    const clone = job({ capability: 'voice.clone', supplierModel: 'cosyvoice-v2', input: {} });
    expect(dashscopeAdapter.status('cosyvoice-v2-abc-1', clone)).toEqual({
      method: 'POST',
      url: '/api/v1/services/audio/tts/customization',
      body: { model: 'voice-enrollment', input: { action: 'list_voice', prefix: voicePrefix(clone.taskId), page_index: 0, page_size: 10 } },
    });
  });

  it('cancels tasks with POST …/cancel, and has no cancel for speech or voices', () => {
    expect(dashscopeAdapter.cancel(taskId, job())).toEqual({ method: 'POST', url: `/api/v1/tasks/${encodeURIComponent(taskId)}/cancel` });
    expect(dashscopeAdapter.cancel('r', job({ capability: 'speech.synthesize', supplierModel: 'qwen-tts' }))).toBeNull();
    expect(dashscopeAdapter.cancel('v', job({ capability: 'voice.clone', supplierModel: 'cosyvoice-v2' }))).toBeNull();
  });

  it('deletes a provider voice with delete_voice', () => {
    expect(dashscopeAdapter.deleteVoice!('cosyvoice-v2-myvoice-xxx')).toEqual({
      method: 'POST',
      url: '/api/v1/services/audio/tts/customization',
      body: { model: 'voice-enrollment', input: { action: 'delete_voice', voice_id: 'cosyvoice-v2-myvoice-xxx' } },
    });
  });

  it('probes with the model read GET /api/v1/models/{model}; lost answers fail; no webhooks', () => {
    expect(dashscopeAdapter.probe('wanx2.1-t2i-turbo', 'image.generate')).toEqual({ method: 'GET', url: '/api/v1/models/wanx2.1-t2i-turbo' });
    expect(dashscopeAdapter.lostAnswer).toBe('fail');
    expect(dashscopeAdapter.webhooks).toBeUndefined();
  });
});

describe('DashScope adapter: answers', () => {
  it('reads the submit answer: the task id and its PENDING status', () => {
    const body = { output: { task_status: 'PENDING', task_id: taskId }, request_id: '4909100c-7b5a-9f92-bfe5-xxxxxx' };
    expect(dashscopeAdapter.accepted(answer(body), job())).toEqual({ remoteId: taskId, status: { state: 'queued' } });
    expect(() => dashscopeAdapter.accepted(answer({ output: {}, request_id: 'r' }), job())).toThrow(ProviderProtocolError);
  });

  it('reads every task status word', () => {
    expect(readTask(task({ task_status: 'PENDING' }))).toEqual({ state: 'queued' });
    expect(readTask(task({ task_status: 'RUNNING', submit_time: '2025-01-08 16:03:59.840' }))).toEqual({ state: 'running' });
    expect(readTask(task({ task_status: 'CANCELED' }))).toEqual({ state: 'canceled' });
    expect(readTask(task({ task_status: 'FAILED', code: 'InvalidParameter', message: 'The size is not match xxxxxx' }))).toEqual({ state: 'failed', detail: 'InvalidParameter: The size is not match xxxxxx' });
    expect(readTask(task({ task_status: 'UNKNOWN' }))).toEqual({ state: 'failed', detail: 'UNKNOWN: the task is unknown or expired' });
    expect(() => readTask(task({ task_status: 'DONE' }))).toThrow(ProviderProtocolError);
    expect(() => readTask({ request_id: 'r' })).toThrow(ProviderProtocolError);
  });

  it('reads image results, skipping results that failed', () => {
    const body = task({
      task_status: 'SUCCEEDED',
      submit_time: '2025-01-08 16:03:59.840',
      scheduled_time: '2025-01-08 16:03:59.863',
      end_time: '2025-01-08 16:04:10.660',
      results: [
        { orig_prompt: '一间有着精致窗户的花店', actual_prompt: '一间有着精致雕花窗户的花店', url: 'https://dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com/1.png' },
        { code: 'InternalError.Timeout', message: 'An internal timeout error has occured during execution, please try again later or contact service support.' },
      ],
      task_metrics: { TOTAL: 2, SUCCEEDED: 1, FAILED: 1 },
    });
    expect(dashscopeAdapter.readStatus(answer(body), job())).toEqual({ state: 'succeeded', files: [{ url: 'https://dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com/1.png' }] });
    const none = task({ task_status: 'SUCCEEDED', results: [{ code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' }], task_metrics: { TOTAL: 1, SUCCEEDED: 0, FAILED: 1 } });
    expect(readTask(none)).toEqual({ state: 'failed', detail: 'DataInspectionFailed: Output data may contain inappropriate content.' });
  });

  it('reads a video result', () => {
    const body = task({
      task_status: 'SUCCEEDED',
      submit_time: '2025-04-18 10:36:58.394',
      scheduled_time: '2025-04-18 10:37:13.802',
      end_time: '2025-04-18 10:45:23.004',
      video_url: 'https://dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com/xxx.mp4?Expires=xxx',
      orig_prompt: '一只小猫在月光下奔跑',
    });
    expect(readTask(body)).toEqual({ state: 'succeeded', files: [{ url: 'https://dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com/xxx.mp4?Expires=xxx' }] });
  });

  it('reads a speech answer (the audio link, or base64 data), named by its request id', () => {
    const body = {
      output: {
        finish_reason: 'stop',
        audio: { expires_at: 1745940480, data: '', id: 'audio_8bd08d84-b5ab-4e2c-8a72-63d3a7a7c3e9', url: 'http://dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com/1d/ab/20250429/d8f3.wav?Expires=1745940480' },
      },
      usage: { input_tokens: 14, output_tokens: 87, total_tokens: 101 },
      request_id: '9f5f0b7a-6b18-9a25-96d6-xxxxxx',
    };
    const speech = job({ capability: 'speech.synthesize', supplierModel: 'qwen-tts' });
    expect(dashscopeAdapter.accepted(answer(body), speech)).toEqual({
      remoteId: '9f5f0b7a-6b18-9a25-96d6-xxxxxx',
      status: { state: 'succeeded', files: [{ url: 'http://dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com/1d/ab/20250429/d8f3.wav?Expires=1745940480' }] },
    });
    expect(readSpeech({ output: { audio: { data: 'UklGRg==' } } })).toEqual({ state: 'succeeded', files: [{ base64: 'UklGRg==' }] });
    expect(readSpeech({ output: { audio: { url: '', data: '' } } })).toEqual({ state: 'failed', detail: 'the speech answer has no audio' });
  });

  it('reads create_voice (the voice id names the job) and the voice review statuses', () => {
    const clone = job({ capability: 'voice.clone', supplierModel: 'cosyvoice-v2' });
    const created = { output: { voice_id: 'cosyvoice-v2-myvoice-xxxxxxxx' }, usage: { count: 1 }, request_id: 'yourRequestId' };
    expect(dashscopeAdapter.accepted(answer(created), clone)).toEqual({ remoteId: 'cosyvoice-v2-myvoice-xxxxxxxx' });
    expect(() => dashscopeAdapter.accepted(answer({ output: {}, request_id: 'r' }), clone)).toThrow(ProviderProtocolError);
    const list = (status: string) => ({
      output: { voice_list: [{ gmt_create: '2024-12-11 13:38:02', voice_id: 'cosyvoice-v2-myvoice-xxxxxxxx', gmt_modified: '2024-12-11 13:38:02', status }] },
      usage: { count: 1 },
      request_id: 'yourRequestId',
    });
    expect(dashscopeAdapter.readStatus(answer(list('DEPLOYING')), clone)).toEqual({ state: 'running' });
    expect(dashscopeAdapter.readStatus(answer(list('OK')), clone)).toEqual({ state: 'succeeded', files: [], voiceId: 'cosyvoice-v2-myvoice-xxxxxxxx' });
    expect(dashscopeAdapter.readStatus(answer(list('UNDEPLOYED')), clone)).toEqual({ state: 'failed', detail: 'UNDEPLOYED: the voice did not pass review' });
    expect(readVoiceList({ output: { voice_list: [] } })).toEqual({ state: 'failed', detail: 'the cloned voice is not listed (deleted at DashScope?)' });
    expect(() => readVoiceList(list('REVIEWING'))).toThrow(ProviderProtocolError);
  });

  it('reads a 2xx cancel answer as canceled (only a PENDING task gets one)', () => {
    expect(dashscopeAdapter.readCancel(answer({ request_id: '87f9f5a4-11a3-9b5b-8a5c-xxxxxx' }))).toBe('canceled');
  });
});
