/**
 * Replicate predictions (CONTRACT §14; docs/channels.md, "Replicate"). Written from:
 * - HTTP API reference, https://replicate.com/docs/reference/http: authentication (`Bearer`),
 *   `predictions.create` (`POST /v1/predictions`, `version`), `models.predictions.create`
 *   (`POST /v1/models/{owner}/{name}/predictions`), `predictions.get`, `predictions.cancel`,
 *   `models.get`, `models.versions.get`, the `webhook` and `webhook_events_filter` fields;
 * - prediction lifecycle, https://replicate.com/docs/topics/predictions/lifecycle (statuses),
 *   and `aborted` from replicate-javascript `index.d.ts` (`Status`, added in #355);
 * - webhooks, https://replicate.com/docs/topics/webhooks/verify-webhook (Standard Webhooks:
 *   `webhook-id`, `webhook-timestamp`, `webhook-signature`, `whsec_` secret, 5-minute tolerance,
 *   constant-time comparison);
 * - output files and data retention, https://replicate.com/docs/topics/predictions/output-files
 *   and .../data-retention (API predictions' inputs, outputs and files are removed after an hour);
 * - replicate-javascript `lib/predictions.js`, `lib/identifier.js` and `index.js` `run()` (an
 *   `owner/name:version` reference sends only the version id to `/v1/predictions`),
 *   `lib/util.js` `validateWebhook`; replicate-python `replicate/exceptions.py` (errors are RFC
 *   7807 problem details: `title`, `detail`, `status`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  ProviderProtocolError,
  type Accepted,
  type CancelReading,
  type ProviderAdapter,
  type ProviderAnswer,
  type ProviderFile,
  type ProviderJobStatus,
  type ProviderRequest,
  type RouteJob,
  type WebhookReading,
} from '../../../application/providers/provider-adapter';

/** A Replicate model reference: `owner/name` or `owner/name:version` (replicate-javascript `ModelVersionIdentifier`). */
export interface ReplicateModelRef {
  readonly owner: string;
  readonly name: string;
  readonly version?: string;
}

export function parseModelRef(ref: string): ReplicateModelRef {
  const m = /^([^/:\s]+)\/([^/:\s]+)(?::([^/:\s]+))?$/.exec(ref);
  if (!m) throw new ProviderProtocolError(`not a Replicate model reference (owner/name or owner/name:version): ${ref}`);
  return { owner: m[1]!, name: m[2]!, ...(m[3] ? { version: m[3] } : {}) };
}

const seg = encodeURIComponent;

/** The documented prediction statuses. */
export type ReplicateStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | 'aborted';
const STATUSES: readonly string[] = ['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted'];

/** The fields of a prediction object this adapter reads. */
interface Prediction {
  readonly id: string;
  readonly status: ReplicateStatus;
  readonly output?: unknown;
  readonly error?: unknown;
  readonly data_removed?: boolean;
}

function prediction(body: unknown): Prediction {
  if (!body || typeof body !== 'object') throw new ProviderProtocolError('the answer is not a prediction object');
  const p = body as Record<string, unknown>;
  if (typeof p.id !== 'string' || !p.id) throw new ProviderProtocolError('the prediction has no id');
  if (typeof p.status !== 'string' || !STATUSES.includes(p.status)) throw new ProviderProtocolError(`unknown prediction status ${JSON.stringify(p.status)}`);
  return p as unknown as Prediction;
}

const isTextCapability = (capability: string | undefined) => capability?.startsWith('text.') === true;
const isFileLink = (s: string) => /^https?:\/\//i.test(s) || /^data:/i.test(s);

/** A `data:` URI's payload as base64 (Replicate's sync mode may answer files inline). */
function dataUriFile(uri: string): ProviderFile {
  const m = /^data:([^,]*?)(;base64)?,(.*)$/is.exec(uri);
  if (!m) throw new ProviderProtocolError('a malformed data URI in the output');
  const base64 = m[2] ? m[3]!.replace(/\s/g, '') : Buffer.from(decodeURIComponent(m[3]!), 'utf8').toString('base64');
  return { base64 };
}

function fileOf(link: string): ProviderFile {
  return /^data:/i.test(link) ? dataUriFile(link) : { url: link };
}

/** Every file link among an output object's values (models with named outputs), at most a few levels deep. */
function linksIn(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return isFileLink(value) ? [value] : [];
  if (depth >= 3 || !value || typeof value !== 'object') return [];
  const values = Array.isArray(value) ? value : Object.values(value);
  return values.flatMap((v) => linksIn(v, depth + 1));
}

const detail = (error: unknown): string | undefined => {
  if (error === null || error === undefined) return undefined;
  return (typeof error === 'string' ? error : JSON.stringify(error)).slice(0, 300);
};

/**
 * A succeeded prediction's `output`: a file link, a list of file links, text (a string, or
 * the list of pieces a language model streams, joined), or an object with file links.
 * `capability` says text when known (`text.*`); without it (a webhook) a string or a list
 * of strings is files only when every one of them is a link.
 */
export function readOutput(output: unknown, capability?: string): ProviderJobStatus {
  if (output === null || output === undefined) return { state: 'failed', detail: 'the prediction succeeded without output' };
  const pieces = typeof output === 'string' ? [output] : Array.isArray(output) && output.every((o) => typeof o === 'string') ? (output as string[]) : undefined;
  if (pieces) {
    if (isTextCapability(capability)) return { state: 'succeeded', files: [], text: pieces.join('') };
    if (!pieces.length) return { state: 'failed', detail: 'the prediction succeeded without output' };
    if (pieces.every(isFileLink)) return { state: 'succeeded', files: pieces.map(fileOf) };
    return { state: 'succeeded', files: [], text: pieces.join('') };
  }
  const links = linksIn(output);
  if (!links.length) throw new ProviderProtocolError('the output has neither text nor file links');
  return { state: 'succeeded', files: links.map(fileOf) };
}

/** What a prediction object says of the job. */
export function readPrediction(body: unknown, capability?: string): ProviderJobStatus {
  const p = prediction(body);
  switch (p.status) {
    case 'starting':
      return { state: 'queued' };
    case 'processing':
      return { state: 'running' };
    case 'succeeded':
      if (p.data_removed === true) return { state: 'failed', detail: 'the prediction data was removed before the outputs were read' };
      return readOutput(p.output, capability);
    case 'failed':
      return { state: 'failed', detail: detail(p.error) ?? 'failed' };
    case 'canceled':
      return { state: 'canceled' };
    case 'aborted':
      // Terminated before it started running (a deadline): the provider dropped the job.
      return { state: 'canceled' };
    default: {
      const never: never = p.status;
      throw new ProviderProtocolError(`unknown prediction status ${String(never)}`);
    }
  }
}

/** Standard Webhooks tolerance: a message more than five minutes old (or ahead) is refused. */
export const WEBHOOK_TOLERANCE_S = 5 * 60;

/** The `whsec_…` signing secret's key bytes (base64 after the prefix). */
function secretKey(secret: string): Buffer | null {
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(b64, 'base64');
  return key.length ? key : null;
}

/** The base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` (the Standard Webhooks signed content). */
export function signWebhook(secret: string, id: string, timestamp: number | string, body: Buffer | string): string {
  const key = secretKey(secret);
  if (!key) throw new Error('an empty webhook secret');
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/**
 * Verifies a Replicate webhook (Standard Webhooks): the three headers, a timestamp within five
 * minutes of `nowSeconds`, and one `v1,` signature in `webhook-signature` equal, compared in
 * constant time, to the HMAC of the raw body. Replays inside the window verify (the message
 * id is the same on Replicate's retries): applying a status twice changes nothing.
 */
export function verifyWebhook(headers: { get(name: string): string | null }, rawBody: Buffer, secret: string, nowSeconds: number): boolean {
  const id = headers.get('webhook-id');
  const timestamp = headers.get('webhook-timestamp');
  const signatures = headers.get('webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > WEBHOOK_TOLERANCE_S) return false;
  const key = secretKey(secret);
  if (!key) return false;
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest();
  let ok = false;
  for (const versioned of signatures.split(' ')) {
    const [version, signature] = versioned.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    const given = Buffer.from(signature, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) ok = true;
  }
  return ok;
}

export const replicateAdapter: ProviderAdapter = {
  type: 'replicate',

  // Replicate documents no idempotency key for creating predictions: a create request whose
  // answer was lost may have made a prediction, and sending it again could make a second one.
  lostAnswer: 'fail',

  auth: (credential) => ({ authorization: `Bearer ${credential}` }),

  /** `models.get` (or `models.versions.get` for a pinned version): reads, never runs. */
  probe(supplierModel): ProviderRequest {
    const ref = parseModelRef(supplierModel);
    const model = `/v1/models/${seg(ref.owner)}/${seg(ref.name)}`;
    return { method: 'GET', url: ref.version ? `${model}/versions/${seg(ref.version)}` : model };
  },

  submit(job: RouteJob): ProviderRequest {
    const ref = parseModelRef(job.supplierModel);
    const body: Record<string, unknown> = {
      input: job.input,
      // Only the terminal event: intermediate statuses come from polling.
      ...(job.webhookUrl ? { webhook: job.webhookUrl, webhook_events_filter: ['completed'] } : {}),
    };
    if (ref.version) return { method: 'POST', url: '/v1/predictions', body: { version: ref.version, ...body } };
    return { method: 'POST', url: `/v1/models/${seg(ref.owner)}/${seg(ref.name)}/predictions`, body };
  },

  accepted(answer: ProviderAnswer, job: RouteJob): Accepted {
    const p = prediction(answer.json);
    return { remoteId: p.id, status: readPrediction(p, job.capability) };
  },

  status: (remoteId) => ({ method: 'GET', url: `/v1/predictions/${seg(remoteId)}` }),

  readStatus: (answer, job) => readPrediction(answer.json, job.capability),

  // https://replicate.com/docs/reference/http#predictions.list: `{results, next, previous}`,
  // newest first, 100 a page; `next` is the next page's URL (with its cursor) or null.
  list: (cursor) => ({ method: 'GET', url: cursor ?? '/v1/predictions' }),
  readList(answer) {
    const body = answer.json as { results?: unknown; next?: unknown } | null;
    if (!body || !Array.isArray(body.results)) throw new ProviderProtocolError('a prediction list without results');
    const jobs = body.results.flatMap((item: unknown) => {
      const id = (item as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || !id) return [];
      try {
        // A list item of a text model's prediction has no capability to go by: a list of
        // pieces that are all links reads as files (as a webhook does).
        return [{ remoteId: id, status: readPrediction(item) }];
      } catch {
        return [];
      }
    });
    return { jobs, next: typeof body.next === 'string' && body.next ? body.next : null };
  },

  cancel: (remoteId) => ({ method: 'POST', url: `/v1/predictions/${seg(remoteId)}/cancel` }),

  /** The cancel answer is the prediction: `canceled` confirms; a finished one was not canceled. */
  readCancel(answer: ProviderAnswer): CancelReading {
    const p = prediction(answer.json);
    if (p.status === 'canceled' || p.status === 'aborted') return 'canceled';
    if (p.status === 'starting' || p.status === 'processing') return 'pending';
    return 'refused';
  },

  webhooks: {
    verify: verifyWebhook,
    read(body: unknown): WebhookReading {
      const p = prediction(body);
      return { remoteId: p.id, status: readPrediction(p) };
    },
  },
};
