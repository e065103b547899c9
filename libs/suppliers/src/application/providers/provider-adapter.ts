/**
 * A provider adapter is a translation, not a framework (docs/channels.md): pure functions
 * from one job on one route to the provider's HTTP requests, and from the provider's
 * answers (status bodies, webhooks, errors) back to what the job should record. It never
 * sends anything itself: the provider channel (`provider-channel.ts`) sends every request
 * (authentication, timeouts, the channel's request budget, retries with `Retry-After`,
 * failover between routes), archives output files and records the job's events, once for
 * every provider.
 *
 * Everything an adapter returns is data; everything it reads is the provider's documented
 * answer. Unknown or malformed answers throw `ProviderProtocolError` (never pass a
 * provider's message on to an account: the channel logs it and fails the job with a code).
 */

export type ProviderType = 'replicate' | 'fal' | 'openai' | 'dashscope' | 'ark';

/** One HTTP request to the provider, as data. */
export interface ProviderRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /**
   * A path starting with `/`, appended to the channel's `base_url` (which may carry a path
   * of its own, e.g. `https://api.openai.com/v1`), or an absolute `https://` URL the
   * provider itself handed out (fal's `status_url`); an absolute URL is sent only when its
   * origin is the base URL's or one of the channel's `output_hosts`.
   */
  readonly url: string;
  /** Sent as JSON (`Content-Type: application/json`). */
  readonly body?: unknown;
  /** Headers besides authentication, `Accept` and `Content-Type` (e.g. `X-DashScope-Async`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The provider's answer to a `ProviderRequest`, as the channel received it. */
export interface ProviderAnswer {
  readonly status: number;
  /** Header lookup, case-insensitive (a `Headers` object fits). */
  readonly headers: { get(name: string): string | null };
  /** The body parsed as JSON, or null when it was empty or not JSON. */
  readonly json: unknown;
  /** The body's bytes as received (OpenAI's speech endpoint answers with audio, not JSON). */
  readonly raw?: Buffer;
}

/** What a route sends: the job as the provider should see it. */
export interface RouteJob {
  /** The service's task id (`task_…`); providers never see it except in the webhook address. */
  readonly taskId: string;
  /** The catalogue capability the job runs (`image.generate`, `text.generate`, `audio.speech`, `video.generate`, `voice.clone`, …). */
  readonly capability: string;
  /** The provider's model name from the route (`owner/name[:version]`, a fal model id, …). */
  readonly supplierModel: string;
  /**
   * The model-specific part of the request: the route's `input_map` result, or the merged
   * parameters unchanged. Input files are already links the provider can fetch (or data
   * URIs), and a voice id is already the provider's own voice id.
   */
  readonly input: Readonly<Record<string, unknown>>;
  /** Where the provider should send its status webhooks (only when the channel verifies them). */
  readonly webhookUrl?: string;
}

/** An output file as the provider reports it. */
export type ProviderFile =
  /** A link to download (provider links expire: the channel archives them before success). */
  | { readonly url: string; readonly name?: string }
  /** Bytes inside the answer (OpenAI's `b64_json`, a data URI's payload). */
  | { readonly base64: string; readonly name?: string };

/** What the provider says of a job. */
export type ProviderJobStatus =
  | { readonly state: 'queued' }
  | { readonly state: 'running' }
  /**
   * Done, with its outputs: files to archive, `text` for text output (Replicate's list of
   * pieces joined, an OpenAI chat message), `voiceId` for a provider voice made by
   * `voice.clone`.
   */
  | { readonly state: 'succeeded'; readonly files: readonly ProviderFile[]; readonly text?: string; readonly voiceId?: string }
  /** Done, but the outputs are read with `result()` (fal's queue: `COMPLETED`, then `GET …/requests/{id}`). */
  | { readonly state: 'completed' }
  /** `detail` is the provider's own message or code: logged for the operator, never shown to accounts. */
  | { readonly state: 'failed'; readonly detail?: string }
  | { readonly state: 'canceled' };

/** What the channel learns from a submit answer in the 2xx range. */
export interface Accepted {
  /** The provider's job id: every later request names the job by it. */
  readonly remoteId: string;
  /**
   * The provider's job status in the same answer, when it carries one: synchronous APIs
   * (OpenAI) answer `succeeded` at once; Replicate answers `starting`.
   */
  readonly status?: ProviderJobStatus;
}

/** How a cancel answer in the 2xx range reads. */
export type CancelReading =
  /** The provider confirmed the job will not run (or is canceled now). */
  | 'canceled'
  /** The provider refused (e.g. DashScope once the task left PENDING). */
  | 'refused'
  /** Asked; the outcome follows in the job's status (fal, Replicate before it settles). */
  | 'pending';

/** A verified webhook: which job it is about, and the status it reports. */
export interface WebhookReading {
  readonly remoteId: string;
  readonly status: ProviderJobStatus;
}

export interface ProviderAdapter {
  readonly type: ProviderType;

  /**
   * How an answer lost after the submit request was sent (a timeout, a reset connection, a
   * crash between sending and recording) is resolved without a blind resend: `resend` when
   * `submit` carries the provider's idempotency key, so the same request cannot make a
   * second job; `fail` otherwise (the task fails with SUPPLIER_ERROR and releases its funds).
   * docs/channels.md says which each provider is and why.
   */
  readonly lostAnswer: 'resend' | 'fail';

  /**
   * True for a job whose result comes in the submit answer itself and cannot be asked for
   * again (OpenAI; Ark's image generations): a job of this kind found dispatched without its
   * result (a crash between the answer and archiving it) fails with SUPPLIER_ERROR and
   * charges nothing. Absent means false.
   */
  synchronous?(job: RouteJob): boolean;

  /**
   * Hosts of the provider's own API besides `base_url`'s that its requests may go to with
   * the channel's credential (fal's model reads are on its Platform API host).
   */
  readonly apiHosts?: readonly string[];

  /** The authentication headers of every request (`Bearer …`, fal's `Key …`). */
  auth(credential: string): Record<string, string>;

  /**
   * The probe of a route that spends nothing: an authenticated read of the provider's model
   * (or model list). The channel counts a 2xx answer as passed, anything else as failed.
   * `baseUrl` is the channel's `base_url`, for providers whose model read is not on the API
   * host itself (fal: the Platform API beside the queue); other adapters ignore it.
   */
  probe(supplierModel: string, capability: string, baseUrl?: string): ProviderRequest;

  /** The request that creates the provider's job. */
  submit(job: RouteJob): ProviderRequest;
  /** Reads a 2xx submit answer. */
  accepted(answer: ProviderAnswer, job: RouteJob): Accepted;

  /** The status request of a job the provider holds. */
  status(remoteId: string, job: RouteJob): ProviderRequest;
  /** Reads a 2xx status answer. */
  readStatus(answer: ProviderAnswer, job: RouteJob): ProviderJobStatus;

  /** The request that reads a `completed` job's outputs (fal); absent where status carries them. */
  result?(remoteId: string, job: RouteJob): ProviderRequest;
  /** Reads a 2xx result answer. */
  readResult?(answer: ProviderAnswer, job: RouteJob): ProviderJobStatus;

  /**
   * A page of the account's jobs at the provider, newest first (Replicate's
   * `GET /v1/predictions`, 100 a page; Ark's task list, 500 a page): the channel learns the status of many open jobs with
   * one request instead of one each, so a pass over thousands of open jobs takes seconds of
   * the budget, not minutes. `cursor` is null for the first page, then what `readList` gave.
   */
  list?(cursor: string | null): ProviderRequest;
  /** Reads a 2xx list answer (of the page `cursor` named): each job's id and status (as `readStatus` reads one), and the next page's cursor. */
  readList?(answer: ProviderAnswer, cursor: string | null): { readonly jobs: readonly { readonly remoteId: string; readonly status: ProviderJobStatus }[]; readonly next: string | null };

  /**
   * The cancel request for a job in the given provider status, or null when the provider
   * has no way to cancel it (then the cancellation is `refused`). OpenAI jobs are
   * synchronous and never reach here.
   */
  cancel(remoteId: string, job: RouteJob): ProviderRequest | null;
  /** Reads a 2xx cancel answer (a 4xx is read by the channel: 404 → gone, else refused). */
  readCancel(answer: ProviderAnswer): CancelReading;

  /**
   * Webhooks, for providers that sign them (Replicate: Standard Webhooks). `verify` checks
   * the signature and the timestamp window over the raw body with the channel's
   * `webhook_secret`; `read` parses the verified body.
   */
  readonly webhooks?: {
    verify(headers: { get(name: string): string | null }, rawBody: Buffer, secret: string, nowSeconds: number): boolean;
    read(body: unknown): WebhookReading;
  };

  /** The request that deletes a provider voice (`voice.clone` outputs), where the provider has one. */
  deleteVoice?(voiceId: string): ProviderRequest;
}

/** A provider answer the adapter cannot read (missing id, unknown status, not JSON, …). */
export class ProviderProtocolError extends Error {
  override name = 'ProviderProtocolError';
}
