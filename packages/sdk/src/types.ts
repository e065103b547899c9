import type { components, operations } from './generated/openapi.js';

type Schemas = components['schemas'];

export type Model = Schemas['Model'];
export type ModelSummary = Schemas['ModelSummary'];
export type ModelList = Schemas['ModelList'];
export type CapabilityList = Schemas['CapabilityList'];
export type Price = Schemas['Price'];
export type PriceList = Schemas['PriceList'];
export type QuoteRequest = Schemas['QuoteRequest'];
export type Quote = Schemas['Quote'];
export type TaskCreateRequest = Schemas['TaskCreateRequest'];
export type Task = Schemas['Task'];
export type TaskStatus = Task['status'];
export type TaskList = Schemas['TaskList'];
export type CancelResult = Schemas['CancelResult'];
export type Bill = Schemas['Bill'];
export type BillList = Schemas['BillList'];
export type Wallet = Schemas['Wallet'];
export type Upload = Schemas['Upload'];
export type UploadPrepareRequest = Schemas['UploadPrepareRequest'];
export type UploadImportRequest = Schemas['UploadImportRequest'];
export type Asset = Schemas['Asset'];
/** An item of `GET /v1/assets`: the asset with its `source` and `task_id`. */
export type AssetListItem = operations['assets.list']['responses'][200]['content']['application/json']['data'][number];
export type AssetDeleted = Schemas['AssetDeleted'];
export type Voice = Schemas['Voice'];
export type VoiceList = Schemas['VoiceList'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointList = Schemas['WebhookEndpointList'];
export type WebhookEndpointDeleted = Schemas['WebhookEndpointDeleted'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryList = Schemas['WebhookDeliveryList'];
export type WebhookRetryAccepted = Schemas['WebhookRetryAccepted'];
/** An event type a message can have (`task.succeeded`, ...). */
export type WebhookEventType = WebhookDelivery['event_type'];
/** The body of `POST /v1/webhook-endpoints`: `events` is event types, or `["*"]` for all. */
export type WebhookEndpointCreateRequest = Pick<WebhookEndpoint, 'url' | 'events'> & Pick<Schemas['CreateWebhookEndpointDto'], 'description'>;

type Query<Op extends keyof operations> = operations[Op]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;

export type ModelListQuery = Query<'catalogue.models.list'>;
export type TaskListQuery = Query<'tasks.list'>;
export type AssetListQuery = Query<'assets.list'>;
export type BillingListQuery = Query<'billing.list'>;
export type VoiceListQuery = Query<'voices.list'>;
export type WebhookEndpointListQuery = Query<'webhooks.endpoints.list'>;
export type WebhookDeliveryListQuery = Query<'webhooks.deliveries.list'>;

/** A page of a list: `{data, page, limit, has_more}`. */
export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  has_more: boolean;
}

export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['succeeded', 'failed', 'canceled'];
