/**
 * DashScope, Alibaba Cloud Model Studio (CONTRACT §14; docs/channels.md, "DashScope"). Written from:
 * - asynchronous tasks: the image and video generation API references
 *   (https://www.alibabacloud.com/help/en/model-studio/text-to-image-api-reference,
 *   …/text-to-video-api-reference, …/image-to-video-api-reference): `POST` with
 *   `X-DashScope-Async: enable` and `{model, input, parameters}`, the answer
 *   `{output: {task_id, task_status}, request_id}`, `GET /api/v1/tasks/{task_id}` with
 *   `PENDING`, `RUNNING`, `SUCCEEDED`, `FAILED`, `CANCELED`, `UNKNOWN`, outputs in
 *   `output.results[].url` (images; a result that failed carries `code` and `message`
 *   instead) and `output.video_url` (video), links valid for 24 hours, a failed task's
 *   `output.code` and `output.message`; `POST /api/v1/tasks/{task_id}/cancel` cancels a task
 *   only while it is `PENDING` (otherwise an error answer);
 * - the status codes page (https://www.alibabacloud.com/help/en/model-studio/error-code):
 *   errors as `{code, message, request_id}`, 400 `InvalidParameter`, 401 `InvalidApiKey`,
 *   429 `Throttling.RateQuota`;
 * - speech synthesis, answered at once: Qwen-TTS
 *   (https://www.alibabacloud.com/help/en/model-studio/qwen-tts-api,
 *   `POST /api/v1/services/aigc/multimodal-generation/generation`) and CosyVoice over HTTP
 *   (`POST /api/v1/services/audio/tts/SpeechSynthesizer`), both answering
 *   `output.audio.{url, id, expires_at}` (a link valid for 24 hours);
 * - CosyVoice voice cloning (https://www.alibabacloud.com/help/en/model-studio/cosyvoice-clone-api):
 *   `POST /api/v1/services/audio/tts/customization` with model `voice-enrollment` and the
 *   actions `create_voice` (`target_model`, `prefix`: lowercase letters and digits, under 10
 *   characters, `url`) → `output.voice_id`; `list_voice` (`prefix`, `page_index`,
 *   `page_size`) → `output.voice_list[]` of `{voice_id, status}` with `DEPLOYING`, `OK`,
 *   `UNDEPLOYED`; `delete_voice` (`voice_id`);
 * - dashscope-sdk-python `dashscope/client/base_api.py` (task status, cancel and list paths,
 *   the async header), `dashscope/aigc/image_synthesis.py` (`text2image`, and `image2image`
 *   for `imageedit` and `wan2.5-i2i` models), `dashscope/aigc/video_synthesis.py`
 *   (`video-generation`, and `image2video` for `kf2v` models),
 *   `dashscope/audio/qwen_tts/speech_synthesizer.py`,
 *   `dashscope/audio/http_tts/http_speech_synthesizer.py`, `dashscope/audio/tts_v2/enrollment.py`,
 *   `dashscope/models.py` (model reads).
 *
 * DashScope documents no idempotency key and no way to find a task by a reference of ours,
 * so a lost create answer fails the task. It sends no signed webhooks: tasks are polled.
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

export const DASHSCOPE_PATHS = {
  text2image: '/api/v1/services/aigc/text2image/image-synthesis',
  image2image: '/api/v1/services/aigc/image2image/image-synthesis',
  video: '/api/v1/services/aigc/video-generation/video-synthesis',
  image2video: '/api/v1/services/aigc/image2video/video-synthesis',
  qwenTts: '/api/v1/services/aigc/multimodal-generation/generation',
  cosyVoice: '/api/v1/services/audio/tts/SpeechSynthesizer',
  customization: '/api/v1/services/audio/tts/customization',
} as const;

/** The model of every voice-cloning request (the route's model is the voice's `target_model`). */
export const VOICE_ENROLLMENT = 'voice-enrollment';

const SPEECH = new Set(['audio.speech', 'speech.synthesize']);

/** How one job runs: its service path and whether it is a task (asynchronous) or answered at once. */
export type DashScopeService =
  | { readonly kind: 'task'; readonly path: string }
  | { readonly kind: 'speech'; readonly path: string }
  | { readonly kind: 'voice' };

/** The service a capability and model run on (the SDK's choice of path, per model family). */
export function dashscopeService(capability: string, model: string): DashScopeService {
  const m = model.toLowerCase();
  if (capability === 'image.generate' || capability === 'image.edit') {
    const edit = capability === 'image.edit' || m.includes('imageedit') || m.includes('wan2.5-i2i');
    return { kind: 'task', path: edit ? DASHSCOPE_PATHS.image2image : DASHSCOPE_PATHS.text2image };
  }
  if (capability === 'video.generate') return { kind: 'task', path: m.includes('kf2v') ? DASHSCOPE_PATHS.image2video : DASHSCOPE_PATHS.video };
  if (SPEECH.has(capability)) {
    if (m.startsWith('cosyvoice')) return { kind: 'speech', path: DASHSCOPE_PATHS.cosyVoice };
    if (m.startsWith('qwen') && m.includes('tts')) return { kind: 'speech', path: DASHSCOPE_PATHS.qwenTts };
    throw new ProviderProtocolError(`DashScope speech over HTTP is CosyVoice (cosyvoice-…) or Qwen-TTS (qwen…-tts…), not ${model}`);
  }
  if (capability === 'voice.clone') return { kind: 'voice' };
  throw new ProviderProtocolError(`the DashScope adapter runs no ${capability}`);
}

/**
 * The `prefix` of a voice cloned for a task: lowercase letters and digits, under 10
 * characters, made from the task id, so the task's voice is found again by listing that
 * prefix (the voice id is `<target_model>-<prefix>-<suffix>`).
 */
export function voicePrefix(taskId: string): string {
  return taskId.replace(/^task_/, '').replace(/[^a-z0-9]/gi, '').toLowerCase().slice(-9) || 'gensvc';
}

const object = (body: unknown, what: string): Record<string, unknown> => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ProviderProtocolError(`the ${what} is not a JSON object`);
  return body as Record<string, unknown>;
};

const short = (v: unknown): string | undefined => (typeof v === 'string' && v ? v.slice(0, 300) : undefined);

const output = (body: unknown, what: string): Record<string, unknown> => object(object(body, what).output, `${what}'s output`);

const customization = (input: Record<string, unknown>): ProviderRequest => ({
  method: 'POST',
  url: DASHSCOPE_PATHS.customization,
  body: { model: VOICE_ENROLLMENT, input },
});

/** The `create_voice` input: the route's `input` without the service's own fields, the sample link and the task's prefix. */
function createVoiceInput(job: RouteJob): Record<string, unknown> {
  const given = job.input.input && typeof job.input.input === 'object' && !Array.isArray(job.input.input) ? (job.input.input as Record<string, unknown>) : {};
  const { asset_ids: assets, consent_attested: _consent, name: _name, ...rest } = given;
  const url = typeof rest.url === 'string' ? rest.url : Array.isArray(assets) && typeof assets[0] === 'string' ? assets[0] : undefined;
  if (!url) throw new ProviderProtocolError('a DashScope voice clone needs the sample audio link (input.url or input.asset_ids[0])');
  return { ...rest, action: 'create_voice', target_model: job.supplierModel, prefix: voicePrefix(job.taskId), url };
}

/** A task body (the submit answer or `GET /api/v1/tasks/{id}`): its status and, once done, its outputs. */
export function readTask(body: unknown): ProviderJobStatus {
  const out = output(body, 'task');
  switch (out.task_status) {
    case 'PENDING':
      return { state: 'queued' };
    case 'RUNNING':
      return { state: 'running' };
    case 'CANCELED':
      return { state: 'canceled' };
    case 'FAILED':
      return { state: 'failed', detail: [short(out.code), short(out.message)].filter(Boolean).join(': ') || 'FAILED' };
    // The task id is unknown, or the task is older than DashScope keeps tasks (24 hours).
    case 'UNKNOWN':
      return { state: 'failed', detail: 'UNKNOWN: the task is unknown or expired' };
    case 'SUCCEEDED': {
      const files = taskFiles(out);
      if (files.length) return { state: 'succeeded', files };
      const firstError = Array.isArray(out.results) ? (out.results as unknown[]).find((r) => !!r && typeof r === 'object' && 'code' in r) : undefined;
      const err = firstError as { code?: unknown; message?: unknown } | undefined;
      return { state: 'failed', detail: [short(err?.code), short(err?.message)].filter(Boolean).join(': ') || 'the task succeeded without outputs' };
    }
    default:
      throw new ProviderProtocolError(`unknown task status ${JSON.stringify(out.task_status)}`);
  }
}

/** Output links of a finished task: `results[].url` (results that failed are skipped), `video_url`, `result_url`, `audio.url`. */
function taskFiles(out: Record<string, unknown>): ProviderFile[] {
  const files: ProviderFile[] = [];
  if (Array.isArray(out.results)) {
    for (const r of out.results as unknown[]) {
      const url = r && typeof r === 'object' ? (r as { url?: unknown }).url : undefined;
      if (typeof url === 'string' && url) files.push({ url });
    }
  }
  for (const url of [out.video_url, out.result_url, (out.audio as { url?: unknown } | undefined)?.url]) {
    if (typeof url === 'string' && url) files.push({ url });
  }
  return files;
}

/** A speech answer (Qwen-TTS, CosyVoice over HTTP): `output.audio.url`, or its base64 `data`. */
export function readSpeech(body: unknown): ProviderJobStatus {
  const audio = object(output(body, 'speech answer').audio, 'audio');
  if (typeof audio.url === 'string' && audio.url) return { state: 'succeeded', files: [{ url: audio.url }] };
  if (typeof audio.data === 'string' && audio.data) return { state: 'succeeded', files: [{ base64: audio.data }] };
  return { state: 'failed', detail: 'the speech answer has no audio' };
}

/** A `list_voice` answer for the task's prefix: the one voice's review status. */
export function readVoiceList(body: unknown): ProviderJobStatus {
  const list = output(body, 'voice list').voice_list;
  if (!Array.isArray(list)) throw new ProviderProtocolError('the voice list answer has no voice_list');
  if (list.length === 0) return { state: 'failed', detail: 'the cloned voice is not listed (deleted at DashScope?)' };
  if (list.length > 1) throw new ProviderProtocolError(`${list.length} voices carry the task's prefix`);
  const voice = object(list[0], 'voice');
  const voiceId = short(voice.voice_id);
  if (!voiceId) throw new ProviderProtocolError('the listed voice has no voice_id');
  switch (voice.status) {
    case 'DEPLOYING':
      return { state: 'running' };
    case 'OK':
      return { state: 'succeeded', files: [], voiceId };
    case 'UNDEPLOYED':
      return { state: 'failed', detail: 'UNDEPLOYED: the voice did not pass review' };
    default:
      throw new ProviderProtocolError(`unknown voice status ${JSON.stringify(voice.status)}`);
  }
}

export const dashscopeAdapter: ProviderAdapter = {
  type: 'dashscope',

  // No idempotency key, and a task cannot be found by anything of ours: sending the create
  // request again could start (and bill) a second task.
  lostAnswer: 'fail',

  /** Speech is answered at once; image and video tasks, and voice reviews, are polled. */
  synchronous: (job) => dashscopeService(job.capability, job.supplierModel).kind === 'speech',

  auth: (credential) => ({ authorization: `Bearer ${credential}` }),

  /** The model read, `GET /api/v1/models/{model}` (CONTRACT §14): it reads, never runs. */
  probe: (supplierModel): ProviderRequest => ({ method: 'GET', url: `/api/v1/models/${encodeURIComponent(supplierModel)}` }),

  /**
   * Tasks: the service path with `X-DashScope-Async: enable` and `{model, input,
   * parameters}` (the route gives `{input, parameters}`). Speech: the same body, answered at
   * once. Voice cloning: `create_voice` for the route's model as `target_model`.
   */
  submit(job: RouteJob): ProviderRequest {
    const service = dashscopeService(job.capability, job.supplierModel);
    if (service.kind === 'voice') return customization(createVoiceInput(job));
    const body = { ...job.input, model: job.supplierModel };
    if (service.kind === 'speech') return { method: 'POST', url: service.path, body };
    return { method: 'POST', url: service.path, body, headers: { 'X-DashScope-Async': 'enable' } };
  },

  accepted(answer: ProviderAnswer, job: RouteJob): Accepted {
    const service = dashscopeService(job.capability, job.supplierModel);
    if (service.kind === 'voice') {
      const voiceId = short(output(answer.json, 'create_voice answer').voice_id);
      if (!voiceId) throw new ProviderProtocolError('the create_voice answer has no voice_id');
      return { remoteId: voiceId };
    }
    if (service.kind === 'speech') {
      const body = object(answer.json, 'speech answer');
      return { remoteId: short(body.request_id) ?? `sync-${job.taskId}`, status: readSpeech(body) };
    }
    const out = output(answer.json, 'submit answer');
    const taskId = short(out.task_id);
    if (!taskId) throw new ProviderProtocolError('the submit answer has no task_id');
    return { remoteId: taskId, ...(typeof out.task_status === 'string' ? { status: readTask(answer.json) } : {}) };
  },

  /** Tasks: `GET /api/v1/tasks/{id}`. A cloned voice: `list_voice` with the task's prefix. */
  status(remoteId: string, job: RouteJob): ProviderRequest {
    if (dashscopeService(job.capability, job.supplierModel).kind === 'voice') {
      return customization({ action: 'list_voice', prefix: voicePrefix(job.taskId), page_index: 0, page_size: 10 });
    }
    return { method: 'GET', url: `/api/v1/tasks/${encodeURIComponent(remoteId)}` };
  },

  readStatus(answer: ProviderAnswer, job: RouteJob): ProviderJobStatus {
    if (dashscopeService(job.capability, job.supplierModel).kind === 'voice') return readVoiceList(answer.json);
    return readTask(answer.json);
  },

  /** Tasks only (`POST …/cancel`, honoured while `PENDING`); speech and voice reviews cannot be canceled. */
  cancel(remoteId: string, job: RouteJob): ProviderRequest | null {
    if (dashscopeService(job.capability, job.supplierModel).kind !== 'task') return null;
    return { method: 'POST', url: `/api/v1/tasks/${encodeURIComponent(remoteId)}/cancel` };
  },

  /**
   * A 2xx answers a task that was `PENDING`: it is canceled. A task past `PENDING` is
   * answered with an error (`UnsupportedOperation`), which the channel reads as refused.
   */
  readCancel(answer: ProviderAnswer): CancelReading {
    object(answer.json, 'cancel answer');
    return 'canceled';
  },

  deleteVoice: (voiceId: string): ProviderRequest => customization({ action: 'delete_voice', voice_id: voiceId }),
};
