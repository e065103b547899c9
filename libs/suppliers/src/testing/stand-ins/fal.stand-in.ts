/**
 * fal's queue on loopback, for tests. It follows:
 * - the Queue API, https://docs.fal.ai/model-endpoints/queue and
 *   https://docs.fal.ai/documentation/model-apis/inference/queue: `Authorization: Key …`,
 *   `POST /{model_id}[/{subpath}]` answering `request_id`, `response_url`, `status_url`,
 *   `cancel_url` (on `owner/app`, without the subpath) and `queue_position`;
 *   `GET …/requests/{id}/status` (`IN_QUEUE` with `queue_position`, `IN_PROGRESS`, `COMPLETED`
 *   with `metrics`, and `error` / `error_type` when the request failed or was cancelled);
 *   `GET …/requests/{id}` (the model's output JSON);
 * - cancel, https://fal.ai/docs/inference-api/queue/cancel: `PUT …/requests/{id}/cancel` answers
 *   202 `{"status": "CANCELLATION_REQUESTED"}` (a queued request is removed; a running one is
 *   signalled, and stops unless `cancelInProgress` is `ignore`), 400 `ALREADY_COMPLETED`, 404
 *   `NOT_FOUND`;
 * - request errors, https://docs.fal.ai/documentation/model-apis/request-errors (`detail`,
 *   `error_type`, `X-Fal-Error-Type`); the 401 body `{"detail": "No user found for Key ID and
 *   Secret"}` fal answers for a wrong key;
 * - the Platform API's model read, https://docs.fal.ai/platform-apis/v1/models
 *   (`GET /v1/models?endpoint_id=…`, served here on the same origin, as the adapter probes it
 *   behind any base URL other than fal's queue host);
 * - outputs as File objects on a CDN path of this origin (`/files/{animal}/{token}.png`, as
 *   v3.fal.media): `images[]`, `video`, `audio`, and `output` for language models; media does
 *   not expire unless the account or the request's `X-Fal-Object-Lifecycle-Preference` says so
 *   (https://docs.fal.ai/documentation/model-apis/media-expiration).
 * fal's webhooks (ED25519, keys from a JWKS URL) are not offered: the fal channel polls.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { standInFile, usualOutput } from './output-files';
import type { ProviderStandIn, StandInJob, StandInOutput } from './provider-stand-in';
import { HttpStandIn, jsonObject, type StandInRequest } from './stand-in-http';

type Status = 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED';

interface QueuedRequest {
  readonly id: string;
  /** The endpoint id submitted to (subpath included). */
  readonly model: string;
  /** `owner/app` (with its namespace): the part status, result and cancel paths use. */
  readonly app: string;
  readonly input: unknown;
  /** Media expiry from `X-Fal-Object-Lifecycle-Preference`, in ms. */
  readonly lifetimeMs?: number;
  status: Status;
  result?: unknown;
  error?: { readonly message: string; readonly type: string; readonly httpStatus: number };
  startedAt?: number;
  finishedAt?: number;
}

const NAMESPACES = ['workflows', 'comfy'];
const ANIMALS = ['rabbit', 'koala', 'zebra', 'panda', 'tiger', 'lion', 'monkey', 'penguin'];

/** `owner/app` of an endpoint id (fal-js `parseEndpointId`), or null. */
function appOf(parts: readonly string[]): string | null {
  const ns = NAMESPACES.includes(parts[0]!) ? 1 : 0;
  if (parts.length < ns + 2 || parts.slice(0, ns + 2).some((p) => !p)) return null;
  return parts.slice(0, ns + 2).join('/');
}

export class FalStandIn extends HttpStandIn implements ProviderStandIn {
  /** fal keeps generated media until the account's or the request's expiration says otherwise: by default, no expiry. */
  linkLifetimeMs = Number.POSITIVE_INFINITY;
  /** What a running request does when cancelled: stops (ends `COMPLETED` with `client_cancelled`) or ignores the signal. */
  cancelInProgress: 'stop' | 'ignore' = 'stop';
  private readonly queue = new Map<string, QueuedRequest>();

  constructor(
    /** The key requests must carry as `Key …` (`key_id:key_secret`). */
    readonly key = 'stand-in-key-id:stand-in-key-secret',
    models: Iterable<string> = [],
  ) {
    super();
    this.knownModels = new Set(models);
  }

  jobs(): StandInJob[] {
    return [...this.queue.values()].map((r) => ({ id: r.id, model: r.model, input: r.input, status: r.status }));
  }

  run(id: string): void {
    const r = this.held(id);
    if (r.status !== 'IN_QUEUE') throw new Error(`request ${id} is ${r.status}, not IN_QUEUE`);
    r.status = 'IN_PROGRESS';
    r.startedAt = Date.now();
  }

  succeed(id: string, outputs?: readonly StandInOutput[]): void {
    const r = this.open(id);
    const list = outputs ?? [usualOutput(r.model)];
    const result: Record<string, unknown> = {};
    const images: unknown[] = [];
    for (const o of list) {
      if (o.kind === 'text') {
        result.output = `${typeof result.output === 'string' ? result.output : ''}${o.text}`;
        result.partial = false;
        result.error = null;
        continue;
      }
      const file = standInFile(o);
      const name = `${randomBytes(12).toString('base64url')}.${file.ext}`;
      const url = this.publish(`/files/${ANIMALS[images.length % ANIMALS.length]}/${name}`, file, () => this.expiry(r));
      const entry = { url, content_type: file.contentType, file_name: name, file_size: file.size };
      if (o.kind === 'mp4') result.video = entry;
      else if (o.kind === 'wav' || o.kind === 'mp3') result.audio = entry;
      else images.push({ ...entry, width: 2, height: 2 });
    }
    if (images.length) Object.assign(result, { images, timings: { inference: 0.5 }, seed: 42, has_nsfw_concepts: images.map(() => false), prompt: '' });
    r.result = result;
    this.finish(r);
  }

  fail(id: string, message = 'Internal Server Error'): void {
    const r = this.open(id);
    r.error = { message, type: 'runner_server_error', httpStatus: 500 };
    this.finish(r);
  }

  protected errorBody(status: number): unknown {
    if (status === 401) return { detail: 'No user found for Key ID and Secret' };
    if (status === 429) return { detail: 'Too many requests: the concurrent request limit was reached.' };
    if (status === 503) return { detail: 'No runner could be allocated to handle the request.', error_type: 'runner_scheduling_failure' };
    if (status === 504) return { detail: 'Request timed out', error_type: 'request_timeout' };
    if (status >= 500) return { detail: 'An unexpected internal error occurred.', error_type: 'internal_error' };
    return { detail: 'The request could not be processed.' };
  }

  protected route(req: StandInRequest, res: ServerResponse): void {
    const parts = req.path.split('/').slice(1).map(decodeURIComponent);
    const at = parts.indexOf('requests');
    const app = at > 0 ? parts.slice(0, at).join('/') : null;
    const id = at > 0 ? parts[at + 1] : undefined;
    const tail = at > 0 ? parts.slice(at + 2).join('/') : '';
    let kind: 'probe' | 'submit' | 'status' | 'result' | 'cancel' | 'other' = 'other';
    if (req.method === 'GET' && req.path === '/v1/models') kind = 'probe';
    else if (req.method === 'POST' && at < 0 && appOf(parts)) kind = 'submit';
    else if (app && id && req.method === 'GET' && tail === 'status') kind = 'status';
    else if (app && id && req.method === 'GET' && tail === '') kind = 'result';
    else if (app && id && req.method === 'PUT' && tail === 'cancel') kind = 'cancel';
    const fault = this.faultFor(kind, res);
    if (fault === 'answered') return;
    if (kind === 'other') return this.json(res, 404, { detail: 'Not Found' });
    if (req.headers.authorization !== `Key ${this.key}`) return this.json(res, 401, this.errorBody(401));
    if (kind === 'probe') return this.probe(req, res);
    if (kind === 'submit') return this.submit(req, res, parts, fault === 'drop-after-create');
    const r = this.queue.get(id!);
    if (!r || r.app !== app) {
      return kind === 'cancel' ? this.json(res, 404, { status: 'NOT_FOUND' }) : this.json(res, 404, { detail: `Request ${id} not found` });
    }
    if (kind === 'status') return this.json(res, 200, this.statusOf(r));
    if (kind === 'result') return this.result(r, res);
    return this.cancel(r, res);
  }

  private probe(req: StandInRequest, res: ServerResponse): void {
    const endpointId = req.query.get('endpoint_id');
    if (!endpointId || !this.knownModels.has(endpointId)) return this.json(res, 404, { detail: `Model endpoint ${endpointId ?? ''} not found` });
    this.json(res, 200, {
      models: [{ endpoint_id: endpointId, metadata: { display_name: endpointId, category: 'text-to-image', description: 'A stand-in model', status: 'active', tags: [], updated_at: new Date(0).toISOString() } }],
      next_cursor: null,
      has_more: false,
    });
  }

  private submit(req: StandInRequest, res: ServerResponse, parts: readonly string[], drop: boolean): void {
    const model = parts.join('/');
    if (!this.knownModels.has(model)) return this.json(res, 404, { detail: `Application '${parts.slice(0, 2).join('/')}' not found` });
    const input = jsonObject(req.body);
    if (!input) return this.json(res, 422, { detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] });
    const lifecycle = jsonObject(Buffer.from(String(req.headers['x-fal-object-lifecycle-preference'] ?? '')));
    const seconds = lifecycle?.expiration_duration_seconds;
    const r: QueuedRequest = {
      id: randomUUID(),
      model,
      app: appOf(parts)!,
      input,
      ...(typeof seconds === 'number' && seconds > 0 ? { lifetimeMs: seconds * 1000 } : {}),
      status: 'IN_QUEUE',
    };
    this.queue.set(r.id, r);
    if (drop) return this.drop(res);
    this.json(res, 200, { request_id: r.id, ...this.urls(r), queue_position: this.position(r) });
  }

  private result(r: QueuedRequest, res: ServerResponse): void {
    if (r.status !== 'COMPLETED') return this.json(res, 400, { detail: 'Request is still in progress' });
    if (r.error) return this.json(res, r.error.httpStatus, { detail: r.error.message, error_type: r.error.type }, { 'x-fal-error-type': r.error.type });
    this.json(res, 200, r.result, { 'x-fal-request-id': r.id });
  }

  private cancel(r: QueuedRequest, res: ServerResponse): void {
    if (r.status === 'COMPLETED') return this.json(res, 400, { status: 'ALREADY_COMPLETED' });
    if (r.status === 'IN_QUEUE' || this.cancelInProgress === 'stop') {
      r.error = { message: 'The request was cancelled by the client.', type: 'client_cancelled', httpStatus: 499 };
      this.finish(r);
    }
    this.json(res, 202, { status: 'CANCELLATION_REQUESTED' });
  }

  private statusOf(r: QueuedRequest): Record<string, unknown> {
    const base = { status: r.status, request_id: r.id, ...this.urls(r) };
    if (r.status === 'IN_QUEUE') return { ...base, queue_position: this.position(r) };
    if (r.status === 'IN_PROGRESS') return { ...base, logs: null };
    return {
      ...base,
      logs: null,
      metrics: { inference_time: r.startedAt !== undefined ? Math.max(0, (Date.now() - r.startedAt) / 1000) : null },
      ...(r.error ? { error: r.error.message, error_type: r.error.type } : {}),
    };
  }

  private urls(r: QueuedRequest): Record<string, string> {
    const response = `${this.url}/${r.app}/requests/${r.id}`;
    return { response_url: response, status_url: `${response}/status`, cancel_url: `${response}/cancel` };
  }

  private position(r: QueuedRequest): number {
    return [...this.queue.values()].filter((q) => q.status === 'IN_QUEUE' && q.app === r.app).indexOf(r);
  }

  private expiry(r: QueuedRequest): number {
    return (r.finishedAt ?? Infinity) + (r.lifetimeMs ?? this.linkLifetimeMs);
  }

  private finish(r: QueuedRequest): void {
    r.status = 'COMPLETED';
    r.finishedAt = this.now();
  }

  private held(id: string): QueuedRequest {
    const r = this.queue.get(id);
    if (!r) throw new Error(`the fal stand-in has no request ${id}`);
    return r;
  }

  private open(id: string): QueuedRequest {
    const r = this.held(id);
    if (r.status === 'COMPLETED') throw new Error(`request ${id} is already COMPLETED`);
    return r;
  }
}
