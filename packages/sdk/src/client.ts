import { NetworkError, TimeoutError, errorFromResponse, type ApiError } from './errors.js';
import type {
  Asset,
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
  /** Retries of a failed attempt (network error, 429, 5xx) for requests that are safe to repeat; default 2. */
  maxRetries?: number;
  /** First retry delay in ms (doubled per attempt, with jitter; `Retry-After` wins); default 250. */
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
  /** Give up after this long (the task goes on); default 10 minutes. */
  timeoutMs?: number;
  /** First poll interval, growing by half each poll up to `maxIntervalMs`; default 500. */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Called with every task read that differs from the previous one (status, cancellation). */
  onUpdate?: (task: Task) => void;
  signal?: AbortSignal;
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
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
    this.maxRetries = options.maxRetries ?? 2;
    this.retryDelayMs = options.retryDelayMs ?? 250;
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
    const retries = idempotent && !(typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) ? this.maxRetries : 0;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchImpl(url, { method, headers, body, signal: options.signal, ...(options.duplex ? { duplex: 'half' } : {}) } as RequestInit);
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason ?? err;
        if (attempt < retries) {
          await sleep(this.backoff(attempt), options.signal);
          continue;
        }
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new NetworkError(`${method} ${url.origin}${url.pathname}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { cause: err });
      }
      if (res.ok) return res;
      const error = await errorFromResponse(res);
      if (attempt < retries && RETRYABLE_STATUS.has(res.status) && !NOT_RETRIED_CODES.has(error.code)) {
        await sleep(error.retryAfter !== undefined ? Math.min(error.retryAfter, 60) * 1000 : this.backoff(attempt), options.signal);
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

  private backoff(attempt: number): number {
    const base = this.retryDelayMs * 2 ** attempt;
    return Math.min(10_000, base / 2 + Math.random() * base);
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
    get: (id: string, o: { signal?: AbortSignal } = {}) => this.request<Task>('GET', `/v1/tasks/${enc(id)}`, o),
    list: (query: TaskListQuery = {}, o: { signal?: AbortSignal } = {}) => this.request<Page<Task>>('GET', '/v1/tasks', { query, ...o }),
    /** Every task matching `query`, page after page. */
    iterate: (query: TaskListQuery = {}, o: { signal?: AbortSignal } = {}) => this.iterate<Task, TaskListQuery>((q) => this.tasks.list(q, o), query),
    /** Asks to cancel (repeating is harmless). */
    cancel: (id: string, o: { signal?: AbortSignal } = {}) => this.request<CancelResult>('POST', `/v1/tasks/${enc(id)}/cancel`, { body: {}, idempotent: true, ...o }),
    /** Polls the task with backoff until it is succeeded, failed or canceled. */
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

  private async waitForTask(id: string, o: WaitOptions): Promise<Task> {
    const timeoutMs = o.timeoutMs ?? 600_000;
    const maxInterval = o.maxIntervalMs ?? 5_000;
    let interval = o.intervalMs ?? 500;
    const started = Date.now();
    let last = '';
    for (;;) {
      const task = await this.tasks.get(id, { signal: o.signal });
      const fingerprint = `${task.status}/${task.cancellation?.status ?? ''}/${task.settlement_status}`;
      if (fingerprint !== last) {
        last = fingerprint;
        o.onUpdate?.(task);
      }
      // A finished task is returned once it is settled too, so its charged amount is final.
      if (TERMINAL_TASK_STATUSES.includes(task.status) && task.settlement_status !== 'reserved') return task;
      const left = timeoutMs - (Date.now() - started);
      if (left <= 0) throw new TimeoutError(`task ${id} is still ${task.status} after ${Math.round(timeoutMs / 1000)} s`);
      await sleep(Math.min(interval, left), o.signal);
      interval = Math.min(maxInterval, Math.round(interval * 1.5));
    }
  }
}

const enc = encodeURIComponent;

export type { ApiError };
