/**
 * A thin typed layer over the public HTTP API (same origin). Every failure becomes an
 * ApiError with the API's own code, message and request id, so pages can show them as given.
 */
import { accessToken, refreshTokens, startSignIn } from './auth';
import type { JsonSchema } from './schema-form';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  has_more: boolean;
}

export interface Wallet {
  currency: 'CNY';
  balance: string;
  reserved: string;
  available: string;
}

export interface Price {
  model: string;
  capability: string;
  unit: string;
  unit_price: string;
  currency: string;
  pricing_mode: string;
  price_version: string;
  [k: string]: unknown;
}

export interface Model {
  id: string;
  name: string;
  modality: string;
  capabilities: string[];
  available: boolean;
  input_schema?: JsonSchema;
  prices?: Price[];
  description?: string;
}

export interface Quote {
  quote_id: string;
  model: string;
  resolved_model: string;
  currency: string;
  pricing_mode: string;
  price_version: string;
  estimated_amount: string;
  max_amount: string;
  quantity: number;
  unit: string;
  unit_price: string;
  expires_at: string;
}

export interface Cancellation {
  status: string;
  requested_at: string | null;
  error_code: string | null;
}

export interface Task {
  id: string;
  status: string;
  model: string;
  resolved_model: string;
  capability: string;
  modality: string;
  title: string | null;
  quote_id: string;
  price_version: string;
  currency: string;
  max_amount: string;
  charged_amount: string | null;
  settlement_status: string;
  cancellation: Cancellation;
  output: { asset_ids?: string[]; voice_id?: string; text?: string } | null;
  error: { code: string; message: string } | null;
  connection_id?: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface CancelResult {
  task_id: string;
  status: string;
  cancellation: Cancellation;
}

export interface Bill {
  id: string;
  task_id: string;
  model: string;
  modality: string;
  currency: string;
  max_amount: string;
  charged_amount: string | null;
  released_amount: string | null;
  settlement_status: string;
  created_at: string;
  settled_at: string | null;
}

export interface Asset {
  id: string;
  name: string;
  mime: string;
  size: number;
  checksum: string;
  created_at: string;
  url: string;
  download_url: string;
  download_name: string;
  links_expire_at: string;
  source?: string;
  task_id?: string | null;
}

export interface Upload {
  upload_id: string;
  status: 'prepared' | 'uploading' | 'uploaded' | 'completed' | 'expired';
  name: string;
  mime: string;
  size: number;
  checksum: string;
  expires_at: string;
  asset_id: string | null;
  error_code: string | null;
  upload?: { url: string; method: 'PUT'; headers: Record<string, string> };
}

export interface Voice {
  id: string;
  name?: string;
  status?: string;
  created_at?: string;
  deletion?: { status: string; requested_at: string | null; completed_at: string | null };
  [k: string]: unknown;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  created_at: string;
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  message_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'retrying' | 'failed';
  attempts: { at: string; status_code: number | null; duration_ms: number | null; error: string | null }[];
  next_attempt_at: string | null;
  created_at: string;
}

export interface ApiKey {
  id: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
  api_key?: string;
}

export const WEBHOOK_EVENT_TYPES = ['task.created', 'task.running', 'task.succeeded', 'task.failed', 'task.canceled', 'upload.completed', 'asset.deleted', 'voice.deleted'] as const;

export type Query = Record<string, string | number | undefined | null>;

function queryString(q?: Query): string {
  if (!q) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

async function errorOf(res: Response): Promise<ApiError> {
  const requestId = res.headers.get('X-Request-Id');
  const retry = Number(res.headers.get('Retry-After'));
  const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string; request_id?: string } } | null;
  if (body?.error?.code) return new ApiError(res.status, body.error.code, body.error.message ?? res.statusText, body.error.request_id ?? requestId, Number.isFinite(retry) && retry > 0 ? retry : null);
  return new ApiError(res.status, `HTTP_${res.status}`, res.statusText || 'The request failed.', requestId);
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** One API call with the signed-in user's token; a refused token is refreshed once, then the user signs in again. */
export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const send = async (token: string | null) => {
    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    try {
      return await fetch(`${path}${queryString(opts.query)}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: opts.signal,
        cache: 'no-store',
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 'NETWORK_ERROR', 'The service cannot be reached. Check the connection and try again.', null);
    }
  };
  let res = await send(await accessToken());
  if (res.status === 401) {
    const fresh = await refreshTokens();
    if (fresh) res = await send(fresh);
    if (res.status === 401) {
      void startSignIn(location.pathname + location.search);
      throw await errorOf(res);
    }
  }
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

const enc = encodeURIComponent;

let paths: Promise<Set<string>> | null = null;
/** Whether this server offers a path (from its OpenAPI document), so pages do not call routes it lacks. */
export function offers(path: string): Promise<boolean> {
  paths ??= fetch('/v1/openapi.json', { headers: { Accept: 'application/json' } })
    .then((r) => (r.ok ? r.json() : { paths: {} }))
    .then((doc: { paths?: Record<string, unknown> }) => new Set(Object.keys(doc.paths ?? {})))
    .catch(() => new Set<string>());
  return paths.then((p) => p.has(path));
}

export const api = {
  wallet: () => request<Wallet>('GET', '/v1/wallet'),
  models: () => request<{ data: Model[] }>('GET', '/v1/models'),
  model: (id: string) => request<Model>('GET', `/v1/models/${enc(id)}`),
  prices: () => request<{ data: Price[] }>('GET', '/v1/prices'),
  quote: (body: { model: string; capability: string; input: Record<string, unknown>; options?: Record<string, unknown> }) => request<Quote>('POST', '/v1/quotes', { body }),
  createTask: (quoteId: string, title: string | undefined, idempotencyKey: string) =>
    request<Task>('POST', '/v1/tasks', { body: title ? { quote_id: quoteId, title } : { quote_id: quoteId }, headers: { 'Idempotency-Key': idempotencyKey } }),
  tasks: (q: Query) => request<Page<Task>>('GET', '/v1/tasks', { query: q }),
  task: (id: string) => request<Task>('GET', `/v1/tasks/${enc(id)}`),
  cancelTask: (id: string) => request<CancelResult>('POST', `/v1/tasks/${enc(id)}/cancel`, { body: {} }),
  billing: (q: Query) => request<Page<Bill>>('GET', '/v1/billing', { query: q }),
  assets: (q: Query) => request<Page<Asset>>('GET', '/v1/assets', { query: q }),
  asset: (id: string) => request<Asset>('GET', `/v1/assets/${enc(id)}`),
  deleteAsset: (id: string) => request<{ id: string; deleted: true; deleted_at: string }>('DELETE', `/v1/assets/${enc(id)}`),
  prepareUpload: (body: { name: string; mime: string; size: number; checksum: string; idempotency_key: string }) => request<Upload>('POST', '/v1/uploads/prepare', { body }),
  upload: (id: string) => request<Upload>('GET', `/v1/uploads/${enc(id)}`),
  completeUpload: (id: string) => request<Upload>('POST', `/v1/uploads/${enc(id)}/complete`, { body: {} }),
  voices: (q: Query = {}) => request<Page<Voice>>('GET', '/v1/voices', { query: q }),
  voice: (id: string) => request<Voice>('GET', `/v1/voices/${enc(id)}`),
  deleteVoice: (id: string) => request<Voice>('DELETE', `/v1/voices/${enc(id)}`),
  webhookEndpoints: () => request<Page<WebhookEndpoint>>('GET', '/v1/webhook-endpoints'),
  createWebhookEndpoint: (body: { url: string; events: string[]; description?: string }) => request<WebhookEndpoint>('POST', '/v1/webhook-endpoints', { body }),
  deleteWebhookEndpoint: (id: string) => request<{ id: string; deleted: true }>('DELETE', `/v1/webhook-endpoints/${enc(id)}`),
  rotateWebhookSecret: (id: string) => request<WebhookEndpoint>('POST', `/v1/webhook-endpoints/${enc(id)}/rotate-secret`, { body: {} }),
  webhookDeliveries: (id: string) => request<Page<WebhookDelivery>>('GET', `/v1/webhook-endpoints/${enc(id)}/deliveries`),
  retryDelivery: (id: string, deliveryId: string) => request<unknown>('POST', `/v1/webhook-endpoints/${enc(id)}/deliveries/${enc(deliveryId)}/retry`, { body: {} }),
  apiKeys: () => request<Page<ApiKey>>('GET', '/v1/api-keys', { query: { limit: 100 } }),
  createApiKey: () => request<ApiKey>('POST', '/v1/api-keys', { body: {} }),
  revokeApiKey: (id: string) => request<ApiKey>('DELETE', `/v1/api-keys/${enc(id)}`),
};

/** PUT of the raw bytes to the upload URL with its headers; reports progress (0..1). */
export function putContent(upload: NonNullable<Upload['upload']>, file: Blob, mime: string, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<Upload> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', upload.url);
    for (const [k, v] of Object.entries(upload.headers)) xhr.setRequestHeader(k, v);
    if (!Object.keys(upload.headers).some((k) => k.toLowerCase() === 'content-type')) xhr.setRequestHeader('Content-Type', mime);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: { error?: { code?: string; message?: string; request_id?: string } } | Upload | null = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      const requestId = xhr.getResponseHeader('X-Request-Id');
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(body as Upload);
      } else {
        const e = (body as { error?: { code?: string; message?: string; request_id?: string } } | null)?.error;
        reject(new ApiError(xhr.status, e?.code ?? `HTTP_${xhr.status}`, e?.message ?? 'The upload failed.', e?.request_id ?? requestId));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK_ERROR', 'The connection broke during the upload. Retry to send the file again.', null));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(file);
  });
}
