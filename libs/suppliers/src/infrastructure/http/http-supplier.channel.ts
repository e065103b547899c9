import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AppError } from '@gensvc/kernel';
import { OutputDownloadError, openOutput } from '../../application/providers/output-download';
import type { Catalogue } from '@gensvc/catalogue/contracts';
import type { SupplierJobOutput } from '../../contracts/supplier-gateway';
import type { JobInfo } from '../../domain/supplier-job';
import type { JobResources } from '../../application/job-outputs';
import { MAX_INPUT_BYTES } from '../../application/job-outputs';
import { JobInputError, SupplierChannel, type ActiveJob, type CallbackReceiver, type JobContext, type StepResult } from '../../application/supplier-channel';
import type { HttpChannelConfig } from '../../supplier-settings';
import type { CallbackTokens } from './callback-security';

/** A supplier answer worth trying again: 5xx, 408, 429, a network error or a timeout. */
export class RetryableSupplierError extends Error {
  override name = 'RetryableSupplierError';
}
/** A definite refusal (another 4xx) or an answer that breaks the protocol. */
export class SupplierRejection extends Error {
  override name = 'SupplierRejection';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A job's state as the supplier reports it (status answer and callback body). */
export interface RemoteJobStatus {
  readonly status: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
  readonly output?: {
    readonly text?: string;
    readonly voice_id?: string;
    readonly files?: readonly { readonly name?: string; readonly mime?: string; readonly content_base64?: string; readonly url?: string }[];
  };
  readonly error?: { readonly code?: string; readonly message?: string };
}

const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

export function parseRemoteStatus(value: unknown): RemoteJobStatus {
  if (!value || typeof value !== 'object') throw new SupplierRejection('status answer is not an object');
  const v = value as Record<string, unknown>;
  if (typeof v.status !== 'string' || !STATUSES.includes(v.status)) throw new SupplierRejection('status answer has no valid status');
  if (v.output !== undefined && (typeof v.output !== 'object' || v.output === null)) throw new SupplierRejection('status answer has an invalid output');
  const out = v.output as Record<string, unknown> | undefined;
  if (out?.files !== undefined && !Array.isArray(out.files)) throw new SupplierRejection('output.files must be an array');
  return v as unknown as RemoteJobStatus;
}

const SAFE_FILE_NAME = /^[\p{L}\p{N} ._()-]{1,200}$/u;

/** The short code of an output that cannot be stored for good, or null when trying again may help. */
function refusedOutput(err: unknown): string | null {
  if (err instanceof OutputDownloadError) return err.retry ? null : err.code;
  if (err instanceof AppError && ['UNSUPPORTED_MEDIA_TYPE', 'FILE_TYPE_MISMATCH', 'INVALID_TEXT', 'INVALID_JSON', 'PAYLOAD_TOO_LARGE'].includes(err.code)) return err.code.toLowerCase();
  return null;
}

/**
 * An external supplier over HTTP (libs/suppliers/PROTOCOL.md): submits with an idempotent
 * `PUT /jobs/{task_id}` that carries a service-generated callback address, takes results
 * from signed callbacks (see ReceiveCallbackHandler) and, when none comes, by polling
 * `GET /jobs/{task_id}`; retries 5xx, 408, 429, network errors and timeouts with
 * exponential backoff; asks `POST /jobs/{task_id}/cancel` to cancel. Input assets travel
 * as bytes inside the request: it never hands out a link to the service's own files (a
 * supplier could not reach one on a local PUBLIC_BASE_URL, CONTRACT §7).
 */
export class HttpSupplierChannel extends SupplierChannel {
  private readonly logger: Logger;
  readonly name: string;
  override readonly deadlineMs?: number;
  override readonly callbacks: CallbackReceiver<RemoteJobStatus>;

  constructor(
    readonly config: HttpChannelConfig,
    private readonly catalogue: Catalogue,
    private readonly resources: JobResources,
    private readonly tokens: CallbackTokens,
    private readonly publicBaseUrl: string,
    private readonly outputMaxBytes = MAX_INPUT_BYTES,
  ) {
    super();
    this.name = config.name;
    this.deadlineMs = config.deadlineMs;
    this.logger = new Logger(`Supplier:${config.name}`);
    this.callbacks = {
      secret: config.callbackSecret,
      pollIntervalMs: config.pollIntervalMs,
      parse: parseRemoteStatus,
      apply: (job, status, ctx) => this.apply(job, status, ctx),
    };
  }

  callbackUrl(taskId: string): string {
    return `${this.publicBaseUrl}/v1/supplier-callbacks/${this.tokens.seal(taskId)}`;
  }

  backoff(attempt: number): number {
    const base = Math.min(this.config.retryMaxMs, this.config.retryBaseMs * 2 ** Math.max(0, attempt - 1));
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }

  async step(state: ActiveJob, ctx: JobContext): Promise<StepResult> {
    const rt = ctx.runtime;
    const now = Date.now();
    if (state.status === 'queued') {
      if (typeof rt.submitAt === 'number' && now < rt.submitAt) return { inMs: rt.submitAt - now };
      try {
        await this.submit(state.job, ctx.signal);
      } catch (err) {
        if (err instanceof JobInputError) {
          await ctx.record({ type: 'FailJob', data: { error: { code: 'INVALID_INPUT', message: err.message } } });
          return 'done';
        }
        if (err instanceof SupplierRejection) {
          this.logger.warn({ taskId: state.job.taskId, status: err.status, reason: err.message }, 'supplier refused the job');
          await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_REJECTED', message: 'the supplier refused the job' } } });
          return 'done';
        }
        if (!(err instanceof RetryableSupplierError)) throw err;
        const attempt = ((rt.submitAttempts as number | undefined) ?? 0) + 1;
        rt.submitAttempts = attempt;
        const wait = this.backoff(attempt);
        rt.submitAt = now + wait;
        this.logger.warn({ taskId: state.job.taskId, attempt, retryInMs: wait, reason: err.message }, 'submitting to the supplier failed; retrying');
        return { inMs: wait };
      }
      const after = await ctx.record({ type: 'DispatchJob', data: {} });
      if (after.status === 'canceled') {
        // Canceled while the supplier took it: tell the supplier, best effort.
        await this.requestRemoteCancel(state.job.taskId, ctx.signal).catch(() => undefined);
        return 'done';
      }
      if (after.status !== 'dispatched') return 'done';
      rt.dispatchedSeen = Date.now();
      rt.pollAt = Date.now() + this.config.pollAfterMs;
      return { inMs: this.config.pollAfterMs };
    }

    rt.dispatchedSeen ??= now;
    rt.pollAt ??= (rt.dispatchedSeen as number) + this.config.pollAfterMs;
    let next = rt.pollAt as number;

    if (state.cancel === 'checking') {
      const checking = (rt.checkingSeen ??= now) as number;
      if (now - checking >= this.config.cancelTimeoutMs) {
        const after = await ctx.record({ type: 'ResolveCancel', data: { outcome: 'unconfirmed' } });
        if (after.status !== 'dispatched') return 'done';
      } else if (typeof rt.cancelAt !== 'number' || now >= rt.cancelAt) {
        try {
          const answer = await this.requestRemoteCancel(state.job.taskId, ctx.signal);
          if (answer === 'canceled' || answer === 'refused') {
            const after = await ctx.record({ type: 'ResolveCancel', data: { outcome: answer } });
            if (after.status !== 'dispatched') return 'done';
          } else {
            // pending: learn the outcome from the job's status soon
            rt.cancelAt = Infinity;
            rt.pollAt = Math.min(next, now + Math.min(this.config.pollIntervalMs, 1000));
          }
        } catch (err) {
          if (err instanceof SupplierRejection) {
            const after = await ctx.record({ type: 'ResolveCancel', data: { outcome: 'unconfirmed' } });
            if (after.status !== 'dispatched') return 'done';
          } else if (err instanceof RetryableSupplierError) {
            const attempt = ((rt.cancelAttempts as number | undefined) ?? 0) + 1;
            rt.cancelAttempts = attempt;
            rt.cancelAt = now + this.backoff(attempt);
          } else throw err;
        }
      }
      next = Math.min(rt.pollAt as number, typeof rt.cancelAt === 'number' && Number.isFinite(rt.cancelAt) ? rt.cancelAt : Infinity, checking + this.config.cancelTimeoutMs);
    }

    if (now >= (rt.pollAt as number)) {
      try {
        const remote = await this.fetchStatus(state.job.taskId, ctx.signal);
        rt.pollAttempts = 0;
        rt.pollAt = Date.now() + this.config.pollIntervalMs;
        if (await this.apply(state, remote, ctx)) return 'done';
      } catch (err) {
        if (err instanceof SupplierRejection && err.status === 404) {
          await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_ERROR', message: 'the supplier lost the job' } } });
          return 'done';
        }
        if (!(err instanceof RetryableSupplierError) && !(err instanceof SupplierRejection)) throw err;
        const attempt = ((rt.pollAttempts as number | undefined) ?? 0) + 1;
        rt.pollAttempts = attempt;
        rt.pollAt = Date.now() + this.backoff(attempt);
        this.logger.warn({ taskId: state.job.taskId, attempt, reason: err.message }, 'polling the supplier failed; retrying');
      }
      next = Math.min(rt.pollAt as number, state.cancel === 'checking' && typeof rt.cancelAt === 'number' ? rt.cancelAt : Infinity);
    }
    return { inMs: Math.max(0, next - Date.now()) };
  }

  /**
   * Records what the supplier reports (from a poll or a callback); true when the job ended.
   * Outputs are stored before the outcome is recorded; storing is idempotent per index, so
   * a retry after a failure stores nothing twice.
   */
  async apply(state: ActiveJob, remote: RemoteJobStatus, ctx: Pick<JobContext, 'record' | 'signal'>): Promise<boolean> {
    switch (remote.status) {
      case 'queued':
      case 'running':
        return false;
      case 'succeeded': {
        let output: SupplierJobOutput;
        try {
          output = await this.materialize(state.job, remote, ctx.signal);
        } catch (err) {
          const refused = refusedOutput(err);
          if (!refused) throw err;
          // A link that answers 4xx, an address outside the allowed hosts or a file type the
          // service does not serve will not get better: the job fails (nothing charged).
          this.logger.warn({ taskId: state.job.taskId, code: refused }, 'an output of the supplier could not be stored; failing the job');
          await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_ERROR', message: `an output of the supplier could not be stored (${refused})` } } });
          return true;
        }
        await ctx.record({ type: 'CompleteJob', data: { output } });
        return true;
      }
      case 'failed': {
        const code = remote.error?.code && /^[A-Za-z0-9_.-]{1,60}$/.test(remote.error.code) ? ` (${remote.error.code})` : '';
        await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_ERROR', message: `the supplier could not complete the job${code}` } } });
        return true;
      }
      case 'canceled': {
        if (state.status === 'dispatched' && state.cancel !== 'none') {
          const after = await ctx.record({ type: 'ResolveCancel', data: { outcome: 'canceled' } });
          return after.status !== 'dispatched';
        }
        await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_CANCELED', message: 'the supplier dropped the job' } } });
        return true;
      }
    }
  }

  override async abandon(job: JobInfo, signal: AbortSignal): Promise<void> {
    await this.requestRemoteCancel(job.taskId, signal);
  }

  override async deleteVoice(supplierVoiceId: string, signal: AbortSignal): Promise<void> {
    // 5xx and timeouts throw (the deletion is retried); a 404 means already gone.
    const res = await this.request('DELETE', `/voices/${encodeURIComponent(supplierVoiceId)}`, undefined, signal);
    if (res.status >= 300 && res.status !== 404) this.logger.warn({ status: res.status }, 'the supplier refused to delete a voice; deleting it here only');
  }

  async submit(job: JobInfo, signal: AbortSignal): Promise<void> {
    const model = this.catalogue.model(job.model);
    if (!model) throw new JobInputError(`model ${job.model} is no longer in the catalogue`);
    const input: Record<string, unknown> = { ...job.params };
    delete input.asset_ids;
    const files: { name: string; mime: string; size: number; sha256: string; content_base64: string }[] = [];
    if (Array.isArray(job.params.asset_ids) && job.params.asset_ids.length) {
      for (const { asset, body } of await this.resources.inputAssets(job, job.params.asset_ids as string[])) {
        files.push({ name: asset.name, mime: asset.mime, size: asset.size, sha256: asset.checksum, content_base64: body.toString('base64') });
      }
    }
    if (typeof job.params.voice_id === 'string') input.voice_id = await this.resources.voice(job, job.params.voice_id);
    const res = await this.request(
      'PUT',
      `/jobs/${encodeURIComponent(job.taskId)}`,
      { model: model.supplier_model, capability: job.capability, input, files, callback_url: this.callbackUrl(job.taskId) },
      signal,
    );
    if (res.status < 200 || res.status > 299) throw new SupplierRejection(`submit answered ${res.status}`, res.status);
  }

  async fetchStatus(taskId: string, signal: AbortSignal): Promise<RemoteJobStatus> {
    const res = await this.request('GET', `/jobs/${encodeURIComponent(taskId)}`, undefined, signal);
    if (res.status !== 200) throw new SupplierRejection(`status answered ${res.status}`, res.status);
    return parseRemoteStatus(res.json);
  }

  /** 'canceled' | 'refused' | 'pending' as the supplier answers. */
  async requestRemoteCancel(taskId: string, signal: AbortSignal): Promise<'canceled' | 'refused' | 'pending'> {
    const res = await this.request('POST', `/jobs/${encodeURIComponent(taskId)}/cancel`, {}, signal);
    if (res.status === 404) return 'canceled'; // the supplier does not hold it
    if (res.status < 200 || res.status > 299) throw new SupplierRejection(`cancel answered ${res.status}`, res.status);
    const status = (res.json as { status?: unknown } | null)?.status;
    if (status === 'canceled' || status === 'refused' || status === 'pending') return status;
    throw new SupplierRejection('cancel answer has no valid status');
  }

  private async materialize(job: JobInfo, remote: RemoteJobStatus, signal: AbortSignal): Promise<SupplierJobOutput> {
    const files = remote.output?.files ?? [];
    const ids: string[] = [];
    let index = 0;
    for (const f of files) {
      const mime = typeof f.mime === 'string' && /^[a-z]+\/[a-z0-9.+-]+$/i.test(f.mime) ? f.mime.toLowerCase() : 'application/octet-stream';
      const name = typeof f.name === 'string' && SAFE_FILE_NAME.test(f.name) ? f.name : `output-${index + 1}`;
      if (typeof f.content_base64 === 'string') {
        const body = Buffer.from(f.content_base64, 'base64');
        if (body.length > MAX_INPUT_BYTES) throw new SupplierRejection('an output file is too large');
        ids.push(await this.resources.storeOutput(job, index, name, mime, body));
      } else if (typeof f.url === 'string') {
        const { body, contentType } = await this.download(f.url, signal);
        ids.push(await this.resources.storeOutput(job, index, name, contentType ?? mime, body, this.outputMaxBytes));
      } else throw new SupplierRejection('an output file has neither content_base64 nor url');
      index++;
    }
    const text = typeof remote.output?.text === 'string' ? remote.output.text : undefined;
    if (text !== undefined && files.length === 0) ids.push(await this.resources.storeOutput(job, index++, 'output.txt', 'text/plain', Buffer.from(text, 'utf8')));
    let voiceId: string | undefined;
    if (job.capability === 'voice.clone') {
      const supplierVoiceId = remote.output?.voice_id;
      if (typeof supplierVoiceId !== 'string' || !supplierVoiceId) throw new SupplierRejection('a voice.clone result carries no voice_id');
      const name = typeof job.params.name === 'string' && job.params.name.trim() ? job.params.name.trim() : 'Cloned voice';
      voiceId = await this.resources.registerVoice(job, supplierVoiceId, name);
    }
    return { asset_ids: ids, ...(text !== undefined ? { text } : {}), ...(voiceId ? { voice_id: voiceId } : {}) };
  }

  /**
   * Opens an output file the supplier links to, streamed (never whole in memory): the
   * channel's own origin is trusted as configured; any other address must be https on port
   * 443 and pass the import guard (no loopback, private or metadata address), checked at
   * every redirect. A 4xx or a refused address is final; 5xx, 429 and broken connections
   * are retried by the caller's backoff.
   */
  private async download(url: string, signal: AbortSignal): Promise<{ body: IncomingMessage; contentType: string | null }> {
    const base = new URL(this.config.baseUrl);
    try {
      return await openOutput(
        url,
        {
          trusts: (u) => u.origin === base.origin,
          headersFor: (u): Record<string, string> => (u.origin === base.origin && this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
          connectTimeoutMs: this.config.requestTimeoutMs,
        },
        signal,
      );
    } catch (err) {
      if (err instanceof OutputDownloadError && err.retry) throw new RetryableSupplierError(`output download failed (${err.code})`);
      throw err;
    }
  }

  private async request(method: string, path: string, body: unknown, signal: AbortSignal): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'PUT') headers['idempotency-key'] = path;
    const res = await this.fetchWithTimeout(`${this.config.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }, signal);
    if (res.status >= 500 || res.status === 408 || res.status === 429) {
      await res.body?.cancel().catch(() => undefined);
      throw new RetryableSupplierError(`${method} ${path.split('/')[1]} answered ${res.status}`);
    }
    let json: unknown = null;
    const text = await res.text().catch(() => '');
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        if (res.status >= 200 && res.status < 300 && method !== 'PUT') throw new SupplierRejection('answer is not JSON', res.status);
      }
    }
    return { status: res.status, json };
  }

  private async fetchWithTimeout(url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(this.config.requestTimeoutMs);
    try {
      return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.any([signal, timeout]) });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new RetryableSupplierError(timeout.aborted ? `request timed out after ${this.config.requestTimeoutMs} ms` : `request failed: ${(err as Error).message}`);
    }
  }
}
