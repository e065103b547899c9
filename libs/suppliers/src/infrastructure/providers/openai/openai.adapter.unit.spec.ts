import { ProviderProtocolError, type ProviderAnswer, type RouteJob } from '../../../application/providers/provider-adapter';
import { isGptImageModel, openaiAdapter, readChatCompletion, readImages } from './openai.adapter';

/** Answers below are copied from OpenAI's API reference (see the adapter's header). */
const answer = (json: unknown, headers: Record<string, string> = {}, raw?: Buffer): ProviderAnswer => ({ status: 200, json, headers: new Headers(headers), ...(raw ? { raw } : {}) });

const job = (over: Partial<RouteJob> = {}): RouteJob => ({
  taskId: 'task_01JABCDEF',
  capability: 'text.generate',
  supplierModel: 'gpt-4o-mini',
  input: { messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 100 },
  ...over,
});

const chatCompletion = {
  id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello! How can I assist you today?', refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 19, completion_tokens: 10, total_tokens: 29 },
  service_tier: 'default',
};

describe('OpenAI adapter: requests', () => {
  it('authenticates with Bearer', () => {
    expect(openaiAdapter.auth('sk-abc')).toEqual({ authorization: 'Bearer sk-abc' });
  });

  it('sends text to chat completions with the route body and the model', () => {
    expect(openaiAdapter.submit(job())).toEqual({
      method: 'POST',
      url: '/chat/completions',
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 100 },
    });
  });

  it('asks DALL·E images as b64_json, leaves a chosen response_format, and sends GPT image models none', () => {
    const image = (model: string, input: Record<string, unknown> = { prompt: 'A cute baby sea otter', n: 1 }) =>
      openaiAdapter.submit(job({ capability: 'image.generate', supplierModel: model, input }));
    expect(image('dall-e-3')).toEqual({ method: 'POST', url: '/images/generations', body: { model: 'dall-e-3', prompt: 'A cute baby sea otter', n: 1, response_format: 'b64_json' } });
    expect((image('dall-e-2', { prompt: 'p', response_format: 'url' }).body as Record<string, unknown>).response_format).toBe('url');
    expect(image('gpt-image-1').body).toEqual({ model: 'gpt-image-1', prompt: 'A cute baby sea otter', n: 1 });
    expect(isGptImageModel('gpt-image-1-mini')).toBe(true);
    expect(isGptImageModel('dall-e-3')).toBe(false);
  });

  it('sends speech (audio.speech and the catalogue\'s speech.synthesize) to audio/speech', () => {
    const input = { input: 'The quick brown fox jumped over the lazy dog.', voice: 'alloy', response_format: 'mp3' };
    for (const capability of ['audio.speech', 'speech.synthesize']) {
      expect(openaiAdapter.submit(job({ capability, supplierModel: 'tts-1', input }))).toEqual({ method: 'POST', url: '/audio/speech', body: { model: 'tts-1', ...input } });
    }
  });

  it('refuses a capability it has no endpoint for', () => {
    expect(() => openaiAdapter.submit(job({ capability: 'video.generate' }))).toThrow(ProviderProtocolError);
  });

  it('probes with the model list, GET {base_url}/models', () => {
    expect(openaiAdapter.probe('gpt-4o-mini', 'text.generate')).toEqual({ method: 'GET', url: '/models' });
  });

  it('is synchronous: a lost answer fails (no idempotency key), nothing to poll, cancel or verify', () => {
    expect(openaiAdapter.lostAnswer).toBe('fail');
    expect(openaiAdapter.synchronous!(job())).toBe(true);
    expect(openaiAdapter.cancel('chatcmpl-1', job())).toBeNull();
    expect(() => openaiAdapter.status('chatcmpl-1', job())).toThrow(ProviderProtocolError);
    expect(openaiAdapter.webhooks).toBeUndefined();
    expect(openaiAdapter.deleteVoice).toBeUndefined();
  });
});

describe('OpenAI adapter: answers', () => {
  it('reads a chat completion as succeeded text, named by its id', () => {
    expect(openaiAdapter.accepted(answer(chatCompletion), job())).toEqual({
      remoteId: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      status: { state: 'succeeded', files: [], text: 'Hello! How can I assist you today?' },
    });
  });

  it('fails a refusal and a message without content, and joins text parts of compatible servers', () => {
    const refusal = { ...chatCompletion, choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: "I'm sorry, I can't help with that." }, finish_reason: 'stop' }] };
    expect(readChatCompletion(refusal)).toEqual({ state: 'failed', detail: "refusal: I'm sorry, I can't help with that." });
    const filtered = { ...chatCompletion, choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' }] };
    expect(readChatCompletion(filtered)).toEqual({ state: 'failed', detail: 'no message content (finish_reason "content_filter")' });
    const parts = { ...chatCompletion, choices: [{ index: 0, message: { role: 'assistant', content: [{ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }] } }] };
    expect(readChatCompletion(parts)).toEqual({ state: 'succeeded', files: [], text: 'Hello' });
  });

  it('throws on a chat answer it cannot read', () => {
    expect(() => readChatCompletion({ ...chatCompletion, choices: [] })).toThrow(ProviderProtocolError);
    expect(() => readChatCompletion(null)).toThrow(ProviderProtocolError);
  });

  it('reads base64 images (GPT image models, b64_json), named by output_format, under the x-request-id', () => {
    const body = { created: 1713833628, background: 'opaque', data: [{ b64_json: 'iVBORw0KGgo=' }, { b64_json: 'iVBORw0KGgp=' }], output_format: 'png', quality: 'high', size: '1024x1024' };
    expect(openaiAdapter.accepted(answer(body, { 'x-request-id': 'req_8b3c0f0d2b' }), job({ capability: 'image.generate', supplierModel: 'gpt-image-1' }))).toEqual({
      remoteId: 'req_8b3c0f0d2b',
      status: {
        state: 'succeeded',
        files: [
          { base64: 'iVBORw0KGgo=', name: 'image-1.png' },
          { base64: 'iVBORw0KGgp=', name: 'image-2.png' },
        ],
      },
    });
    expect(readImages({ created: 1, data: [{ b64_json: 'x' }], output_format: 'jpeg' })).toEqual({ state: 'succeeded', files: [{ base64: 'x', name: 'image-1.jpg' }] });
  });

  it('reads image links (response_format url), with an id made from the task when the answer names none', () => {
    const body = { created: 1589478378, data: [{ url: 'https://oaidalleapiprodscus.blob.core.windows.net/private/org-1/img-1.png?sig=x', revised_prompt: 'A cute baby sea otter' }] };
    expect(openaiAdapter.accepted(answer(body), job({ capability: 'image.generate', supplierModel: 'dall-e-3' }))).toEqual({
      remoteId: 'sync-task_01JABCDEF',
      status: { state: 'succeeded', files: [{ url: 'https://oaidalleapiprodscus.blob.core.windows.net/private/org-1/img-1.png?sig=x' }] },
    });
    expect(readImages({ created: 1, data: [] })).toEqual({ state: 'failed', detail: 'the images response has no images' });
    expect(() => readImages({ created: 1 })).toThrow(ProviderProtocolError);
  });

  it('reads speech from the raw body: the audio file, named by the requested format', () => {
    const mp3 = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]);
    const speech = job({ capability: 'audio.speech', supplierModel: 'tts-1', input: { input: 'Hi', voice: 'alloy' } });
    expect(openaiAdapter.accepted(answer(null, { 'content-type': 'audio/mpeg', 'x-request-id': 'req_1' }, mp3), speech)).toEqual({
      remoteId: 'req_1',
      status: { state: 'succeeded', files: [{ base64: mp3.toString('base64'), name: 'speech.mp3' }] },
    });
    const wav = job({ capability: 'speech.synthesize', supplierModel: 'gpt-4o-mini-tts', input: { input: 'Hi', voice: 'coral', response_format: 'wav' } });
    expect(openaiAdapter.accepted(answer(null, {}, Buffer.from('RIFF')), wav).status).toMatchObject({ files: [{ name: 'speech.wav' }] });
  });

  it('throws on a speech answer without audio, or with JSON instead', () => {
    const speech = job({ capability: 'audio.speech', supplierModel: 'tts-1' });
    expect(() => openaiAdapter.accepted(answer(null), speech)).toThrow(ProviderProtocolError);
    expect(() => openaiAdapter.accepted(answer({ error: { message: 'x' } }, {}, Buffer.from('{"error":{"message":"x"}}')), speech)).toThrow(ProviderProtocolError);
  });
});
