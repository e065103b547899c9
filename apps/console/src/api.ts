/**
 * The console's calls to the public API, all through the TypeScript SDK (`@gensvc/sdk`): its
 * client sends the signed-in user's access token, retries what is safe to repeat, and turns
 * every failure into an ApiError with the API's own code, message and request id, which the
 * pages show as given. Types are the SDK's, generated from the served OpenAPI document.
 */
import { Gensvc, type BillingListQuery, type components, type Page, type TaskListQuery, type VoiceListQuery, type WebhookEndpointCreateRequest, type WebhookEventType } from '@gensvc/sdk';
import { accessToken, refreshTokens, startSignIn } from './auth';

export { ApiError, NetworkError } from '@gensvc/sdk';
export type { Asset, Bill, CancelResult, Model, ModelSummary, Page, Price, Quote, Task, Upload, Voice, Wallet, WebhookDelivery, WebhookEndpoint, WebhookEventType } from '@gensvc/sdk';

type Schemas = components['schemas'];
export type AssetListItem = Schemas['AssetListItem'];
export type ApiKey = Schemas['ApiKey'] & { api_key?: string };

export const WEBHOOK_EVENT_TYPES = ['task.created', 'task.running', 'task.succeeded', 'task.failed', 'task.canceled', 'upload.completed', 'asset.deleted', 'voice.deleted'] as const satisfies readonly WebhookEventType[];

export type Query = Record<string, string | number | undefined | null>;

/**
 * fetch for the SDK: never from the HTTP cache, and a request refused with 401 is sent once
 * more after refreshing the tokens; when that fails too, the user signs in again.
 */
async function consoleFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const send = (headers: HeadersInit | undefined) => fetch(input, { ...init, headers, cache: 'no-store' });
  let res = await send(init.headers);
  const headers = new Headers(init.headers);
  if (res.status !== 401 || !headers.has('Authorization')) return res;
  const fresh = await refreshTokens();
  if (fresh) {
    headers.set('Authorization', `Bearer ${fresh}`);
    res = await send(headers);
  }
  if (res.status === 401) void startSignIn(location.pathname + location.search);
  return res;
}

/** The SDK client of the service this page came from, with the signed-in user's token. */
export const gensvc = new Gensvc({
  baseUrl: location.origin,
  apiKey: async () => (await accessToken()) ?? undefined,
  fetch: consoleFetch,
});

const enc = encodeURIComponent;

let paths: Promise<Set<string>> | null = null;
/** Whether this server offers a path (from its OpenAPI document), so pages do not call routes it lacks. */
export function offers(path: string): Promise<boolean> {
  paths ??= gensvc
    .request<{ paths?: Record<string, unknown> }>('GET', '/v1/openapi.json', { anonymous: true })
    .then((doc) => new Set(Object.keys(doc.paths ?? {})))
    .catch(() => new Set<string>());
  return paths.then((p) => p.has(path));
}

export const api = {
  wallet: () => gensvc.wallet.get(),
  models: () => gensvc.models.list(),
  model: (id: string) => gensvc.models.get(id),
  prices: () => gensvc.models.prices(),
  quote: (body: Schemas['QuoteRequest']) => gensvc.quotes.create(body),
  createTask: (quoteId: string, title: string | undefined, idempotencyKey: string) =>
    gensvc.tasks.create(title ? { quote_id: quoteId, title } : { quote_id: quoteId }, { idempotencyKey }),
  tasks: (q: Query) => gensvc.tasks.list(q as TaskListQuery),
  task: (id: string) => gensvc.tasks.get(id),
  cancelTask: (id: string) => gensvc.tasks.cancel(id),
  billing: (q: Query) => gensvc.billing.list(q as BillingListQuery),
  assets: (q: Query) => gensvc.request<Page<AssetListItem>>('GET', '/v1/assets', { query: q }),
  asset: (id: string) => gensvc.assets.get(id),
  deleteAsset: (id: string) => gensvc.assets.delete(id),
  voices: (q: Query = {}) => gensvc.voices.list(q as VoiceListQuery),
  voice: (id: string) => gensvc.voices.get(id),
  deleteVoice: (id: string) => gensvc.voices.delete(id),
  webhookEndpoints: () => gensvc.webhookEndpoints.list(),
  createWebhookEndpoint: (body: WebhookEndpointCreateRequest) => gensvc.webhookEndpoints.create(body),
  deleteWebhookEndpoint: (id: string) => gensvc.webhookEndpoints.delete(id),
  rotateWebhookSecret: (id: string) => gensvc.webhookEndpoints.rotateSecret(id),
  webhookDeliveries: (id: string) => gensvc.webhookEndpoints.deliveries(id),
  retryDelivery: (id: string, deliveryId: string) => gensvc.webhookEndpoints.retryDelivery(id, deliveryId),
  apiKeys: () => gensvc.request<Page<ApiKey>>('GET', '/v1/api-keys', { query: { limit: 100 } }),
  createApiKey: () => gensvc.request<ApiKey>('POST', '/v1/api-keys', { body: {} }),
  revokeApiKey: (id: string) => gensvc.request<ApiKey>('DELETE', `/v1/api-keys/${enc(id)}`),
};
