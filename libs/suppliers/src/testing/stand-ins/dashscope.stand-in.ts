/**
 * DashScope (Alibaba Cloud Model Studio) on loopback, for tests. Its `url` is the channel's
 * `base_url` (as `https://dashscope.aliyuncs.com`). It follows:
 * - the image and video generation API references
 *   (https://www.alibabacloud.com/help/en/model-studio/text-to-image-api-reference,
 *   …/text-to-video-api-reference, …/image-to-video-api-reference): the task services
 *   `POST /api/v1/services/aigc/{text2image,image2image}/image-synthesis` and
 *   `…/{video-generation,image2video}/video-synthesis`, which need `X-DashScope-Async: enable`
 *   (without it: 403 `AccessDenied`, "current user api does not support synchronous calls")
 *   and answer `{output: {task_status: "PENDING", task_id}, request_id}`;
 *   `GET /api/v1/tasks/{task_id}` with `PENDING` (`submit_time`), `RUNNING`
 *   (`scheduled_time`), `SUCCEEDED` (`end_time`, `results[].url` with `orig_prompt` and
 *   `actual_prompt`, `task_metrics`, or `video_url`; `usage`), `FAILED` (`code`, `message`),
 *   `CANCELED`, and `UNKNOWN` for a task id it does not know or keeps no longer (24 hours);
 *   `POST /api/v1/tasks/{task_id}/cancel`, which cancels a `PENDING` task (200
 *   `{request_id}`) and otherwise answers 400 `UnsupportedOperation`;
 * - the status codes page (https://www.alibabacloud.com/help/en/model-studio/error-code):
 *   errors as `{code, message, request_id}`: 400 `InvalidParameter`,
 *   `BadRequest.EmptyInput`, `BadRequest.EmptyModel`, `InvalidURL`; 401 `InvalidApiKey`
 *   ("Invalid API-key provided."); 429 `Throttling.RateQuota`; 500 `InternalError`. A model
 *   DashScope does not know is refused on submit as it answers it (400 `InvalidParameter`,
 *   "Model not exist.");
 * - speech answered at once: Qwen-TTS (https://www.alibabacloud.com/help/en/model-studio/qwen-tts-api,
 *   `POST /api/v1/services/aigc/multimodal-generation/generation`, `input.text`,
 *   `input.voice`) and CosyVoice over HTTP (`POST /api/v1/services/audio/tts/SpeechSynthesizer`,
 *   `input.format` `wav` by default), both answering `{output: {finish_reason, audio: {expires_at,
 *   data, id, url}}, usage, request_id}`;
 * - CosyVoice voice cloning (https://www.alibabacloud.com/help/en/model-studio/cosyvoice-clone-api):
 *   `POST /api/v1/services/audio/tts/customization`, model `voice-enrollment`, actions
 *   `create_voice` (`target_model`, `prefix` of lowercase letters and digits under 10
 *   characters, `url`) → `output.voice_id` `<target_model>-<prefix>-<suffix>`, `list_voice`
 *   (`prefix`, `page_index`, `page_size`) → `output.voice_list[]` of `{gmt_create, voice_id,
 *   gmt_modified, status}`, `query_voice`, `delete_voice`; a voice is `DEPLOYING` (under
 *   review), then `OK` or `UNDEPLOYED`;
 * - the model read `GET /api/v1/models/{model}` (dashscope-sdk-python `dashscope/models.py`):
 *   a known model answers 200, another 404. The body of this read is not documented; the
 *   stand-in answers `{request_id, output: {model, name}}`.
 *
 * Result files are served by the stand-in at OSS-like paths on its own origin
 * (`/1d/…/{uuid}.png?Expires=…&OSSAccessKeyId=…&Signature=…`) and expire `linkLifetimeMs`
 * (24 hours) after the task ended. DashScope sends no webhooks: the channel polls.
 *
 * The test drives jobs: tasks `run` (RUNNING), `succeed` (SUCCEEDED with outputs; default a
 * PNG for images, an MP4 for video), `fail` (FAILED with `InternalError`). Speech is answered
 * synchronously (see `SynchronousCalls`: at once, scripted with `succeedNext` / `failNext`, or
 * held with `sync.hold` until `succeed(id)` / `fail(id)`; a failure answers 500). A cloned
 * voice is `DEPLOYING` until `succeed` (OK) or `fail` (UNDEPLOYED).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { standInFile } from './output-files';
import type { ProviderStandIn, StandInJob, StandInOutput, StandInRequestKind } from './provider-stand-in';
import { HttpStandIn, jsonObject, type StandInRequest } from './stand-in-http';
import { SynchronousCalls, type SyncOutcome } from './synchronous-calls';

const TASK_SERVICES: Record<string, 'image' | 'video'> = {
  '/api/v1/services/aigc/text2image/image-synthesis': 'image',
  '/api/v1/services/aigc/image2image/image-synthesis': 'image',
  '/api/v1/services/aigc/video-generation/video-synthesis': 'video',
  '/api/v1/services/aigc/image2video/video-synthesis': 'video',
};
const SPEECH_SERVICES: Record<string, 'qwen-tts' | 'cosyvoice'> = {
  '/api/v1/services/aigc/multimodal-generation/generation': 'qwen-tts',
  '/api/v1/services/audio/tts/SpeechSynthesizer': 'cosyvoice',
};
const CUSTOMIZATION = '/api/v1/services/audio/tts/customization';

type TaskStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED';

interface Task {
  readonly kind: 'task';
  readonly id: string;
  readonly model: string;
  readonly service: 'image' | 'video';
  readonly input: Record<string, unknown>;
  readonly submittedAt: number;
  status: TaskStatus;
  scheduledAt?: number;
  endedAt?: number;
  output?: Record<string, unknown>;
  error?: { readonly code: string; readonly message: string };
}

interface Speech {
  readonly kind: 'speech';
  readonly id: string;
  readonly model: string;
  readonly service: 'qwen-tts' | 'cosyvoice';
  readonly input: Record<string, unknown>;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  endedAt?: number;
}

interface Voice {
  readonly kind: 'voice';
  readonly id: string;
  readonly model: string;
  readonly prefix: string;
  readonly input: Record<string, unknown>;
  readonly createdAt: number;
  status: 'DEPLOYING' | 'OK' | 'UNDEPLOYED';
  modifiedAt: number;
  deleted?: boolean;
}

type Job = Task | Speech | Voice;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** DashScope's time format, `2025-01-08 16:03:59.840` (UTC here). */
function stamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

export class DashScopeStandIn extends HttpStandIn implements ProviderStandIn {
  /** Result links are valid for 24 hours. */
  linkLifetimeMs = 24 * 60 * 60_000;
  /** DashScope answers for a task this long after it was submitted; later, `UNKNOWN`. */
  retentionMs = 24 * 60 * 60_000;
  readonly sync = new SynchronousCalls();
  /** Voice ids deleted with `delete_voice`, in order. */
  readonly deletedVoices: string[] = [];
  private readonly all = new Map<string, Job>();

  constructor(
    /** The key requests must carry as `Bearer …`. */
    readonly key = 'sk-stand-in-dashscope',
    models: Iterable<string> = [],
  ) {
    super();
    this.knownModels = new Set(models);
  }

  jobs(): StandInJob[] {
    return [...this.all.values()].map((j) => ({ id: j.id, model: j.model, input: j.input, status: j.status }));
  }

  run(id: string): void {
    const job = this.job(id);
    if (job.kind === 'task') {
      if (job.status !== 'PENDING') throw new Error(`task ${id} is ${job.status}, not PENDING`);
      job.status = 'RUNNING';
      job.scheduledAt = this.now();
    } else if (job.kind === 'speech') {
      if (!this.sync.held(id)) throw new Error(`speech ${id} is not held`);
    } else if (job.status !== 'DEPLOYING') throw new Error(`voice ${id} is ${job.status}`);
  }

  succeed(id: string, outputs?: readonly StandInOutput[]): void {
    const job = this.job(id);
    if (job.kind === 'speech') return this.sync.settle(id, { ok: true, ...(outputs ? { outputs } : {}) });
    if (job.kind === 'voice') return this.review(job, 'OK');
    this.open(job);
    job.scheduledAt ??= this.now();
    job.output = this.outputsOf(job, outputs ?? [{ kind: job.service === 'video' ? 'mp4' : 'png' }]);
    this.end(job, 'SUCCEEDED');
  }

  fail(id: string, message = 'An internal error has occured, please try again later or contact service support.'): void {
    const job = this.job(id);
    if (job.kind === 'speech') return this.sync.settle(id, { ok: false, message });
    if (job.kind === 'voice') return this.review(job, 'UNDEPLOYED');
    this.open(job);
    job.error = { code: 'InternalError', message };
    this.end(job, 'FAILED');
  }

  /** The next speech call (not yet made) answers with these outputs. */
  succeedNext(outputs?: readonly StandInOutput[]): void {
    this.sync.script({ ok: true, ...(outputs ? { outputs } : {}) });
  }

  /** The next speech call (not yet made) answers 500 `InternalError`. */
  failNext(message?: string): void {
    this.sync.script({ ok: false, ...(message ? { message } : {}) });
  }

  protected errorBody(status: number): unknown {
    const requestId = randomUUID();
    if (status === 400) return { code: 'InvalidParameter', message: 'Required parameter(s) missing or invalid, please check the request parameters.', request_id: requestId };
    if (status === 401) return { code: 'InvalidApiKey', message: 'Invalid API-key provided.', request_id: requestId };
    if (status === 403) return { code: 'AccessDenied', message: 'Access denied.', request_id: requestId };
    if (status === 429) return { code: 'Throttling.RateQuota', message: 'Requests rate limit exceeded, please try again later.', request_id: requestId };
    if (status >= 500) return { code: 'InternalError', message: 'An internal error has occured, please try again later or contact service support.', request_id: requestId };
    return { code: 'InvalidParameter', message: 'The request could not be processed.', request_id: requestId };
  }

  protected async route(req: StandInRequest, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? jsonObject(req.body) : undefined;
    const kind = this.kindOf(req, body);
    const fault = this.faultFor(kind, res);
    if (fault === 'answered') return;
    const fail = (status: number, code: string, message: string) => this.json(res, status, { code, message, request_id: randomUUID() });
    if (kind === 'other' && !(req.path === CUSTOMIZATION && req.method === 'POST')) return fail(400, 'InvalidURL', 'Invalid URL provided in your request.');
    if (req.headers.authorization !== `Bearer ${this.key}`) return this.json(res, 401, this.errorBody(401));
    const drop = fault === 'drop-after-create';
    let m: RegExpExecArray | null;
    if (kind === 'probe') {
      const model = decodeURIComponent(req.path.slice('/api/v1/models/'.length));
      if (!this.knownModels.has(model)) return fail(404, 'ModelNotFound', `Model not found (${model}).`);
      return this.json(res, 200, { request_id: randomUUID(), output: { model, name: model } });
    }
    if ((m = /^\/api\/v1\/tasks\/([^/]+)(\/cancel)?$/.exec(req.path))) {
      const task = this.all.get(decodeURIComponent(m[1]!));
      const live = task?.kind === 'task' && this.now() - task.submittedAt < this.retentionMs ? task : undefined;
      if (kind === 'status') {
        if (!live) return this.json(res, 200, { request_id: randomUUID(), output: { task_id: m[1], task_status: 'UNKNOWN' } });
        return this.json(res, 200, { request_id: randomUUID(), output: this.taskOutput(live), ...(live.status === 'SUCCEEDED' ? { usage: this.usage(live) } : {}) });
      }
      if (!live || live.status !== 'PENDING') return fail(400, 'UnsupportedOperation', 'Failed to cancel the task, please confirm if the task is in PENDING status.');
      this.end(live, 'CANCELED');
      return this.json(res, 200, { request_id: randomUUID() });
    }
    if (!body) return fail(400, 'InvalidParameter', 'Required parameter(s) missing or invalid, please check the request parameters.');
    if (req.path === CUSTOMIZATION) return this.customization(body, res, drop);
    const model = body.model;
    if (typeof model !== 'string' || !model) return fail(400, 'BadRequest.EmptyModel', 'Required parameter "model" missing from request.');
    if (!body.input || typeof body.input !== 'object') return fail(400, 'BadRequest.EmptyInput', 'Required input parameter missing from request.');
    if (!this.knownModels.has(model)) return fail(400, 'InvalidParameter', 'Model not exist.');
    const input = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'model'));
    const service = TASK_SERVICES[req.path];
    if (service) {
      if (req.headers['x-dashscope-async'] !== 'enable') return fail(403, 'AccessDenied', 'current user api does not support synchronous calls.');
      const task: Task = { kind: 'task', id: randomUUID(), model, service, input, submittedAt: this.now(), status: 'PENDING' };
      this.all.set(task.id, task);
      if (drop) return this.drop(res);
      return this.json(res, 200, { output: { task_status: 'PENDING', task_id: task.id }, request_id: randomUUID() });
    }
    if (typeof (body.input as { text?: unknown }).text !== 'string') return fail(400, 'InvalidParameter', 'Required parameter(s) missing or invalid, please check the request parameters.');
    const speech: Speech = { kind: 'speech', id: randomUUID(), model, service: SPEECH_SERVICES[req.path]!, input, status: 'RUNNING' };
    this.all.set(speech.id, speech);
    if (drop) {
      speech.status = 'SUCCEEDED';
      return this.drop(res);
    }
    return this.speak(speech, await this.sync.outcome(speech.id), res);
  }

  private kindOf(req: StandInRequest, body: Record<string, unknown> | undefined): StandInRequestKind {
    if (req.method === 'GET' && req.path.startsWith('/api/v1/models/')) return 'probe';
    if (req.method === 'GET' && /^\/api\/v1\/tasks\/[^/]+$/.test(req.path)) return 'status';
    if (req.method === 'POST' && /^\/api\/v1\/tasks\/[^/]+\/cancel$/.test(req.path)) return 'cancel';
    if (req.method !== 'POST') return 'other';
    if (TASK_SERVICES[req.path] || SPEECH_SERVICES[req.path]) return 'submit';
    if (req.path !== CUSTOMIZATION) return 'other';
    const action = (body?.input as { action?: unknown } | undefined)?.action;
    return action === 'create_voice' ? 'submit' : action === 'list_voice' || action === 'query_voice' ? 'status' : 'other';
  }

  private customization(body: Record<string, unknown>, res: ServerResponse, drop: boolean): void {
    const fail = (message: string) => this.json(res, 400, { code: 'InvalidParameter', message, request_id: randomUUID() });
    const input = body.input as Record<string, unknown> | undefined;
    if (body.model !== 'voice-enrollment' || !input) return fail('Required parameter(s) missing or invalid, please check the request parameters.');
    const ok = (output?: unknown) => this.json(res, 200, { ...(output !== undefined ? { output } : {}), usage: { count: 1 }, request_id: randomUUID() });
    const voices = [...this.all.values()].filter((j): j is Voice => j.kind === 'voice' && !j.deleted);
    switch (input.action) {
      case 'create_voice': {
        const { target_model: target, prefix, url } = input;
        if (typeof target !== 'string' || !this.knownModels.has(target)) return fail('target_model is invalid.');
        if (typeof prefix !== 'string' || !/^[a-z0-9]{1,9}$/.test(prefix)) return fail('prefix must be lowercase letters and digits, under 10 characters.');
        if (typeof url !== 'string' || !url) return fail('url is required.');
        const now = this.now();
        const voice: Voice = { kind: 'voice', id: `${target}-${prefix}-${randomBytes(4).toString('hex')}`, model: target, prefix, input, createdAt: now, modifiedAt: now, status: 'DEPLOYING' };
        this.all.set(voice.id, voice);
        if (drop) return this.drop(res);
        return ok({ voice_id: voice.id });
      }
      case 'list_voice': {
        const size = typeof input.page_size === 'number' ? input.page_size : 10;
        const index = typeof input.page_index === 'number' ? input.page_index : 0;
        const listed = voices.filter((v) => typeof input.prefix !== 'string' || v.prefix === input.prefix).slice(index * size, (index + 1) * size);
        return ok({ voice_list: listed.map((v) => ({ gmt_create: stamp(v.createdAt).slice(0, 19), voice_id: v.id, gmt_modified: stamp(v.modifiedAt).slice(0, 19), status: v.status })) });
      }
      case 'query_voice': {
        const v = voices.find((x) => x.id === input.voice_id);
        if (!v) return fail('voice_id is invalid.');
        return ok({ gmt_create: stamp(v.createdAt).slice(0, 19), gmt_modified: stamp(v.modifiedAt).slice(0, 19), resource_link: v.input.url, target_model: v.model, status: v.status });
      }
      case 'delete_voice': {
        const v = voices.find((x) => x.id === input.voice_id);
        if (!v) return fail('voice_id is invalid.');
        v.deleted = true;
        this.deletedVoices.push(v.id);
        return ok();
      }
      default:
        return fail('action is invalid.');
    }
  }

  private speak(speech: Speech, outcome: SyncOutcome, res: ServerResponse): void {
    speech.endedAt = this.now();
    if (!outcome.ok) {
      speech.status = 'FAILED';
      return this.json(res, 500, { code: 'InternalError', message: outcome.message ?? 'An internal error has occured, please try again later or contact service support.', request_id: speech.id });
    }
    speech.status = 'SUCCEEDED';
    const format = speech.service === 'cosyvoice' && (speech.input.input as { format?: unknown }).format === 'mp3' ? 'mp3' : 'wav';
    const output = (outcome.outputs ?? [{ kind: format }]).find((o) => o.kind !== 'text');
    if (!output) throw new Error('a speech answer needs an audio output');
    const url = this.file(output, () => (speech.endedAt ?? Infinity) + this.linkLifetimeMs);
    this.json(res, 200, {
      output: { finish_reason: 'stop', audio: { expires_at: Math.floor((speech.endedAt + this.linkLifetimeMs) / 1000), data: '', id: `audio_${randomUUID()}`, url } },
      usage: { input_tokens: 14, output_tokens: 87, total_tokens: 101 },
      request_id: speech.id,
    });
  }

  /** A task's finished output: `results[]` for images, `video_url` for video. */
  private outputsOf(task: Task, outputs: readonly StandInOutput[]): Record<string, unknown> {
    const expires = () => (task.endedAt ?? Infinity) + this.linkLifetimeMs;
    const prompt = typeof (task.input.input as { prompt?: unknown } | undefined)?.prompt === 'string' ? (task.input.input as { prompt: string }).prompt : '';
    if (task.service === 'video') {
      const video = outputs.find((o) => o.kind !== 'text');
      if (!video) throw new Error('a video task needs a file output');
      return { video_url: this.file(video, expires), orig_prompt: prompt, actual_prompt: prompt };
    }
    const results = outputs.map((o) => {
      if (o.kind === 'text') throw new Error('an image task takes file outputs');
      return { orig_prompt: prompt, actual_prompt: prompt, url: this.file(o, expires) };
    });
    return { results, task_metrics: { TOTAL: results.length, SUCCEEDED: results.length, FAILED: 0 } };
  }

  private file(output: Exclude<StandInOutput, { kind: 'text' }>, expiresAt: () => number): string {
    const file = standInFile(output);
    const now = new Date(this.now());
    const path = `/1d/${randomBytes(1).toString('hex')}/${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}/${randomUUID()}.${file.ext}`;
    const url = this.publish(path, file, expiresAt);
    return `${url}?Expires=${Math.floor((this.now() + this.linkLifetimeMs) / 1000)}&OSSAccessKeyId=stand-in&Signature=stand-in`;
  }

  private taskOutput(task: Task): Record<string, unknown> {
    const base: Record<string, unknown> = { task_id: task.id, task_status: task.status, submit_time: stamp(task.submittedAt) };
    if (task.scheduledAt !== undefined) base.scheduled_time = stamp(task.scheduledAt);
    if (task.endedAt !== undefined) base.end_time = stamp(task.endedAt);
    if (task.status === 'FAILED' && task.error) return { ...base, ...task.error };
    if (task.status === 'SUCCEEDED') return { ...base, ...task.output };
    return base;
  }

  private usage(task: Task): Record<string, unknown> {
    if (task.service === 'video') return { video_duration: 5, video_ratio: '1280*720', video_count: 1 };
    return { image_count: Array.isArray(task.output?.results) ? task.output.results.length : 0 };
  }

  private review(voice: Voice, status: 'OK' | 'UNDEPLOYED'): void {
    if (voice.status !== 'DEPLOYING') throw new Error(`voice ${voice.id} is already ${voice.status}`);
    voice.status = status;
    voice.modifiedAt = this.now();
  }

  private open(task: Task): void {
    if (task.status !== 'PENDING' && task.status !== 'RUNNING') throw new Error(`task ${task.id} is already ${task.status}`);
  }

  private end(task: Task, status: 'SUCCEEDED' | 'FAILED' | 'CANCELED'): void {
    task.status = status;
    task.endedAt = this.now();
  }

  private job(id: string): Job {
    const job = this.all.get(id);
    if (!job) throw new Error(`the DashScope stand-in has no job ${id}`);
    return job;
  }
}
