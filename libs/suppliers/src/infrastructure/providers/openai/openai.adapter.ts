/**
 * OpenAI-compatible APIs (CONTRACT §14; docs/channels.md, "OpenAI-compatible"). Written from:
 * - the API reference, https://platform.openai.com/docs/api-reference: chat completions
 *   (`POST /chat/completions`, the answer's `choices[].message.content`, `refusal`,
 *   `finish_reason`), image generations (`POST /images/generations`, `data[].b64_json` or
 *   `data[].url`, `output_format`), audio speech (`POST /audio/speech`: the answer body is the
 *   audio file itself, `response_format` `mp3` by default), models (`GET /models`);
 * - errors and rate limits, https://platform.openai.com/docs/guides/error-codes and
 *   https://platform.openai.com/docs/guides/rate-limits: `{"error": {"message", "type",
 *   "param", "code"}}`, 401 `invalid_api_key`, 429 `rate_limit_exceeded` with `Retry-After`;
 * - openai-node `src/resources/chat/completions/completions.ts`, `src/resources/images.ts`
 *   (`response_format` is `url` or `b64_json` for DALL·E; "GPT image models always return
 *   base64-encoded images" and take no `response_format`), `src/resources/audio/speech.ts`,
 *   `src/resources/models.ts`, `src/client.ts` (its `idempotencyHeader` is never set for the
 *   OpenAI API: no idempotency key is sent or documented).
 *
 * Every endpoint answers synchronously: the submit answer carries the result and cannot be
 * asked for again, so there is no status, cancel or webhook. A lost answer fails the task
 * (no idempotency key: sending again could run and bill the request twice).
 */
import {
  ProviderProtocolError,
  type Accepted,
  type ProviderAdapter,
  type ProviderAnswer,
  type ProviderFile,
  type ProviderJobStatus,
  type ProviderRequest,
  type RouteJob,
} from '../../../application/providers/provider-adapter';

/** The endpoint of each capability the adapter runs. */
export const OPENAI_ENDPOINTS: Readonly<Record<string, string>> = {
  'text.generate': '/chat/completions',
  'image.generate': '/images/generations',
  'audio.speech': '/audio/speech',
  'speech.synthesize': '/audio/speech',
};

/** GPT image models answer base64 only and refuse `response_format`. */
export const isGptImageModel = (model: string): boolean => /^(chatgpt-|gpt-)image/i.test(model);

function endpoint(capability: string): string {
  const path = OPENAI_ENDPOINTS[capability];
  if (!path) throw new ProviderProtocolError(`the OpenAI adapter runs no ${capability} (it runs ${Object.keys(OPENAI_ENDPOINTS).join(', ')})`);
  return path;
}

const object = (body: unknown, what: string): Record<string, unknown> => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ProviderProtocolError(`the ${what} is not a JSON object`);
  return body as Record<string, unknown>;
};

const short = (v: unknown): string | undefined => (typeof v === 'string' && v ? v.slice(0, 300) : undefined);

/** The answer's `x-request-id` (OpenAI names every answer so), else an id made from the task. */
function syntheticId(answer: ProviderAnswer, job: RouteJob): string {
  return short(answer.headers.get('x-request-id')) ?? `sync-${job.taskId}`;
}

/** A chat completion: the first choice's message text, or a failure when there is none (a refusal, a filter). */
export function readChatCompletion(body: unknown): ProviderJobStatus {
  const completion = object(body, 'chat completion');
  if (!Array.isArray(completion.choices) || !completion.choices.length) throw new ProviderProtocolError('the chat completion has no choices');
  const choice = object(completion.choices[0], 'choice');
  const message = object(choice.message, 'message');
  let text: string | undefined;
  if (typeof message.content === 'string') text = message.content;
  else if (Array.isArray(message.content)) {
    // Some OpenAI-compatible servers answer with content parts.
    const parts = message.content.filter((p): p is { type: 'text'; text: string } => !!p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string');
    if (parts.length) text = parts.map((p) => p.text).join('');
  }
  if (text !== undefined && text !== '') return { state: 'succeeded', files: [], text };
  const refusal = short(message.refusal);
  if (refusal) return { state: 'failed', detail: `refusal: ${refusal}` };
  return { state: 'failed', detail: `no message content (finish_reason ${JSON.stringify(choice.finish_reason ?? null)})` };
}

/** An images response: `data[]` of `b64_json` (named by `output_format`, PNG by default) or `url`. */
export function readImages(body: unknown): ProviderJobStatus {
  const images = object(body, 'images response');
  if (!Array.isArray(images.data)) throw new ProviderProtocolError('the images response has no data');
  const ext = images.output_format === 'jpeg' ? 'jpg' : typeof images.output_format === 'string' && /^[a-z]{3,4}$/.test(images.output_format) ? images.output_format : 'png';
  const files: ProviderFile[] = images.data.flatMap((entry: unknown, i: number): ProviderFile[] => {
    const image = object(entry, 'image');
    if (typeof image.b64_json === 'string' && image.b64_json) return [{ base64: image.b64_json, name: `image-${i + 1}.${ext}` }];
    if (typeof image.url === 'string' && image.url) return [{ url: image.url }];
    return [];
  });
  if (!files.length) return { state: 'failed', detail: 'the images response has no images' };
  return { state: 'succeeded', files };
}

/** A speech answer: its body is the audio file (`mp3` unless the request named another `response_format`). */
export function readSpeech(answer: ProviderAnswer, job: RouteJob): ProviderJobStatus {
  if (!answer.raw?.length) throw new ProviderProtocolError('the speech answer has no audio');
  if (answer.json !== null) throw new ProviderProtocolError('the speech answer is JSON, not audio');
  const format = typeof job.input.response_format === 'string' && /^[a-z0-9]{2,5}$/.test(job.input.response_format) ? job.input.response_format : 'mp3';
  return { state: 'succeeded', files: [{ base64: answer.raw.toString('base64'), name: `speech.${format}` }] };
}

export const openaiAdapter: ProviderAdapter = {
  type: 'openai',

  // OpenAI documents no idempotency key for these endpoints: a request whose answer was lost
  // may have run (and been billed), and its result exists only in that answer.
  lostAnswer: 'fail',

  synchronous: () => true,

  auth: (credential) => ({ authorization: `Bearer ${credential}` }),

  /** The model list (`GET {base_url}/models`): an authenticated read that runs nothing. */
  probe: (): ProviderRequest => ({ method: 'GET', url: '/models' }),

  /**
   * The capability's endpoint with the route's body and the model. Images are asked as
   * `b64_json` (the bytes come in the answer, no link to expire) unless the route chose a
   * `response_format` or the model is a GPT image model (base64 always, the field refused).
   */
  submit(job: RouteJob): ProviderRequest {
    const url = endpoint(job.capability);
    const body: Record<string, unknown> = { ...job.input, model: job.supplierModel };
    if (url === '/images/generations' && body.response_format === undefined && !isGptImageModel(job.supplierModel)) body.response_format = 'b64_json';
    return { method: 'POST', url, body };
  },

  accepted(answer: ProviderAnswer, job: RouteJob): Accepted {
    switch (endpoint(job.capability)) {
      case '/chat/completions': {
        const status = readChatCompletion(answer.json);
        const id = short((answer.json as { id?: unknown }).id);
        return { remoteId: id ?? syntheticId(answer, job), status };
      }
      case '/images/generations':
        return { remoteId: syntheticId(answer, job), status: readImages(answer.json) };
      default:
        return { remoteId: syntheticId(answer, job), status: readSpeech(answer, job) };
    }
  },

  status(): ProviderRequest {
    throw new ProviderProtocolError('OpenAI answers synchronously: there is no job status to ask for');
  },

  readStatus(): ProviderJobStatus {
    throw new ProviderProtocolError('OpenAI answers synchronously: there is no job status to read');
  },

  // Synchronous requests cannot be canceled once sent.
  cancel: () => null,

  readCancel() {
    throw new ProviderProtocolError('OpenAI has no cancel request');
  },
};
