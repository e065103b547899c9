/**
 * Volcengine Ark (CONTRACT §14; docs/channels.md, "Volcengine Ark"). Written from:
 * - the Ark API reference (https://www.volcengine.com/docs/82379): video generation tasks,
 *   `POST /api/v3/contents/generations/tasks` (`{model, content: [{type: "text", text},
 *   {type: "image_url", image_url: {url}, role?}], callback_url?, return_last_frame?, …}` →
 *   `{id}`), `GET /api/v3/contents/generations/tasks/{id}` (`status` `queued`, `running`,
 *   `cancelled`, `succeeded`, `failed`, `expired`; `content.video_url`,
 *   `content.last_frame_url`; `error {code, message}`; result links valid for 24 hours),
 *   `GET /api/v3/contents/generations/tasks?page_num&page_size&filter.model` (the task list),
 *   `DELETE /api/v3/contents/generations/tasks/{id}` (cancels a `queued` task; a `running`
 *   one cannot be canceled; a finished one's record is deleted); image generation,
 *   `POST /api/v3/images/generations` (Seedream, answered at once: `data[].url` or
 *   `data[].b64_json`, a failed image as `data[].error`); errors as `{"error": {"code",
 *   "message", "param", "type"}}` (401 `AuthenticationError`, 404
 *   `InvalidEndpointOrModel.NotFound`, 429 `RateLimitExceeded…`);
 * - volcengine-python-sdk `volcenginesdkarkruntime/resources/content_generation/tasks.py`
 *   (create, get, list with `filter.*`, delete), `…/types/content_generation/content_generation_task.py`
 *   (status words, `content.video_url`, `last_frame_url`, `file_url`, `error`),
 *   `…/resources/images/images.py`, `…/_constants.py` (`/api/v3` base; `X-Client-Request-Id` is
 *   a tracing id, not an idempotency key).
 *
 * Callbacks: Ark posts a task's state to `callback_url` unsigned, so a callback proves
 * nothing and none is asked for: tasks are polled. Ark documents no idempotency key and a
 * task cannot be found by anything of ours, so a lost create answer fails the task.
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

export const ARK_TASKS = '/api/v3/contents/generations/tasks';
export const ARK_IMAGES = '/api/v3/images/generations';

/** Image capabilities run on the (synchronous) image generation API; everything else on content generation tasks. */
export const arkRunsImages = (capability: string): boolean => capability === 'image.generate' || capability === 'image.edit';

const object = (body: unknown, what: string): Record<string, unknown> => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ProviderProtocolError(`the ${what} is not a JSON object`);
  return body as Record<string, unknown>;
};

const short = (v: unknown): string | undefined => (typeof v === 'string' && v ? v.slice(0, 300) : undefined);

const errorDetail = (error: unknown): string | undefined => {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { code?: unknown; message?: unknown };
  return [short(e.code), short(e.message)].filter(Boolean).join(': ') || undefined;
};

/** A content generation task (`GET …/tasks/{id}`). */
/** Tasks per page of the task list (its largest page). */
export const ARK_LIST_PAGE = 500;

export function readTask(body: unknown): ProviderJobStatus {
  const task = object(body, 'task');
  switch (task.status) {
    case 'queued':
      return { state: 'queued' };
    case 'running':
      return { state: 'running' };
    case 'cancelled':
      return { state: 'canceled' };
    case 'failed':
      return { state: 'failed', detail: errorDetail(task.error) ?? 'failed' };
    // A task not run within its `execution_expires_after`.
    case 'expired':
      return { state: 'failed', detail: 'expired' };
    case 'succeeded': {
      const content = task.content && typeof task.content === 'object' ? (task.content as Record<string, unknown>) : {};
      const files: ProviderFile[] = [content.video_url, content.file_url, content.last_frame_url]
        .filter((u): u is string => typeof u === 'string' && u !== '')
        .map((url) => ({ url }));
      if (!files.length) return { state: 'failed', detail: 'the task succeeded without content' };
      return { state: 'succeeded', files };
    }
    default:
      throw new ProviderProtocolError(`unknown task status ${JSON.stringify(task.status)}`);
  }
}

/** An image generation answer: `data[]` of `url` or `b64_json` (JPEG); images that failed carry `error`. */
export function readImages(body: unknown): ProviderJobStatus {
  const answer = object(body, 'images answer');
  if (answer.error) return { state: 'failed', detail: errorDetail(answer.error) ?? 'error' };
  if (!Array.isArray(answer.data)) throw new ProviderProtocolError('the images answer has no data');
  const files: ProviderFile[] = [];
  let firstError: string | undefined;
  (answer.data as unknown[]).forEach((entry, i) => {
    const image = object(entry, 'image');
    if (typeof image.url === 'string' && image.url) files.push({ url: image.url });
    else if (typeof image.b64_json === 'string' && image.b64_json) files.push({ base64: image.b64_json, name: `image-${i + 1}.jpg` });
    else firstError ??= errorDetail(image.error);
  });
  if (!files.length) return { state: 'failed', detail: firstError ?? 'the images answer has no images' };
  return { state: 'succeeded', files };
}

export const arkAdapter: ProviderAdapter = {
  type: 'ark',

  // No idempotency key (X-Client-Request-Id only traces), and the task list filters by
  // model, status and task id, none of which is ours before the answer: fail, never resend.
  lostAnswer: 'fail',

  /** Seedream images come in the answer to the create request; video tasks are polled. */
  synchronous: (job) => arkRunsImages(job.capability),

  auth: (credential) => ({ authorization: `Bearer ${credential}` }),

  /**
   * Ark has no model read reachable with an API key (its model and endpoint reads are
   * signed control-plane calls), so the probe is the task list read for the model: it
   * checks the key and that the API answers, and runs nothing.
   */
  probe: (supplierModel): ProviderRequest => ({
    method: 'GET',
    url: `${ARK_TASKS}?page_num=1&page_size=1&filter.model=${encodeURIComponent(supplierModel)}`,
  }),

  /** Images: `POST /api/v3/images/generations`. Others: a content generation task. The route gives the body without `model`. */
  submit(job: RouteJob): ProviderRequest {
    return { method: 'POST', url: arkRunsImages(job.capability) ? ARK_IMAGES : ARK_TASKS, body: { ...job.input, model: job.supplierModel } };
  },

  accepted(answer: ProviderAnswer, job: RouteJob): Accepted {
    if (arkRunsImages(job.capability)) {
      return { remoteId: short(answer.headers.get('x-request-id')) ?? `sync-${job.taskId}`, status: readImages(answer.json) };
    }
    const id = short(object(answer.json, 'submit answer').id);
    if (!id) throw new ProviderProtocolError('the submit answer has no id');
    return { remoteId: id };
  },

  status: (remoteId): ProviderRequest => ({ method: 'GET', url: `${ARK_TASKS}/${encodeURIComponent(remoteId)}` }),

  readStatus: (answer) => readTask(answer.json),

  // The task list (`GET /api/v3/contents/generations/tasks`, newest first, `page_num` from 1,
  // `page_size` up to 500, `{total, items}`): one request tells up to 500 open tasks' statuses.
  list: (cursor) => ({ method: 'GET', url: `/api/v3/contents/generations/tasks?page_num=${cursor ?? '1'}&page_size=${ARK_LIST_PAGE}` }),
  readList(answer, cursor) {
    const body = answer.json as { items?: unknown; total?: unknown } | null;
    if (!body || !Array.isArray(body.items)) throw new ProviderProtocolError('a task list without items');
    const jobs = body.items.flatMap((item: unknown) => {
      const id = (item as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || !id) return [];
      try {
        return [{ remoteId: id, status: readTask(item) }];
      } catch {
        return [];
      }
    });
    return { jobs, next: body.items.length === ARK_LIST_PAGE ? String(Number(cursor ?? '1') + 1) : null };
  },

  /** `DELETE` a task (a queued one is canceled); images are answered at once and cannot be. */
  cancel: (remoteId, job): ProviderRequest | null => (arkRunsImages(job.capability) ? null : { method: 'DELETE', url: `${ARK_TASKS}/${encodeURIComponent(remoteId)}` }),

  /**
   * A 2xx: the queued task is canceled (or, finished meanwhile, its record deleted: its
   * result will never be delivered either). A running task is answered with an error, which
   * the channel reads as refused.
   */
  readCancel: (): CancelReading => 'canceled',
};
