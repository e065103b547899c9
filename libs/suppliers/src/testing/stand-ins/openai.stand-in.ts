/**
 * An OpenAI-compatible API on loopback, for tests. Its `url` is the `base_url` a channel is
 * configured with (`…/v1`, as `https://api.openai.com/v1`). It follows:
 * - the API reference, https://platform.openai.com/docs/api-reference: `GET /v1/models`
 *   (`{object: "list", data: [{id, object: "model", created, owned_by}]}`),
 *   `POST /v1/chat/completions` (a `chat.completion` with `choices[].message.content`),
 *   `POST /v1/images/generations` (`{created, data: [{b64_json} | {url}]}`; DALL·E answers
 *   links unless asked `b64_json`, links valid for 60 minutes; GPT image models answer base64
 *   with `output_format` and refuse `response_format` as an unknown parameter),
 *   `POST /v1/audio/speech` (the body is the audio file, `mp3` by default);
 * - errors, https://platform.openai.com/docs/guides/error-codes: `{"error": {"message", "type",
 *   "param", "code"}}`: 401 `invalid_api_key` for a wrong key, 404 `model_not_found`, 429
 *   `rate_limit_exceeded` (with `Retry-After` when scripted), 500 `server_error`; every answer
 *   carries `x-request-id`.
 *
 * Every endpoint answers synchronously, so a job is one call: unscripted calls are answered
 * at once with the endpoint's usual output; `succeedNext` / `failNext` script the next
 * calls' answers; with `sync.hold = true` a call waits (its job `running`) until the test
 * calls `succeed(id)` or `fail(id)`. `fail` answers 500 `server_error`. `run` does nothing
 * more to a held call (it is running already). Image links are served by the stand-in at
 * `/private/org-stand-in/…` on its own origin and expire `linkLifetimeMs` after the answer.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { standInFile, type StandInFile } from './output-files';
import type { ProviderStandIn, StandInJob, StandInOutput } from './provider-stand-in';
import { HttpStandIn, jsonObject, type StandInRequest } from './stand-in-http';
import { SynchronousCalls, type SyncOutcome } from './synchronous-calls';

type Endpoint = 'chat' | 'images' | 'speech';

const ENDPOINTS: Record<string, Endpoint> = { '/v1/chat/completions': 'chat', '/v1/images/generations': 'images', '/v1/audio/speech': 'speech' };

interface Call {
  readonly id: string;
  readonly endpoint: Endpoint;
  readonly model: string;
  readonly input: Record<string, unknown>;
  status: 'running' | 'succeeded' | 'failed';
  finishedAt?: number;
}

const error = (message: string, type: string, code: string | null, param: string | null = null) => ({ error: { message, type, param, code } });

const isGptImage = (model: string) => /^(chatgpt-|gpt-)image/i.test(model);

async function bytesOf(file: StandInFile): Promise<Buffer> {
  return Buffer.concat((await file.open().toArray()) as Buffer[]);
}

export class OpenAiStandIn extends HttpStandIn implements ProviderStandIn {
  /** DALL·E image links are valid for 60 minutes. */
  linkLifetimeMs = 60 * 60_000;
  readonly sync = new SynchronousCalls();
  private readonly calls = new Map<string, Call>();

  constructor(
    /** The key requests must carry as `Bearer …`. */
    readonly key = 'sk-stand-in-0123456789',
    models: Iterable<string> = [],
  ) {
    super();
    this.knownModels = new Set(models);
  }

  /** The channel's `base_url`: the API lives under `/v1`. */
  override get url(): string {
    return `${this.origin}/v1`;
  }

  get origin(): string {
    return super.url;
  }

  jobs(): StandInJob[] {
    return [...this.calls.values()].map((c) => ({ id: c.id, model: c.model, input: c.input, status: c.status }));
  }

  /** A held call is running already. */
  run(id: string): void {
    if (!this.sync.held(id)) throw new Error(`no OpenAI call ${id} is held`);
  }

  succeed(id: string, outputs?: readonly StandInOutput[]): void {
    this.sync.settle(id, { ok: true, ...(outputs ? { outputs } : {}) });
  }

  fail(id: string, message?: string): void {
    this.sync.settle(id, { ok: false, ...(message ? { message } : {}) });
  }

  /** The next call (not yet made) answers with these outputs. */
  succeedNext(outputs?: readonly StandInOutput[]): void {
    this.sync.script({ ok: true, ...(outputs ? { outputs } : {}) });
  }

  /** The next call (not yet made) answers 500 `server_error`. */
  failNext(message?: string): void {
    this.sync.script({ ok: false, ...(message ? { message } : {}) });
  }

  protected errorBody(status: number): unknown {
    if (status === 401) return error('Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key');
    if (status === 429) return error('Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.', 'requests', 'rate_limit_exceeded');
    if (status === 503) return error('The engine is currently overloaded, please try again later.', 'server_error', null);
    if (status >= 500) return error('The server had an error while processing your request. Sorry about that!', 'server_error', null);
    return error('Invalid request.', 'invalid_request_error', null);
  }

  protected async route(req: StandInRequest, res: ServerResponse): Promise<void> {
    const endpoint = req.method === 'POST' ? ENDPOINTS[req.path] : undefined;
    const kind = req.method === 'GET' && req.path === '/v1/models' ? 'probe' : endpoint ? 'submit' : 'other';
    const fault = this.faultFor(kind, res);
    if (fault === 'answered') return;
    const requestId = `req_${randomBytes(16).toString('hex')}`;
    const headers = { 'x-request-id': requestId };
    if (kind === 'other') return this.json(res, 404, error(`Invalid URL (${req.method} ${req.path})`, 'invalid_request_error', null), headers);
    const auth = req.headers.authorization;
    if (!auth) return this.json(res, 401, error("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", 'invalid_request_error', null), headers);
    if (auth !== `Bearer ${this.key}`) return this.json(res, 401, this.errorBody(401), headers);
    if (kind === 'probe') {
      return this.json(res, 200, { object: 'list', data: [...this.knownModels].map((id) => ({ id, object: 'model', created: 1686935002, owned_by: 'openai' })) }, headers);
    }
    const body = jsonObject(req.body);
    if (!body) return this.json(res, 400, error('We could not parse the JSON body of your request.', 'invalid_request_error', null), headers);
    const { model, ...input } = body;
    if (typeof model !== 'string' || !model) return this.json(res, 400, error('you must provide a model parameter', 'invalid_request_error', null), headers);
    if (!this.knownModels.has(model)) return this.json(res, 404, error(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found'), headers);
    if (endpoint === 'images' && isGptImage(model) && input.response_format !== undefined) {
      return this.json(res, 400, error("Unknown parameter: 'response_format'.", 'invalid_request_error', 'unknown_parameter', 'response_format'), headers);
    }
    const id = endpoint === 'chat' ? `chatcmpl-${randomBytes(15).toString('base64url')}` : requestId;
    const call: Call = { id, endpoint: endpoint!, model, input, status: 'running' };
    this.calls.set(id, call);
    if (fault === 'drop-after-create') {
      this.finish(call, 'succeeded');
      return this.drop(res);
    }
    const outcome = await this.sync.outcome(id);
    return this.answer(call, outcome, res, headers);
  }

  private async answer(call: Call, outcome: SyncOutcome, res: ServerResponse, headers: Record<string, string>): Promise<void> {
    if (!outcome.ok) {
      this.finish(call, 'failed');
      return this.json(res, 500, error(outcome.message ?? 'The server had an error while processing your request. Sorry about that!', 'server_error', null), headers);
    }
    this.finish(call, 'succeeded');
    const outputs = outcome.outputs ?? [this.usualOutput(call)];
    if (call.endpoint === 'chat') {
      const text = outputs.map((o) => (o.kind === 'text' ? o.text : '')).join('');
      return this.json(res, 200, this.completion(call, text), headers);
    }
    if (call.endpoint === 'images') return this.json(res, 200, await this.images(call, outputs), headers);
    const audio = outputs.find((o): o is Exclude<StandInOutput, { kind: 'text' }> => o.kind !== 'text');
    if (!audio) throw new Error('a speech answer needs an audio output');
    const file = standInFile(audio);
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.size), ...headers });
    await pipeline(file.open(), res).catch(() => undefined);
  }

  private usualOutput(call: Call): StandInOutput {
    if (call.endpoint === 'chat') return { kind: 'text', text: 'Hello! How can I assist you today?' };
    if (call.endpoint === 'speech') return { kind: call.input.response_format === 'wav' ? 'wav' : 'mp3' };
    const format = call.input.output_format;
    return { kind: format === 'jpeg' ? 'jpeg' : format === 'webp' ? 'webp' : 'png' };
  }

  private completion(call: Call, text: string): unknown {
    return {
      id: call.id,
      object: 'chat.completion',
      created: Math.floor(this.now() / 1000),
      model: call.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 19, completion_tokens: Math.max(1, Math.ceil(text.length / 4)), total_tokens: 19 + Math.max(1, Math.ceil(text.length / 4)) },
      service_tier: 'default',
      system_fingerprint: null,
    };
  }

  private async images(call: Call, outputs: readonly StandInOutput[]): Promise<unknown> {
    const gpt = isGptImage(call.model);
    const base64 = gpt || call.input.response_format === 'b64_json';
    const data: Record<string, unknown>[] = [];
    for (const o of outputs) {
      if (o.kind === 'text') throw new Error('an images answer takes image outputs');
      const file = standInFile(o);
      if (base64) data.push({ b64_json: (await bytesOf(file)).toString('base64') });
      else {
        const path = `/private/org-stand-in/user-stand-in/img-${randomBytes(12).toString('base64url')}.${file.ext}`;
        this.publish(path, file, () => (call.finishedAt ?? Infinity) + this.linkLifetimeMs);
        data.push({ url: `${this.origin}${path}?st=2026-01-01T00%3A00%3A00Z&sp=r&sig=stand-in`, revised_prompt: typeof call.input.prompt === 'string' ? call.input.prompt : '' });
      }
    }
    const created = Math.floor(this.now() / 1000);
    if (!gpt) return { created, data };
    const format = call.input.output_format === 'jpeg' || call.input.output_format === 'webp' ? call.input.output_format : 'png';
    return { created, background: 'opaque', data, output_format: format, quality: 'high', size: '1024x1024', usage: { input_tokens: 50, output_tokens: 50, total_tokens: 100, input_tokens_details: { text_tokens: 10, image_tokens: 40 } } };
  }

  private finish(call: Call, status: 'succeeded' | 'failed'): void {
    call.status = status;
    call.finishedAt = this.now();
  }
}
