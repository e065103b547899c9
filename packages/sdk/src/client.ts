import { ApiError, NetworkError, QuoteAboveLimitError, TaskCanceledError, TaskFailedError, TimeoutError, errorFromResponse } from './errors.js';
import { readEvents } from './events.js';
import type {
  Asset,
  AssetListItem,
  AssetListQuery,
  AssetDeleted,
  BillingListQuery,
  Bill,
  CancelResult,
  CapabilityList,
  Model,
  ModelList,
  ModelListQuery,
  Page,
  PriceList,
  Quote,
  QuoteRequest,
  Task,
  TaskCreateRequest,
  TaskListQuery,
  Upload,
  UploadImportRequest,
  UploadPrepareRequest,
  Voice,
  VoiceListQuery,
  Wallet,
  WebhookDelivery,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreateRequest,
  WebhookEndpointDeleted,
  WebhookEndpointListQuery,
  WebhookRetryAccepted,
} from './types.js';
import { TERMINAL_TASK_STATUSES } from './types.js';
import { uploadBlob, type BlobUploadOptions } from './upload.js';

export const SDK_VERSION = '0.1.0';

/** A request body fetch accepts. */
export type RequestBody = NonNullable<RequestInit['body']>;

/** A credential: an account API key or an OAuth access token, or a function giving the current one. */
export type Credential = string | (() => string | undefined | Promise<string | undefined>);

export interface GensvcOptions {
  /** The service address, e.g. `https://api.example.com` (default `http://127.0.0.1:3000`). */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer ...`. Catalogue calls work without one. */
  apiKey?: Credential;
  /**
   * Retries of a failed attempt; default 3 (as the Python client). A 429 and a connection that
   * could not be opened are always retried (nothing took effect); a network error, 408, 425
   * and 5xx only for requests that are safe to repeat.
   */
  maxRetries?: number;
  /** First retry delay in ms, doubled per attempt with jitter up to 8 s (`Retry-After` wins, up to 60 s); default 500. */
  retryDelayMs?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Extra headers on every request (e.g. a `User-Agent` in Node). */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  /** A JSON body. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Send no Authorization header (public routes, signed links, upload-token writes). */
  anonymous?: boolean;
  /**
   * Whether repeating the request is harmless, so it may be retried (GET, HEAD, PUT, DELETE are;
   * a POST is when it carries its idempotency key).
   */
  idempotent?: boolean;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Give up after this long (the task goes on; TimeoutError carries it as last seen); default 10 minutes. */
  timeoutMs?: number;
  /** First delay before following the task again after the connection broke, growing by half up to `maxIntervalMs`; default 500. */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Called with every state that differs from the previous one (status, cancellation, settlement). */
  onUpdate?: (task: Task) => void;
  signal?: AbortSignal;
}

/** A file for `run`: a path (Node only), a Blob or File, bytes, or bytes with a name. */
export type RunFile = string | Blob | Uint8Array | ArrayBuffer | { data: Blob | Uint8Array | ArrayBuffer; name: string; mime?: string };

export interface RunOptions {
  /** Default: the model's capability when it has exactly one. */
  capability?: string;
  /** The quote's `options` object. */
  options?: Record<string, unknown>;
  /** The quote's `currency` (only `CNY`; the default). */
  currency?: QuoteRequest['currency'];
  title?: string;
  /** Refuse (QuoteAboveLimitError, nothing created or reserved) a quote whose max_amount is above this many CNY. */
  maxAmount?: string | number;
  /** Sees the quote before anything is reserved; throw (or reject) to stop. */
  onQuote?: (quote: Quote) => unknown;
  /** Uploaded first (prepare / PUT / complete, resumable); their asset ids are added to `input.asset_ids`. */
  files?: RunFile[];
  /** Called as a file's bytes go out. */
  onUploadProgress?: (file: string, loaded: number, total: number) => void;
  /**
   * The creation's Idempotency-Key (default: a new one). Running again with the same key
   * follows the task that key created (same model and capability) instead of creating another.
   */
  idempotencyKey?: string;
  /** Called with the task once created (or found again under `idempotencyKey`). */
  onCreated?: (task: Task, resumed: boolean) => void;
  /** How long to wait for the result; default 10 minutes (then TimeoutError, the task goes on). */
  timeoutMs?: number;
  onUpdate?: (task: Task) => void;
  signal?: AbortSignal;
}

/** Where `run` finds the Node-only file upload (a variable, so browser bundlers leave it out). */
const NODE_ENTRY = './node.js';

/** A CNY amount in micro-units (for comparing amounts exactly). */
function micros(amount: string | number, what: string): bigint {
  const text = String(amount);
  const m = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text);
  if (!m) throw new TypeError(`${what}: not a CNY amount: ${text}`);
  return BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/** A task that will not change any more: terminal and settled (charged_amount final). */
export const isFinished = (task: Task): boolean => TERMINAL_TASK_STATUSES.includes(task.status) && task.settlement_status !== 'reserved';

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
/** Connection errors raised before any byte of the request left. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
/** 429s of the upload flow that are not rate limits but answers to act on. */
const NOT_RETRIED_CODES = new Set(['UPLOAD_LIMIT_REACHED']);

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A random idempotency key (one per intended operation; reused by every retry of it). */
export function newIdempotencyKey(prefix = 'gensvc-sdk'): string {
  return `${prefix}-${globalThis.crypto.randomUUID()}`;
}

/**
 * The gensvc API client. Works in Node 20+ and browsers (fetch only).
 *
 * ```ts
 * const gensvc = new Gensvc({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.GENSVC_API_KEY });
 * const quote = await gensvc.quotes.create({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } });
 * const task = await gensvc.tasks.wait((await gensvc.tasks.create({ quote_id: quote.quote_id })).id);
 * ```
 */
export class Gensvc {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly maxRetries: number;
  private readonly retryDelayMs: number;

  constructor(private readonly options: GensvcOptions = {}) {
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
    new URL(this.baseUrl); // a clear error now rather than at the first request
    const f = options.fetch ?? globalThis.fetch;
    if (!f) throw new Error('no fetch implementation: pass options.fetch');
    this.fetchImpl = f.bind(globalThis);
    this.maxRetries = options.maxRetries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  /** Sends a request; returns the 2xx response (body unread) or throws the typed error. */
  async fetch(method: string, pathOrUrl: string, options: RequestOptions & { rawBody?: RequestBody; duplex?: boolean } = {}): Promise<Response> {
    const url = new URL(/^https?:\/\//i.test(pathOrUrl) ? pathOrUrl : this.baseUrl + pathOrUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { Accept: 'application/json', ...this.options.headers, ...options.headers };
    if (!options.anonymous) {
      const key = typeof this.options.apiKey === 'function' ? await this.options.apiKey() : this.options.apiKey;
      if (key) headers.Authorization = `Bearer ${key}`;
    }
    let body: RequestBody | undefined = options.rawBody;
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const idempotent = options.idempotent ?? ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(method.toUpperCase());
    // A streamed body cannot be sent twice.
    const retries = typeof ReadableStream !== 'undefined' && body instanceof ReadableStream ? 0 : this.maxRetries;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchImpl(url, { method, headers, body, signal: options.signal, ...(options.duplex ? { duplex: 'half' } : {}) } as RequestInit);
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason ?? err;
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        // A connection that was never opened sent nothing: repeating it cannot double anything.
        if (attempt < retries && (idempotent || NOT_SENT.has(cause?.code ?? ''))) {
          await sleep(this.backoff(attempt), options.signal);
          continue;
        }
        throw new NetworkError(`${method} ${url.origin}${url.pathname}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { cause: err });
      }
      if (res.ok) return res;
      const error = await errorFromResponse(res);
      // A 429 took no effect; other answers only when a repeat is harmless.
      // A Retry-After over 60 s is the caller's to decide on.
      const waitable = error.retryAfter === undefined || error.retryAfter <= 60;
      if (attempt < retries && waitable && (idempotent || res.status === 429) && RETRYABLE_STATUS.has(res.status) && !NOT_RETRIED_CODES.has(error.code)) {
        await sleep(error.retryAfter !== undefined ? error.retryAfter * 1000 : this.backoff(attempt), options.signal);
        continue;
      }
      throw error;
    }
  }

  /** A JSON request; returns the parsed body of the 2xx answer. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.fetch(method, path, options);
    return (await res.json()) as T;
  }

  /** Half to all of the doubled delay (at most 8 s), as the Python client waits. */
  private backoff(attempt: number): number {
    const base = Math.min(8_000, this.retryDelayMs * 2 ** attempt);
    return base / 2 + (Math.random() * base) / 2;
  }

  /** The catalogue (no credential needed). */
  readonly models = {
    list: (query: ModelListQuery = {}, o: { signal?: AbortSignal } = {}) => this.request<ModelList>('GET', '/v1/models', { query, anonymous: true, ...o }),
    get: (id: string, o: { signal?: AbortSignal } = {}) => this.request<Model>('GET', `/v1/models/${enc(id)}`, { anonymous: true, ...o }),
    capabilities: (o: { signal?: AbortSignal } = {}) => this.request<CapabilityList>('GET', '/v1/capabilities', { anonymous: true, ...o }),
    prices: (o: { signal?: AbortSignal } = {}) => this.request<PriceList>('GET', '/v1/prices', { anonymous: true, ...o }),
  };

  readonly quotes = {
    /** Prices a task; reserves nothing (a retry only makes another quote). */
    create: (body: QuoteRequest, o: { signal?: AbortSignal } = {}) => this.request<Quote>('POST', '/v1/quotes', { body, idempotent: true, ...o }),
  };

  readonly tasks = {
    /**
     * Creates a task from a quote (reserves its max_amount). Every retry sends the same
     * Idempotency-Key (given, or generated once here), so a retry never creates a second task.
     */
    create: (body: TaskCreateRequest, o: { idempotencyKey?: string; signal?: AbortSignal } = {}) =>
      this.request<Task>('POST', '/v1/tasks', {
        body,
        headers: { 'Idempotency-Key': o.idempotencyKey ?? newIdempotencyKey() },
        idempotent: true,
        signal: o.signal,
      }),
    /** The task; with `wait` (1 to 60 seconds, `Prefer: wait`), once it is finished or after that long. */
    get: (id: string, o: { signal?: AbortSignal; wait?: number } = {}) =>
      this.request<Task>('GET', `/v1/tasks/${enc(id)}`, { signal: o.signal, ...(o.wait ? { headers: { Prefer: `wait=${o.wait}` } } : {}) }),
    list: (query: TaskListQuery = {}, o: { signal?: AbortSignal } = {}) => this.request<Page<Task>>('GET', '/v1/tasks', { query, ...o }),
    /**
     * The task's states from its event stream (GET /v1/tasks/{id}/events): now and at every
     * change, ending after the finished one. One connection; `lastEventId` skips the states up
     * to that one (each yielded state carries its id as `eventId`).
     */
    events: (id: string, o: { lastEventId?: string; signal?: AbortSignal } = {}) => this.taskEvents(id, o),
    /** Every task matching `query`, page after page. */
    iterate: (query: TaskListQuery = {}, o: { signal?: AbortSignal } = {}) => this.iterate<Task, TaskListQuery>((q) => this.tasks.list(q, o), query),
    /** Asks to cancel (repeating is harmless). */
    cancel: (id: string, o: { signal?: AbortSignal } = {}) => this.request<CancelResult>('POST', `/v1/tasks/${enc(id)}/cancel`, { body: {}, idempotent: true, ...o }),
    /** Follows the task's event stream (reconnecting as needed) until it is succeeded, failed or canceled, and settled. */
    wait: (id: string, o: WaitOptions = {}) => this.waitForTask(id, o),
  };

  readonly wallet = {
    get: (o: { signal?: AbortSignal } = {}) => this.request<Wallet>('GET', '/v1/wallet', o),
  };

  readonly billing = {
    list: (query: BillingListQuery = {}, o: { signal?: AbortSignal } = {}) => this.request<Page<Bill>>('GET', '/v1/billing', { query, ...o }),
    iterate: (query: BillingListQuery = {}, o: { signal?: AbortSignal } = {}) => this.iterate<Bill, BillingListQuery>((q) => this.billing.list(q, o), query),
  };

  readonly uploads = {
    /** Announces a file (idempotent under `idempotency_key`: a retry returns the same upload). */
    prepare: (body: UploadPrepareRequest, o: { signal?: AbortSignal } = {}) => this.request<Upload>('POST', '/v1/uploads/prepare', { body, idempotent: true, ...o }),
    get: (id: string, o: { signal?: AbortSignal } = {}) => this.request<Upload>('GET', `/v1/uploads/${enc(id)}`, o),
    complete: (id: string, o: { signal?: AbortSignal } = {}) => this.request<Upload>('POST', `/v1/uploads/${enc(id)}/complete`, { body: {}, idempotent: true, ...o }),
    /** Imports a public HTTPS file by URL. */
    import: (body: UploadImportRequest, o: { signal?: AbortSignal } = {}) => this.request<Upload>('POST', '/v1/uploads/import', { body, ...o }),
    /**
     * Uploads a Blob / File / bytes: size, real MIME and SHA-256 first, then prepare, PUT (with
     * progress), complete. The idempotency key is derived from the content, so calling it again
     * for the same file resumes the same upload.
     */
    upload: (data: Blob | Uint8Array | ArrayBuffer, o: BlobUploadOptions) => uploadBlob(this, data, o),
  };

  readonly assets = {
    /** The caller's assets, newest first (`q`: part of the name), each with fresh links. */
    list: (query: AssetListQuery = {}, o: { signal?: AbortSignal } = {}) => this.request<Page<AssetListItem>>('GET', '/v1/assets', { query, ...o }),
    iterate: (query: AssetListQuery = {}, o: { signal?: AbortSignal } = {}) => this.iterate<AssetListItem, AssetListQuery>((q) => this.assets.list(q, o), query),
    get: (id: string, o: { signal?: AbortSignal } = {}) => this.request<Asset>('GET', `/v1/assets/${enc(id)}`, o),
    delete: (id: string, o: { signal?: AbortSignal } = {}) => this.request<AssetDeleted>('DELETE', `/v1/assets/${enc(id)}`, o),
  };

  readonly voices = {
    list: (query: VoiceListQuery = {}, o: { signal?: AbortSignal } = {}) => this.request<Page<Voice>>('GET', '/v1/voices', { query, ...o }),
    iterate: (query: VoiceListQuery = {}, o: { signal?: AbortSignal } = {}) => this.iterate<Voice, VoiceListQuery>((q) => this.voices.list(q, o), query),
    get: (id: string, o: { signal?: AbortSignal } = {}) => this.request<Voice>('GET', `/v1/voices/${enc(id)}`, o),
    delete: (id: string, o: { signal?: AbortSignal } = {}) => this.request<Voice>('DELETE', `/v1/voices/${enc(id)}`, o),
  };

  /**
   * Webhook endpoints (result notifications) and their deliveries. The signing `secret` is in
   * the answers of `create` and `rotateSecret` only. Neither is repeated after a lost answer
   * (a second create makes a second endpoint, a second rotation another secret).
   */
  readonly webhookEndpoints = {
    create: (body: WebhookEndpointCreateRequest, o: { signal?: AbortSignal } = {}) => this.request<WebhookEndpoint>('POST', '/v1/webhook-endpoints', { body, ...o }),
    list: (query: WebhookEndpointListQuery = {}, o: { signal?: AbortSignal } = {}) => this.request<Page<WebhookEndpoint>>('GET', '/v1/webhook-endpoints', { query, ...o }),
    iterate: (query: WebhookEndpointListQuery = {}, o: { signal?: AbortSignal } = {}) =>
      this.iterate<WebhookEndpoint, WebhookEndpointListQuery>((q) => this.webhookEndpoints.list(q, o), query),
    get: (id: string, o: { signal?: AbortSignal } = {}) => this.request<WebhookEndpoint>('GET', `/v1/webhook-endpoints/${enc(id)}`, o),
    /** Deletes the endpoint; nothing is sent to it afterwards. */
    delete: (id: string, o: { signal?: AbortSignal } = {}) => this.request<WebhookEndpointDeleted>('DELETE', `/v1/webhook-endpoints/${enc(id)}`, o),
    /** A new signing secret (in the answer); the previous one keeps signing beside it for 24 hours. */
    rotateSecret: (id: string, o: { signal?: AbortSignal } = {}) => this.request<WebhookEndpoint>('POST', `/v1/webhook-endpoints/${enc(id)}/rotate-secret`, { body: {}, ...o }),
    /** The endpoint's deliveries, newest first, each with its attempts. */
    deliveries: (id: string, query: WebhookDeliveryListQuery = {}, o: { signal?: AbortSignal } = {}) =>
      this.request<Page<WebhookDelivery>>('GET', `/v1/webhook-endpoints/${enc(id)}/deliveries`, { query, ...o }),
    iterateDeliveries: (id: string, query: WebhookDeliveryListQuery = {}, o: { signal?: AbortSignal } = {}) =>
      this.iterate<WebhookDelivery, WebhookDeliveryListQuery>((q) => this.webhookEndpoints.deliveries(id, q, o), query),
    /** Sends a delivery again (the same message, the same webhook-id); repeating is harmless. */
    retryDelivery: (id: string, deliveryId: string, o: { signal?: AbortSignal } = {}) =>
      this.request<WebhookRetryAccepted>('POST', `/v1/webhook-endpoints/${enc(id)}/deliveries/${enc(deliveryId)}/retry`, { body: {}, idempotent: true, ...o }),
  };

  /** Items of every page from `query.page` (default 1) on, fetching a page only when needed. */
  async *iterate<T, Q extends { page?: number }>(list: (query: Q) => Promise<Page<T>>, query: Q): AsyncGenerator<T, void, undefined> {
    let page = query.page ?? 1;
    for (;;) {
      const result = await list({ ...query, page });
      yield* result.data;
      if (!result.has_more || result.data.length === 0) return;
      page++;
    }
  }

  private async *taskEvents(id: string, o: { lastEventId?: string; signal?: AbortSignal }): AsyncGenerator<Task & { eventId?: string }, void, undefined> {
    const res = await this.fetch('GET', `/v1/tasks/${enc(id)}/events`, {
      headers: { Accept: 'text/event-stream', ...(o.lastEventId !== undefined ? { 'Last-Event-ID': o.lastEventId } : {}) },
      signal: o.signal,
    });
    if (res.status === 204 || !res.body) return; // the caller holds the finished state already
    for await (const e of readEvents(res.body as ReadableStream<Uint8Array>)) {
      if (e.event !== 'task') continue;
      yield { ...(JSON.parse(e.data) as Task), ...(e.id !== undefined ? { eventId: e.id } : {}) };
    }
  }

  /**
   * Follows the task's event stream until it is finished: no polling. A broken connection is
   * followed again from the last state seen (Last-Event-ID) after a short, growing delay.
   */
  private async waitForTask(id: string, o: WaitOptions): Promise<Task> {
    const timeoutMs = o.timeoutMs ?? 600_000;
    const maxInterval = o.maxIntervalMs ?? 5_000;
    let interval = o.intervalMs ?? 500;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline;
    let last: Task | undefined;
    let lastEventId: string | undefined;
    let fingerprint = '';
    const seen = (task: Task) => {
      last = task;
      const f = `${task.status}/${task.cancellation?.status ?? ''}/${task.settlement_status}`;
      if (f !== fingerprint) {
        fingerprint = f;
        o.onUpdate?.(task);
      }
    };
    for (;;) {
      try {
        for await (const { eventId, ...task } of this.taskEvents(id, { lastEventId, signal })) {
          lastEventId = eventId ?? lastEventId;
          seen(task as Task);
          if (isFinished(task as Task)) return task as Task;
        }
        // The stream ended without the finished state (a 204 for what we hold, or the server went away).
        const now = await this.tasks.get(id, { signal });
        seen(now);
        if (isFinished(now)) return now;
      } catch (err) {
        if (o.signal?.aborted) throw o.signal.reason ?? err;
        if (deadline.aborted) throw new TimeoutError(`task ${id} is ${last ? `still ${last.status}` : 'not finished'} after ${Math.round(timeoutMs / 1000)} s`, last);
        if (err instanceof ApiError && err.status < 500 && err.status !== 408 && err.status !== 429) throw err;
      }
      try {
        await sleep(interval, signal);
      } catch (err) {
        if (o.signal?.aborted) throw o.signal.reason ?? err;
        throw new TimeoutError(`task ${id} is ${last ? `still ${last.status}` : 'not finished'} after ${Math.round(timeoutMs / 1000)} s`, last);
      }
      interval = Math.min(maxInterval, Math.round(interval * 1.5));
    }
  }

  /**
   * The whole flow in one call: uploads `files` (their asset ids join `input.asset_ids`),
   * quotes (the capability defaults to the model's only one), lets `onQuote` see the amounts,
   * refuses a quote above `maxAmount`, creates the task under one Idempotency-Key (running
   * again with that key follows the task it created), follows the task's event stream and
   * returns the succeeded, settled task. A failed or canceled task throws TaskFailedError /
   * TaskCanceledError (nothing is charged then); one still going after `timeoutMs` throws
   * TimeoutError (the task goes on: `tasks.wait(err.task.id)`).
   */
  async run(model: string, input: Record<string, unknown> = {}, o: RunOptions = {}): Promise<Task> {
    const limit = o.maxAmount === undefined ? undefined : micros(o.maxAmount, 'maxAmount');
    const capability = o.capability ?? (await this.onlyCapability(model, o.signal));
    const assetIds = Array.isArray(input.asset_ids) ? [...(input.asset_ids as string[])] : [];
    for (const [i, file] of (o.files ?? []).entries()) assetIds.push(await this.uploadRunFile(file, i + 1, o));
    const body = {
      model,
      capability,
      input: { ...input, ...(assetIds.length ? { asset_ids: assetIds } : {}) },
      ...(o.options ? { options: o.options } : {}),
      ...(o.currency ? { currency: o.currency } : {}),
    };
    const quote = await this.quotes.create(body as QuoteRequest, { signal: o.signal });
    await o.onQuote?.(quote);
    if (limit !== undefined && micros(quote.max_amount, 'max_amount') > limit) throw new QuoteAboveLimitError(quote, String(o.maxAmount));
    const key = o.idempotencyKey ?? newIdempotencyKey('gensvc-run');
    let task: Task;
    let resumed = false;
    try {
      task = await this.tasks.create({ quote_id: quote.quote_id, ...(o.title !== undefined ? { title: o.title } : {}) }, { idempotencyKey: key, signal: o.signal });
    } catch (err) {
      task = await this.taskOfKey(err, model, capability, o.signal);
      resumed = true;
    }
    o.onCreated?.(task, resumed);
    const done = isFinished(task) ? task : await this.tasks.wait(task.id, { timeoutMs: o.timeoutMs, onUpdate: o.onUpdate, signal: o.signal });
    if (done.status === 'failed') throw new TaskFailedError(done);
    if (done.status === 'canceled') throw new TaskCanceledError(done);
    return done;
  }

  /** The model's capability when it has exactly one (otherwise the caller must choose). */
  private async onlyCapability(model: string, signal?: AbortSignal): Promise<string> {
    const m = await this.models.get(model, { signal });
    if (m.capabilities.length === 1) return m.capabilities[0];
    throw new TypeError(`model ${model} has the capabilities ${m.capabilities.join(', ')}: pass capability`);
  }

  /**
   * The task a key created, from a refusal of the creation: 409 IDEMPOTENCY_CONFLICT names it
   * in `Location`. Only a task of the same model and capability is followed (the key was
   * meant for it); anything else is thrown as it came.
   */
  private async taskOfKey(err: unknown, model: string, capability: string, signal?: AbortSignal): Promise<Task> {
    const location = err instanceof ApiError && err.code === 'IDEMPOTENCY_CONFLICT' ? err.headers?.get('location') : null;
    const id = location ? /\/v1\/tasks\/([^/?#]+)$/.exec(location)?.[1] : undefined;
    if (!id) throw err;
    const task = await this.tasks.get(decodeURIComponent(id), { signal });
    if (task.model !== model || task.capability !== capability) throw err;
    return task;
  }

  private async uploadRunFile(file: RunFile, n: number, o: RunOptions): Promise<string> {
    let done: Upload;
    if (typeof file === 'string') {
      const node = (await import(/* @vite-ignore */ NODE_ENTRY)) as typeof import('./node.js');
      done = await node.uploadFile(this, file, { signal: o.signal, onProgress: o.onUploadProgress && ((p) => o.onUploadProgress?.(file, p.loaded, p.total)) });
    } else {
      const named = typeof file === 'object' && 'data' in file && 'name' in file ? file : undefined;
      const data = named ? named.data : (file as Blob | Uint8Array | ArrayBuffer);
      const name = named?.name ?? (typeof File !== 'undefined' && data instanceof File ? data.name : `file-${n}`);
      done = await this.uploads.upload(data, { name, mime: named?.mime, signal: o.signal, onProgress: o.onUploadProgress && ((p) => o.onUploadProgress?.(name, p.loaded, p.total)) });
    }
    if (!done.asset_id) throw new Error(`the upload of file ${n} gave no asset`);
    return done.asset_id;
  }
}

const enc = encodeURIComponent;

