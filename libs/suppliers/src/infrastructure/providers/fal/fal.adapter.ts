/**
 * fal's queue (CONTRACT §14; docs/channels.md, "fal"). Written from:
 * - Queue API, https://docs.fal.ai/model-endpoints/queue and
 *   https://docs.fal.ai/documentation/model-apis/inference/queue: `POST /{model_id}[/{subpath}]`,
 *   `GET /{model_id}/requests/{id}/status`, `GET /{model_id}/requests/{id}`,
 *   `PUT /{model_id}/requests/{id}/cancel`, statuses `IN_QUEUE`, `IN_PROGRESS`, `COMPLETED`; the
 *   subpath is sent when submitting but not when reading status or results;
 * - cancel, https://fal.ai/docs/inference-api/queue/cancel: 202 `CANCELLATION_REQUESTED`, 400
 *   `ALREADY_COMPLETED`; a queued request is removed, a running one gets a cancellation signal;
 * - request errors, https://docs.fal.ai/documentation/model-apis/request-errors: `detail` and
 *   `error_type` (`client_cancelled` for a request the client cancelled, …);
 * - authentication, https://docs.fal.ai/platform-apis/authentication (`Authorization: Key …`),
 *   and the Platform API's model read, https://docs.fal.ai/platform-apis/v1/models
 *   (`GET https://api.fal.ai/v1/models?endpoint_id=…`), used as the probe;
 * - fal-js `libs/client/src/queue.ts`, `utils.ts` (`parseEndpointId`: `owner/alias[/path]`, the
 *   `workflows/` and `comfy/` namespaces, legacy `123-app` ids), `request.ts` (`Key` header),
 *   `types/common.ts` (queue statuses); fal `projects/fal_client/src/fal_client/client.py`
 *   (`Completed` carries `error` and `error_type`);
 * - model outputs as fal's File objects (`images[].url`, `image.url`, `video.url`, `audio.url`,
 *   `audio_file.url`, …, with `content_type` and `file_name`), and `output` for language models.
 *
 * Webhooks: none. fal signs them with ED25519 keys published at a JWKS URL and rotated; a key
 * pinned in `webhook_secret` would stop verifying at the next rotation, and fetching keys is
 * not an adapter's work, so fal jobs are polled (docs/channels.md says more).
 */
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
} from '../../../application/providers/provider-adapter';

/** fal's queue host: its models are read on the Platform API's host. */
export const FAL_QUEUE_HOST = 'queue.fal.run';
export const FAL_PLATFORM_API = 'https://api.fal.ai';

const NAMESPACES = ['workflows', 'comfy'];

/** A fal endpoint id, as fal-js `parseEndpointId` reads it. */
export interface FalEndpoint {
  readonly namespace?: string;
  readonly owner: string;
  readonly alias: string;
  /** The subpath (`dev` in `fal-ai/flux/dev`): submitted to, never used for status or results. */
  readonly path?: string;
}

export function parseEndpointId(id: string): FalEndpoint {
  let parts = id.split('/');
  if (parts.length === 1) {
    const legacy = /^([0-9]+)-([a-zA-Z0-9-]+)$/.exec(id);
    if (!legacy) throw new ProviderProtocolError(`not a fal endpoint id (owner/app[/path]): ${id}`);
    parts = [legacy[1]!, legacy[2]!];
  }
  if (parts.some((p) => !p || p === '.' || p === '..')) throw new ProviderProtocolError(`not a fal endpoint id (owner/app[/path]): ${id}`);
  const namespace = NAMESPACES.includes(parts[0]!) ? parts.shift() : undefined;
  const [owner, alias, ...rest] = parts;
  if (!owner || !alias) throw new ProviderProtocolError(`not a fal endpoint id (owner/app[/path]): ${id}`);
  return { ...(namespace ? { namespace } : {}), owner, alias, ...(rest.length ? { path: rest.join('/') } : {}) };
}

const segs = (...parts: string[]) => parts.map(encodeURIComponent).join('/');

/** `{namespace/}owner/alias`: the part of the id the status, result and cancel paths use. */
export function appPath(endpoint: FalEndpoint): string {
  return segs(...(endpoint.namespace ? [endpoint.namespace] : []), endpoint.owner, endpoint.alias);
}

function requestPath(supplierModel: string, remoteId: string, tail = ''): string {
  return `/${appPath(parseEndpointId(supplierModel))}/requests/${encodeURIComponent(remoteId)}${tail}`;
}

const object = (body: unknown, what: string): Record<string, unknown> => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ProviderProtocolError(`the ${what} is not a JSON object`);
  return body as Record<string, unknown>;
};

const short = (v: unknown): string | undefined => (typeof v === 'string' && v ? v.slice(0, 300) : undefined);

/** A queue status body (`GET …/requests/{id}/status`, also the submit answer when it names a status). */
export function readQueueStatus(body: unknown): ProviderJobStatus {
  const s = object(body, 'queue status');
  switch (s.status) {
    case 'IN_QUEUE':
      return { state: 'queued' };
    case 'IN_PROGRESS':
      return { state: 'running' };
    case 'COMPLETED': {
      // A request that failed, or was cancelled, is COMPLETED too, with `error` and `error_type`.
      const errorType = short(s.error_type);
      const error = short(s.error);
      if (errorType === 'client_cancelled') return { state: 'canceled' };
      if (errorType || error) return { state: 'failed', detail: [errorType, error].filter(Boolean).join(': ') };
      return { state: 'completed' };
    }
    default:
      throw new ProviderProtocolError(`unknown queue status ${JSON.stringify(s.status)}`);
  }
}

function fileFrom(value: Record<string, unknown>): ProviderFile | null {
  const url = value.url;
  if (typeof url !== 'string' || !url) return null;
  const name = typeof value.file_name === 'string' && value.file_name ? { name: value.file_name } : {};
  const m = /^data:[^,]*?;base64,(.*)$/is.exec(url);
  if (m) return { base64: m[1]!.replace(/\s/g, ''), ...name };
  if (/^data:/i.test(url)) throw new ProviderProtocolError('a data URI output that is not base64');
  return { url, ...name };
}

/** Every fal File object (`{url, content_type?, file_name?}`) in a result, in order, a few levels deep. */
function filesIn(value: unknown, depth = 0): ProviderFile[] {
  if (!value || typeof value !== 'object' || depth > 3) return [];
  if (Array.isArray(value)) return value.flatMap((v) => filesIn(v, depth + 1));
  const file = depth > 0 ? fileFrom(value as Record<string, unknown>) : null;
  if (file) return [file];
  return Object.values(value).flatMap((v) => filesIn(v, depth + 1));
}

/**
 * A result body (`GET …/requests/{id}`): the model's output JSON. Text capabilities read the
 * language models' `output` (or `text`); the others, every File object in it.
 */
export function readResult(body: unknown, capability: string): ProviderJobStatus {
  const result = object(body, 'result');
  if (capability.startsWith('text.')) {
    const text = typeof result.output === 'string' ? result.output : typeof result.text === 'string' ? result.text : undefined;
    if (text === undefined) throw new ProviderProtocolError('the result has no text output');
    return { state: 'succeeded', files: [], text };
  }
  const files = filesIn(result);
  if (!files.length) return { state: 'failed', detail: 'the result has no output files' };
  return { state: 'succeeded', files };
}

export const falAdapter: ProviderAdapter = {
  type: 'fal',

  // fal documents no idempotency key for queue submissions: a submit whose answer was lost
  // may have queued a request, and sending it again could queue a second one.
  lostAnswer: 'fail',
  apiHosts: [new URL(FAL_PLATFORM_API).host],

  auth: (credential) => ({ authorization: `Key ${credential}` }),

  /**
   * The Platform API's model read (`GET /v1/models?endpoint_id=…`): it reads, never runs. On
   * fal's own queue host it is `https://api.fal.ai` (named in `apiHosts`, so the channel sends
   * it with the key); behind any other `base_url` (a gateway, a stand-in) it is expected on
   * the same origin.
   */
  probe(supplierModel, _capability, baseUrl): ProviderRequest {
    parseEndpointId(supplierModel);
    const query = `/v1/models?endpoint_id=${encodeURIComponent(supplierModel)}`;
    let onQueueHost = true;
    if (baseUrl !== undefined) {
      try {
        onQueueHost = new URL(baseUrl).hostname === FAL_QUEUE_HOST;
      } catch {
        onQueueHost = false;
      }
    }
    return { method: 'GET', url: onQueueHost ? `${FAL_PLATFORM_API}${query}` : query };
  },

  submit(job: RouteJob): ProviderRequest {
    const e = parseEndpointId(job.supplierModel);
    const path = [...(e.namespace ? [e.namespace] : []), e.owner, e.alias, ...(e.path ? e.path.split('/') : [])];
    return { method: 'POST', url: `/${segs(...path)}`, body: job.input };
  },

  accepted(answer: ProviderAnswer): Accepted {
    const a = object(answer.json, 'submit answer');
    if (typeof a.request_id !== 'string' || !a.request_id) throw new ProviderProtocolError('the submit answer has no request_id');
    return { remoteId: a.request_id, ...(typeof a.status === 'string' ? { status: readQueueStatus(a) } : {}) };
  },

  status: (remoteId, job) => ({ method: 'GET', url: requestPath(job.supplierModel, remoteId, '/status') }),

  readStatus: (answer) => readQueueStatus(answer.json),

  result: (remoteId, job) => ({ method: 'GET', url: requestPath(job.supplierModel, remoteId) }),

  readResult: (answer, job) => readResult(answer.json, job.capability),

  cancel: (remoteId, job) => ({ method: 'PUT', url: requestPath(job.supplierModel, remoteId, '/cancel') }),

  /**
   * 202 `CANCELLATION_REQUESTED`: asked; the request's status then tells (a queued request is
   * removed and a running one signalled: either ends `COMPLETED` with `client_cancelled`, or
   * finishes anyway). 400 `ALREADY_COMPLETED` is a 4xx, which the channel reads as refused.
   */
  readCancel(answer: ProviderAnswer): CancelReading {
    const status = object(answer.json, 'cancel answer').status;
    if (status === 'CANCELLATION_REQUESTED' || status === 'OK') return 'pending';
    if (status === 'ALREADY_COMPLETED') return 'refused';
    throw new ProviderProtocolError(`unknown cancel answer ${JSON.stringify(status)}`);
  },
};
