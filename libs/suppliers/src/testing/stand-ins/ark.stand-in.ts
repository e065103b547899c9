/**
 * Volcengine Ark on loopback, for tests. Its `url` is the channel's `base_url` (as
 * `https://ark.cn-beijing.volces.com`). It follows:
 * - the Ark API reference (https://www.volcengine.com/docs/82379): content generation tasks,
 *   `POST /api/v3/contents/generations/tasks` (`{model, content: [{type: "text", text},
 *   {type: "image_url", image_url: {url}}], …}` → `{id: "cgt-…"}`),
 *   `GET /api/v3/contents/generations/tasks/{id}` (`{id, model, status, content, usage,
 *   created_at, updated_at, seed, resolution, ratio, duration, framespersecond}`, `status`
 *   `queued`, `running`, `succeeded`, `failed` with `error {code, message}`, `cancelled`;
 *   `content.video_url`, and `content.last_frame_url` when asked with `return_last_frame`),
 *   the task list `GET /api/v3/contents/generations/tasks?page_num&page_size&filter.model&filter.status`
 *   (`{total, items}`), `DELETE /api/v3/contents/generations/tasks/{id}` (a `queued` task is
 *   canceled; a `succeeded`, `failed` or `expired` one has its record deleted; a `running`
 *   or `cancelled` one cannot be: an error); Seedream image generation,
 *   `POST /api/v3/images/generations` (`{model, created, data: [{url} | {b64_json}], usage:
 *   {generated_images}}`, JPEG, answered at once); result links valid for 24 hours;
 * - the error table: `{"error": {"code", "message", "param", "type"}}` with a request id in the
 *   message: 400 `MissingParameter` / `InvalidParameter`, 401 `AuthenticationError`, 404
 *   `InvalidEndpointOrModel.NotFound` for a model or endpoint it does not know, 429
 *   `RateLimitExceeded.EndpointRPMExceeded`, 500 `InternalServiceError`. Ark does not document
 *   the exact code refusing to cancel a running task; the stand-in answers 400
 *   `InvalidParameter` (the channel reads any 4xx but 404 as refused).
 *
 * The task list is the adapter's probe: `filter.model` filters the list, it does not check
 * the model, so the list answers 200 for any model (empty when it ran no task of it) and a
 * probe verifies the key and the API, not the model. Ark's callbacks are unsigned and are
 * not sent: the channel polls.
 *
 * The test drives jobs: tasks `run`, `succeed` (default: an MP4; an image output after it is
 * the last frame), `fail` (`InternalServiceError`). Image generations are answered
 * synchronously (see `SynchronousCalls`: at once with a JPEG, scripted with `succeedNext` /
 * `failNext`, or held with `sync.hold` until `succeed(id)` / `fail(id)`; a failure answers 500).
 * Result files are served at TOS-like paths on the stand-in's own origin and expire
 * `linkLifetimeMs` after the job ended.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { standInFile, type StandInFile } from './output-files';
import type { ProviderStandIn, StandInJob, StandInOutput, StandInRequestKind } from './provider-stand-in';
import { HttpStandIn, jsonObject, type StandInRequest } from './stand-in-http';
import { SynchronousCalls, type SyncOutcome } from './synchronous-calls';

const TASKS = '/api/v3/contents/generations/tasks';
const IMAGES = '/api/v3/images/generations';

type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

interface Task {
  readonly kind: 'task';
  readonly id: string;
  readonly model: string;
  readonly input: Record<string, unknown>;
  readonly createdAt: number;
  status: TaskStatus;
  updatedAt: number;
  content?: Record<string, string>;
  error?: { readonly code: string; readonly message: string };
}

interface ImageCall {
  readonly kind: 'images';
  readonly id: string;
  readonly model: string;
  readonly input: Record<string, unknown>;
  status: 'running' | 'succeeded' | 'failed';
  endedAt?: number;
}

const requestId = () => `0217${Date.now()}${randomBytes(12).toString('hex')}`;

function arkError(code: string, message: string, type: string, param = ''): unknown {
  return { error: { code, message: `${message} Request id: ${requestId()}`, param, type } };
}

async function bytesOf(file: StandInFile): Promise<Buffer> {
  return Buffer.concat((await file.open().toArray()) as Buffer[]);
}

export class ArkStandIn extends HttpStandIn implements ProviderStandIn {
  /** Result links are valid for 24 hours. */
  linkLifetimeMs = 24 * 60 * 60_000;
  readonly sync = new SynchronousCalls();
  private readonly all = new Map<string, Task | ImageCall>();

  constructor(
    /** The API key requests must carry as `Bearer …`. */
    readonly key = 'ark-stand-in-key',
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
    if (job.kind === 'images') {
      if (!this.sync.held(id)) throw new Error(`image generation ${id} is not held`);
      return;
    }
    if (job.status !== 'queued') throw new Error(`task ${id} is ${job.status}, not queued`);
    this.update(job, 'running');
  }

  succeed(id: string, outputs?: readonly StandInOutput[]): void {
    const job = this.job(id);
    if (job.kind === 'images') return this.sync.settle(id, { ok: true, ...(outputs ? { outputs } : {}) });
    this.open(job);
    const [video, frame] = (outputs ?? [{ kind: 'mp4' }]).map((o) => {
      if (o.kind === 'text') throw new Error('a content generation task takes file outputs');
      return this.file(job.model, o, () => (job.status === 'succeeded' ? job.updatedAt : Infinity) + this.linkLifetimeMs);
    });
    job.content = { video_url: video!, ...(frame ? { last_frame_url: frame } : {}) };
    this.update(job, 'succeeded');
  }

  fail(id: string, message = 'The service encountered an unexpected internal error.'): void {
    const job = this.job(id);
    if (job.kind === 'images') return this.sync.settle(id, { ok: false, message });
    this.open(job);
    job.error = { code: 'InternalServiceError', message };
    this.update(job, 'failed');
  }

  /** The next image generation (not yet made) answers with these outputs. */
  succeedNext(outputs?: readonly StandInOutput[]): void {
    this.sync.script({ ok: true, ...(outputs ? { outputs } : {}) });
  }

  /** The next image generation (not yet made) answers 500 `InternalServiceError`. */
  failNext(message?: string): void {
    this.sync.script({ ok: false, ...(message ? { message } : {}) });
  }

  protected errorBody(status: number): unknown {
    if (status === 400) return arkError('InvalidParameter', 'A parameter specified in the request is not valid.', 'BadRequest');
    if (status === 401) return arkError('AuthenticationError', 'The API key or AK/SK in the request is missing or invalid.', 'Unauthorized');
    if (status === 403) return arkError('AccessDenied', 'The request failed because you do not have access to the requested resource.', 'Forbidden');
    if (status === 404) return arkError('NotFound', 'The specified resource is not found.', 'NotFound');
    if (status === 429) return arkError('RateLimitExceeded.EndpointRPMExceeded', 'The Requests Per Minute (RPM) limit of the associated endpoint for your account has been exceeded.', 'TooManyRequests');
    if (status === 503) return arkError('ServerOverloaded', 'The service is currently unable to handle additional requests due to server overload.', 'ServiceUnavailable');
    return arkError('InternalServiceError', 'The service encountered an unexpected internal error.', 'InternalServerError');
  }

  protected async route(req: StandInRequest, res: ServerResponse): Promise<void> {
    const m = new RegExp(`^${TASKS}/([^/]+)$`).exec(req.path);
    let kind: StandInRequestKind = 'other';
    // The task list: filtered by model it is the channel's probe; unfiltered, its status sweep.
    if (req.method === 'GET' && req.path === TASKS) kind = req.query.has('filter.model') ? 'probe' : 'list';
    else if (req.method === 'POST' && (req.path === TASKS || req.path === IMAGES)) kind = 'submit';
    else if (m && req.method === 'GET') kind = 'status';
    else if (m && req.method === 'DELETE') kind = 'cancel';
    const fault = this.faultFor(kind, res);
    if (fault === 'answered') return;
    if (kind === 'other') return this.json(res, 404, arkError('NotFound', `The requested path ${req.path} is not found.`, 'NotFound'));
    if (req.headers.authorization !== `Bearer ${this.key}`) return this.json(res, 401, this.errorBody(401));
    if (kind === 'probe' || kind === 'list') return this.list(req, res);
    if (kind === 'submit') return this.create(req, res, fault === 'drop-after-create');
    const id = decodeURIComponent(m![1]!);
    const task = this.all.get(id);
    if (!task || task.kind !== 'task') return this.json(res, 404, arkError('NotFound.TaskId', `The specified task ${id} is not found.`, 'NotFound', 'id'));
    if (kind === 'status') return this.json(res, 200, this.view(task));
    if (task.status === 'queued') {
      this.update(task, 'cancelled');
      return this.json(res, 200, {});
    }
    if (task.status === 'succeeded' || task.status === 'failed') {
      this.all.delete(task.id);
      return this.json(res, 200, {});
    }
    return this.json(res, 400, arkError('InvalidParameter', `The task ${id} is ${task.status} and cannot be cancelled or deleted.`, 'BadRequest', 'id'));
  }

  private list(req: StandInRequest, res: ServerResponse): void {
    const model = req.query.get('filter.model');
    const status = req.query.get('filter.status');
    const size = Math.min(500, Math.max(1, Number(req.query.get('page_size') ?? 10) || 10));
    const page = Math.max(1, Number(req.query.get('page_num') ?? 1) || 1);
    const tasks = [...this.all.values()].filter((t): t is Task => t.kind === 'task' && (!model || t.model === model) && (!status || t.status === status)).reverse();
    this.json(res, 200, { total: tasks.length, items: tasks.slice((page - 1) * size, page * size).map((t) => this.view(t)) });
  }

  private async create(req: StandInRequest, res: ServerResponse, drop: boolean): Promise<void> {
    const body = jsonObject(req.body);
    if (!body) return this.json(res, 400, arkError('InvalidParameter', 'The request body is not valid JSON.', 'BadRequest'));
    const { model } = body;
    if (typeof model !== 'string' || !model) return this.json(res, 400, arkError('MissingParameter', 'The request failed because it is missing `model` parameter.', 'BadRequest', 'model'));
    if (!this.knownModels.has(model)) {
      return this.json(res, 404, arkError('InvalidEndpointOrModel.NotFound', `The model or endpoint ${model} does not exist or you do not have access to it.`, 'NotFound'));
    }
    const input = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'model'));
    const now = this.now();
    if (req.path === TASKS) {
      if (!Array.isArray(input.content) || !input.content.length) return this.json(res, 400, arkError('MissingParameter', 'The request failed because it is missing `content` parameter.', 'BadRequest', 'content'));
      const stampId = new Date(now).toISOString().replace(/\D/g, '').slice(0, 14);
      const task: Task = { kind: 'task', id: `cgt-${stampId}-${randomBytes(3).toString('hex').slice(0, 5)}`, model, input, createdAt: now, updatedAt: now, status: 'queued' };
      this.all.set(task.id, task);
      if (drop) return this.drop(res);
      return this.json(res, 200, { id: task.id });
    }
    if (typeof input.prompt !== 'string' || !input.prompt) return this.json(res, 400, arkError('MissingParameter', 'The request failed because it is missing `prompt` parameter.', 'BadRequest', 'prompt'));
    const call: ImageCall = { kind: 'images', id: requestId(), model, input, status: 'running' };
    this.all.set(call.id, call);
    if (drop) {
      call.status = 'succeeded';
      return this.drop(res);
    }
    return this.answerImages(call, await this.sync.outcome(call.id), res);
  }

  private async answerImages(call: ImageCall, outcome: SyncOutcome, res: ServerResponse): Promise<void> {
    call.endedAt = this.now();
    const headers = { 'x-request-id': call.id };
    if (!outcome.ok) {
      call.status = 'failed';
      return this.json(res, 500, arkError('InternalServiceError', outcome.message ?? 'The service encountered an unexpected internal error.', 'InternalServerError'), headers);
    }
    call.status = 'succeeded';
    const data: Record<string, unknown>[] = [];
    for (const o of outcome.outputs ?? [{ kind: 'jpeg' }]) {
      if (o.kind === 'text') throw new Error('an image generation takes image outputs');
      if (call.input.response_format === 'b64_json') data.push({ b64_json: (await bytesOf(standInFile(o))).toString('base64') });
      else data.push({ url: this.file(call.model, o, () => (call.endedAt ?? Infinity) + this.linkLifetimeMs) });
    }
    this.json(res, 200, { model: call.model, created: Math.floor(call.endedAt / 1000), data, usage: { generated_images: data.length } }, headers);
  }

  private view(task: Task): Record<string, unknown> {
    return {
      id: task.id,
      model: task.model,
      status: task.status,
      ...(task.content ? { content: task.content } : {}),
      ...(task.error ? { error: task.error } : {}),
      ...(task.status === 'succeeded' ? { usage: { completion_tokens: 108900, total_tokens: 108900 }, seed: 10, resolution: '720p', ratio: '16:9', duration: 5, framespersecond: 24 } : {}),
      created_at: Math.floor(task.createdAt / 1000),
      updated_at: Math.floor(task.updatedAt / 1000),
    };
  }

  private file(model: string, output: Exclude<StandInOutput, { kind: 'text' }>, expiresAt: () => number): string {
    const file = standInFile(output);
    const path = `/${encodeURIComponent(model)}/0217${randomBytes(16).toString('hex')}.${file.ext}`;
    return `${this.publish(path, file, expiresAt)}?X-Tos-Algorithm=TOS4-HMAC-SHA256&X-Tos-Expires=86400&X-Tos-Signature=stand-in`;
  }

  private open(task: Task): void {
    if (task.status !== 'queued' && task.status !== 'running') throw new Error(`task ${task.id} is already ${task.status}`);
  }

  private update(task: Task, status: TaskStatus): void {
    task.status = status;
    task.updatedAt = this.now();
  }

  private job(id: string): Task | ImageCall {
    const job = this.all.get(id);
    if (!job) throw new Error(`the Ark stand-in has no job ${id}`);
    return job;
  }
}
