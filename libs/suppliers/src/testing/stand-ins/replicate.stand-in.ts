/**
 * Replicate's predictions API on loopback, for tests. It follows:
 * - the HTTP API reference, https://replicate.com/docs/reference/http: `Authorization: Bearer`,
 *   `POST /v1/models/{owner}/{name}/predictions`, `POST /v1/predictions` (`version`: the id, or
 *   `owner/name:id`), `GET /v1/predictions/{id}`, `POST /v1/predictions/{id}/cancel`,
 *   `GET /v1/models/{owner}/{name}`, `GET /v1/models/{owner}/{name}/versions/{id}`,
 *   `GET /v1/predictions` (the account's predictions, newest first, 100 a page, `next`); the
 *   prediction object (`id`, `model`, `version`, `input`, `logs`, `output`, `error`, `status`,
 *   `data_removed`, `created_at`, `started_at`, `completed_at`, `metrics`, `urls`);
 * - errors as problem details (`title`, `detail`, `status`; replicate-python `exceptions.py`),
 *   401 "Unauthenticated" and 422 "Invalid version or not permitted" as quoted in
 *   replicate/replicate-python#47, 429 `{"detail": "Request was throttled. …"}` from
 *   https://replicate.com/docs/topics/predictions/rate-limits;
 * - statuses, https://replicate.com/docs/topics/predictions/lifecycle: `starting` →
 *   `processing` → `succeeded` | `failed` | `canceled`; a cancel of a finished prediction
 *   answers it unchanged;
 * - output files on a delivery path of this origin (`/pbxt/{id}/out-0.png`, as
 *   replicate.delivery), removed with the prediction's input and output an hour after it
 *   finished (https://replicate.com/docs/topics/predictions/data-retention);
 * - webhooks signed per https://replicate.com/docs/topics/webhooks/verify-webhook (Standard
 *   Webhooks), sent when the test asks (`sendWebhook`).
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { standInFile, usualOutput } from './output-files';
import type { ProviderStandIn, StandInJob, StandInOutput, StandInRequestKind } from './provider-stand-in';
import { HttpStandIn, jsonObject, type StandInRequest } from './stand-in-http';

type Status = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';

interface Prediction {
  readonly id: string;
  readonly model: string;
  readonly version: string;
  readonly input: unknown;
  readonly webhook?: string;
  readonly webhookEventsFilter?: unknown;
  status: Status;
  output: unknown;
  error: string | null;
  readonly createdAt: number;
  startedAt?: number;
  completedAt?: number;
  /** When it finished on the stand-in's clock (`now`): retention counts from here. */
  finishedOnClock?: number;
}

const TERMINAL: readonly Status[] = ['succeeded', 'failed', 'canceled'];
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
/** Replicate-like ids: 26 lowercase base-32 characters. */
const predictionId = () => [...randomBytes(26)].map((b) => 'abcdefghijklmnopqrstuvwxyz234567'[b & 31]).join('');

export class ReplicateStandIn extends HttpStandIn implements ProviderStandIn {
  /** Output files and prediction data are removed an hour after the prediction finished. */
  linkLifetimeMs = 60 * 60 * 1000;
  /** Rewrites webhook addresses (the service under test may listen elsewhere than its PUBLIC_BASE_URL). */
  webhookOrigin: string | undefined;
  private readonly predictions = new Map<string, Prediction>();
  private readonly sentWebhooks = new Map<string, { url: string; headers: Record<string, string>; body: string }>();

  constructor(
    /** The API token requests must carry as `Bearer …`. */
    readonly token = 'r8_standInToken0000000000000000000000000',
    models: Iterable<string> = [],
  ) {
    super();
    this.knownModels = new Set(models);
  }

  jobs(): StandInJob[] {
    return [...this.predictions.values()].map((p) => ({ id: p.id, model: p.model, input: p.input, status: p.status, ...(p.webhook ? { webhook: p.webhook } : {}) }));
  }

  run(id: string): void {
    const p = this.held(id);
    if (p.status !== 'starting') throw new Error(`prediction ${id} is ${p.status}, not starting`);
    p.status = 'processing';
    p.startedAt = Date.now();
  }

  succeed(id: string, outputs?: readonly StandInOutput[]): void {
    const p = this.open(id);
    const list = outputs ?? [usualOutput(p.model)];
    const files = list.filter((o): o is Exclude<StandInOutput, { kind: 'text' }> => o.kind !== 'text');
    if (files.length) {
      const links = files.map((o, i) => {
        const file = standInFile(o);
        return this.publish(`/pbxt/${p.id}/out-${i}.${file.ext}`, file, () => this.expiry(p));
      });
      // Image models answer a list of links; video and audio models one link.
      p.output = links.length === 1 && ['mp4', 'wav', 'mp3'].includes(files[0]!.kind) ? links[0] : links;
    } else {
      // Language models answer the pieces they streamed.
      const text = list.map((o) => (o.kind === 'text' ? o.text : '')).join('');
      p.output = text.match(/\s*\S+|\s+$/g) ?? [''];
    }
    this.finish(p, 'succeeded');
  }

  fail(id: string, message = 'Prediction failed: the model raised an error.'): void {
    const p = this.open(id);
    p.error = message;
    this.finish(p, 'failed');
  }

  async sendWebhook(id: string, secret: string, options: { readonly tamper?: boolean; readonly timestampOffsetS?: number; readonly replay?: boolean } = {}): Promise<number> {
    const p = this.held(id);
    let message = this.sentWebhooks.get(id);
    if (!options.replay || !message) {
      if (!p.webhook) throw new Error(`prediction ${id} has no webhook`);
      const body = JSON.stringify(this.view(p));
      const webhookId = `msg_${randomBytes(18).toString('base64url')}`;
      const timestamp = String(Math.floor(Date.now() / 1000) + (options.timestampOffsetS ?? 0));
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
      const signature = createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64');
      const url = this.webhookOrigin ? this.webhookOrigin + new URL(p.webhook).pathname + new URL(p.webhook).search : p.webhook;
      const sent = options.tamper ? tamper(body) : body;
      message = { url, body: sent, headers: { 'content-type': 'application/json', 'webhook-id': webhookId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` } };
      this.sentWebhooks.set(id, message);
    }
    const res = await fetch(message.url, { method: 'POST', headers: message.headers, body: message.body, redirect: 'manual' });
    await res.arrayBuffer();
    return res.status;
  }

  protected errorBody(status: number, retryAfter?: number): unknown {
    if (status === 429) return { detail: `Request was throttled. Expected available in ${retryAfter ?? 1} second${retryAfter === 1 || retryAfter === undefined ? '' : 's'}.` };
    const titles: Record<number, string> = { 400: 'Bad request', 401: 'Unauthenticated', 403: 'Forbidden', 404: 'Not found', 422: 'Unprocessable Entity', 500: 'Internal server error', 502: 'Bad gateway', 503: 'Service unavailable' };
    return { title: titles[status] ?? 'Error', detail: status >= 500 ? 'An unexpected error occurred.' : 'The request could not be processed.', status };
  }

  protected route(req: StandInRequest, res: ServerResponse): void {
    const parts = req.path.split('/').slice(1).map(decodeURIComponent);
    const [, resource, a, b, , d] = parts;
    const kind = kindOf(req.method, parts);
    const fault = this.faultFor(kind, res);
    if (fault === 'answered') return;
    if (kind === 'other') return this.json(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${this.token}`) {
      const detail = auth ? 'You did not pass a valid authentication token' : 'You did not pass an authentication token';
      return this.json(res, 401, { title: 'Unauthenticated', detail, status: 401 });
    }
    switch (kind) {
      case 'probe': {
        const model = `${a}/${b}`;
        const known = d === undefined ? this.modelKnown(model) : this.knownModels.has(`${model}:${d}`);
        if (!known) return this.json(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
        if (d !== undefined) return this.json(res, 200, { id: d, created_at: new Date(0).toISOString(), cog_version: '0.9.0', openapi_schema: {} });
        return this.json(res, 200, { url: `https://replicate.com/${model}`, owner: a, name: b, description: 'A stand-in model', visibility: 'public', run_count: 0, latest_version: { id: '0'.repeat(64) } });
      }
      case 'submit':
        return this.create(req, res, resource === 'models' ? `${a}/${b}` : undefined, fault === 'drop-after-create');
      case 'list': {
        // Newest first, 100 a page; the cursor is the index of the page's first item.
        const all = [...this.predictions.values()].reverse();
        const from = Number(req.query.get('cursor') ?? '0') || 0;
        const page = all.slice(from, from + 100);
        const next = from + 100 < all.length ? `${this.url}/v1/predictions?cursor=${from + 100}` : null;
        return this.json(res, 200, { previous: from > 0 ? `${this.url}/v1/predictions?cursor=${Math.max(0, from - 100)}` : null, next, results: page.map((p) => this.view(p)) });
      }
      case 'status': {
        const p = this.predictions.get(a!);
        return p ? this.json(res, 200, this.view(p)) : this.json(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
      }
      case 'cancel': {
        const p = this.predictions.get(a!);
        if (!p) return this.json(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
        if (!TERMINAL.includes(p.status)) this.finish(p, 'canceled');
        return this.json(res, 200, this.view(p));
      }
    }
  }

  private create(req: StandInRequest, res: ServerResponse, model: string | undefined, drop: boolean): void {
    const body = jsonObject(req.body);
    if (!body) return this.json(res, 400, { title: 'Invalid JSON', detail: 'The request body is not a JSON object.', status: 400 });
    let version = '0'.repeat(64);
    if (model === undefined) {
      const ref = typeof body.version === 'string' ? body.version : '';
      const id = ref.includes(':') ? ref.split(':')[1]! : ref;
      const known = [...this.knownModels].find((m) => m.split(':')[1] === id && (!ref.includes(':') || m === ref));
      if (!id || !known) {
        return this.json(res, 422, { title: 'Invalid version or not permitted', detail: "The specified version does not exist (or perhaps you don't have permission to use it?)", status: 422 });
      }
      model = known.split(':')[0]!;
      version = id;
    } else if (!this.modelKnown(model)) {
      return this.json(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
    }
    if (!body.input || typeof body.input !== 'object' || Array.isArray(body.input)) {
      return this.json(res, 422, { title: 'Input validation failed', detail: '- input: Invalid type. Expected: object, given: ' + typeof body.input, status: 422 });
    }
    if (body.webhook !== undefined && (typeof body.webhook !== 'string' || !/^https?:\/\//.test(body.webhook))) {
      return this.json(res, 422, { title: 'Input validation failed', detail: '- webhook: Does not match format uri', status: 422 });
    }
    const p: Prediction = {
      id: predictionId(),
      model,
      version,
      input: body.input,
      ...(typeof body.webhook === 'string' ? { webhook: body.webhook, webhookEventsFilter: body.webhook_events_filter ?? ['start', 'output', 'logs', 'completed'] } : {}),
      status: 'starting',
      output: null,
      error: null,
      createdAt: Date.now(),
    };
    this.predictions.set(p.id, p);
    if (drop) return this.drop(res);
    this.json(res, 201, this.view(p));
  }

  /** The prediction object, as `predictions.get` answers it (data removed once past retention). */
  private view(p: Prediction): Record<string, unknown> {
    const removed = p.completedAt !== undefined && this.now() >= this.expiry(p);
    const get = `${this.url}/v1/predictions/${p.id}`;
    return {
      id: p.id,
      model: p.model,
      version: p.version,
      input: removed ? {} : p.input,
      logs: '',
      output: removed ? null : p.output,
      data_removed: removed,
      error: p.error,
      status: p.status,
      source: 'api',
      created_at: iso(p.createdAt),
      started_at: iso(p.startedAt),
      completed_at: iso(p.completedAt),
      metrics: p.completedAt !== undefined ? { predict_time: Math.max(0, (p.completedAt - (p.startedAt ?? p.createdAt)) / 1000) } : {},
      ...(p.webhook ? { webhook: p.webhook, webhook_events_filter: p.webhookEventsFilter } : {}),
      urls: { get, cancel: `${get}/cancel`, web: `https://replicate.com/p/${p.id}` },
    };
  }

  private expiry(p: Prediction): number {
    return (p.finishedOnClock ?? Infinity) + this.linkLifetimeMs;
  }

  private finish(p: Prediction, status: Status): void {
    p.status = status;
    p.completedAt = Date.now();
    p.finishedOnClock = this.now();
  }

  private modelKnown(model: string): boolean {
    return this.knownModels.has(model) || [...this.knownModels].some((m) => m.startsWith(`${model}:`));
  }

  private held(id: string): Prediction {
    const p = this.predictions.get(id);
    if (!p) throw new Error(`the Replicate stand-in has no prediction ${id}`);
    return p;
  }

  private open(id: string): Prediction {
    const p = this.held(id);
    if (TERMINAL.includes(p.status)) throw new Error(`prediction ${id} is already ${p.status}`);
    return p;
  }
}

/** The kind of a request to the API (`/v1/…`), by method and path segments. */
function kindOf(method: string, parts: readonly string[]): StandInRequestKind {
  const [v1, resource, , b, c] = parts;
  if (v1 !== 'v1') return 'other';
  if (resource === 'models') {
    if (method === 'GET' && (parts.length === 4 || (parts.length === 6 && c === 'versions'))) return 'probe';
    if (method === 'POST' && parts.length === 5 && c === 'predictions') return 'submit';
  }
  if (resource === 'predictions') {
    if (method === 'GET' && parts.length === 2) return 'list';
    if (method === 'POST' && parts.length === 2) return 'submit';
    if (method === 'GET' && parts.length === 3) return 'status';
    if (method === 'POST' && parts.length === 4 && b === 'cancel') return 'cancel';
  }
  return 'other';
}

/** The body with its status changed after signing (a forged message). */
function tamper(body: string): string {
  const changed = body.replace(/"status":"[a-z]+"/, '"status":"canceled"');
  return changed === body ? `${body} ` : changed;
}
