import { Logger } from '@nestjs/common';
import { Catalogue, ROUTED, type CatalogueRoute } from '@gensvc/catalogue/contracts';
import { AppError } from '@gensvc/kernel';
import type { SupplierJobOutput } from '../../contracts/supplier-gateway';
import type { JobInfo, RemoteJob } from '../../domain/supplier-job';
import { planSubmit, resendDelayMs, routeKey } from '../../domain/route-failover';
import type { SupplierSettings } from '../../supplier-settings';
import type { JobResources } from '../job-outputs';
import { JobInputError, SupplierChannel, type ActiveJob, type CallbackReceiver, type JobContext, type StepResult } from '../supplier-channel';
import { OutputDownloadError, openOutput } from './output-download';
import { ProviderProtocolError, type ProviderAnswer, type ProviderJobStatus, type RouteJob, type WebhookReading } from './provider-adapter';
import { ProviderUnreachable } from './provider-client';
import { fileName, providerDetail, retryAfterMs } from './provider-answers';
import { StatusSweeper } from './status-sweeper';
import type { ProviderChannel, ProviderChannels } from './provider-channels';
import { RouteMappingError, routeInput } from './route-input';

/** Mints the service-generated callback address of a job. */
export interface CallbackAddresses {
  url(taskId: string): string;
}

/** Whether routes' probes passed, as the route prober last saw them. */
export interface RouteHealth {
  passed(channel: string, supplierModel: string): boolean;
}


/** An output that could not be archived for good (a 4xx on its link, a type the service does not serve). */
class OutputRefused extends Error {
  constructor(readonly code: string) {
    super(`an output file could not be archived (${code})`);
  }
}

/** A step to take again later (a 5xx, a 429, a broken connection), after `retryAfterMs` when the provider said. */
class TryLater extends Error {
  constructor(
    readonly code: string,
    readonly retryAfterMs?: number,
  ) {
    super(`try again later (${code})`);
  }
}

type Dispatched = Extract<ActiveJob, { status: 'dispatched' }>;

/** When a cancellation is to be asked of the provider again (Infinity: asked, or not due). */
const pendingCancelAt = (rt: JobContext['runtime']): number => (typeof rt.cancelAt === 'number' && Number.isFinite(rt.cancelAt) ? rt.cancelAt : Infinity);
type Queued = Extract<ActiveJob, { status: 'queued' }>;

/**
 * Runs the jobs of catalogue models that have `routes` on real providers (CONTRACT §14),
 * once for every provider: the adapters only translate.
 *
 * Submitting: routes in priority order (those whose last probe passed first). Before the
 * create request goes out the job is marked `submitting` on its stream; the provider's
 * answer then records `dispatched` (with the provider's job id) or `not taken` (429, 5xx,
 * 401/403, 404, a refused connection: retried with backoff honouring `Retry-After`, and
 * after 3 attempts or 30 seconds on a route the next route is tried). A refusal of the input
 * (400, 422, other 4xx) fails the task with SUPPLIER_REJECTED. An answer lost after the
 * request went out (timeout, reset, a crash while `submitting`) is never resent blindly:
 * providers whose create request carries an idempotency key are asked again with it, the
 * others fail the task with SUPPLIER_ERROR (nothing is charged).
 *
 * Following: the provider's signed webhooks where the channel has a `webhook_secret`, and
 * polls every `poll_interval_ms` within the channel's request budget. On success every
 * output file is streamed from the provider into the blob store (type checked, allowed
 * hosts only) before the job records `succeeded`; text outputs become `output.txt`.
 * Failures record SUPPLIER_ERROR without the provider's message. Cancellation asks the
 * provider and records what it says.
 */
export class RoutedChannel extends SupplierChannel {
  private readonly logger = new Logger('ProviderJobs');
  readonly name = ROUTED;
  override readonly deadlineMs?: number;
  override readonly callbacks: CallbackReceiver<ProviderJobStatus>;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly providers: ProviderChannels,
    private readonly resources: JobResources,
    private readonly addresses: CallbackAddresses,
    private readonly health: RouteHealth,
    private readonly settings: Pick<SupplierSettings, 'outputMaxBytes'> & { readonly inputsAsData: boolean },
  ) {
    super();
    const deadlines = providers
      .all()
      .map((c) => c.config.deadlineMs)
      .filter((d): d is number => d !== undefined);
    this.deadlineMs = deadlines.length ? Math.max(...deadlines) : undefined;
    const shortestPoll = Math.min(...providers.all().map((c) => c.config.pollIntervalMs), 60_000);
    this.callbacks = {
      pollIntervalMs: shortestPoll,
      verify: (job, headers, body, nowMs) => this.verifyWebhook(job, headers, body, nowMs),
      parse: (document, job) => this.readWebhook(document, job),
      apply: (job, status, ctx) => this.applyWebhook(job, status, ctx),
    };
  }

  async step(state: ActiveJob, ctx: JobContext): Promise<StepResult> {
    return state.status === 'queued' ? this.submitStep(state, ctx) : this.followStep(state, ctx);
  }

  override async abandon(job: JobInfo, signal: AbortSignal, remote?: RemoteJob | null): Promise<void> {
    if (!remote) return;
    const channel = this.providers.get(remote.channel);
    const request = channel?.adapter.cancel(remote.remoteId, this.followJob(job, remote));
    if (channel && request) await channel.client.send(request, signal, 'cancel');
  }

  /** Provider voices are deleted through their own channel (ChannelVoiceRemover), not through this one. */
  override async deleteVoice(): Promise<void> {
    return undefined;
  }

  // ---- submitting ---------------------------------------------------------------------

  /** The routes a job may run on now, in the order to try them. */
  private routesFor(job: JobInfo): { route: CatalogueRoute; index: number; channel: ProviderChannel }[] {
    const model = this.catalogue.model(job.model);
    const all = (model?.routes ?? []).flatMap((route, index) => {
      const channel = this.providers.get(route.channel);
      return channel ? [{ route, index, channel }] : [];
    });
    const passing = all.filter((r) => this.health.passed(r.route.channel, r.route.supplier_model));
    return [...passing, ...all.filter((r) => !passing.includes(r))];
  }

  private async submitStep(state: Queued, ctx: JobContext): Promise<StepResult> {
    const job = state.job;
    const routes = this.routesFor(job);
    const now = ctx.now().getTime();
    const plan = planSubmit(
      state,
      routes.map((r) => ({ channel: r.channel.name, route: r.index, resendsLostAnswers: r.channel.adapter.lostAnswer === 'resend' })),
      now,
    );
    switch (plan.kind) {
      case 'lost':
        return this.lost(ctx, plan.channel);
      case 'exhausted':
        await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_UNAVAILABLE', message: 'no route of the model could take the job' } } });
        return 'done';
      case 'wait':
        return { inMs: plan.untilMs - now };
      case 'submit':
        break;
    }
    const { route, index, channel } = routes.find((r) => r.index === plan.option.route && r.channel.name === plan.option.channel)!;
    let routeJob: RouteJob;
    try {
      routeJob = await this.routeJob(job, route, channel);
    } catch (err) {
      if (err instanceof RouteMappingError || err instanceof VoiceElsewhere) {
        if (err instanceof RouteMappingError) this.logger.error({ taskId: job.taskId, model: job.model, route: index, reason: err.message }, 'a route input_map failed; trying the next route');
        await ctx.record({ type: 'SkipRoute', data: { channel: channel.name, route: index, reason: err instanceof RouteMappingError ? 'input_map' : 'voice_elsewhere' } });
        return { inMs: 0 };
      }
      if (err instanceof JobInputError) {
        await ctx.record({ type: 'FailJob', data: { error: { code: 'INVALID_INPUT', message: err.message } } });
        return 'done';
      }
      throw err;
    }
    let submitting = state.submitting;
    if (!plan.resend) {
      const marked = await ctx.record({ type: 'BeginSubmit', data: { channel: channel.name, route: index } });
      if (marked.status !== 'queued' || !marked.submitting) return 'done'; // canceled meanwhile
      submitting = marked.submitting;
    }
    let answer: ProviderAnswer;
    try {
      answer = await channel.client.send(channel.adapter.submit(routeJob), ctx.signal, 'submit');
    } catch (err) {
      if (!(err instanceof ProviderUnreachable)) throw err;
      if (err.kind === 'lost') {
        // The request went out and its answer is lost: send it again later with its idempotency key, or fail.
        if (channel.adapter.lostAnswer !== 'resend') return this.lost(ctx, channel.name);
        return { inMs: resendDelayMs(submitting!, ctx.now().getTime()) };
      }
      await ctx.record({ type: 'SubmitNotTaken', data: { route: index, reason: err.code } });
      return { inMs: 0 };
    }
    if (answer.status >= 200 && answer.status < 300) return this.taken(ctx, channel, route, index, routeJob, answer);
    const code = `http_${answer.status}`;
    if (answer.status === 400 || answer.status === 422 || (answer.status < 500 && ![401, 403, 404, 408, 409, 429].includes(answer.status))) {
      await ctx.record({ type: 'SubmitNotTaken', data: { route: index, reason: code, route_unusable: true } });
      this.logger.warn({ taskId: job.taskId, channel: channel.name, status: answer.status, detail: providerDetail(answer) }, 'the provider refused the job');
      await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_REJECTED', message: 'the supplier refused the job' } } });
      return 'done';
    }
    this.logger.warn({ taskId: job.taskId, channel: channel.name, status: answer.status }, 'the provider did not take the job');
    // 404: the provider does not know the model, so this route cannot run it.
    const after = await ctx.record({ type: 'SubmitNotTaken', data: { route: index, reason: code, route_unusable: answer.status === 404, retry_after_ms: retryAfterMs(answer) } });
    if (after.status === 'queued' && after.routes[routeKey(channel.name, index)]?.spent) this.logger.warn({ taskId: job.taskId, channel: channel.name, code }, 'a route could not take the job; trying the next route');
    return { inMs: 0 };
  }

  private async taken(ctx: JobContext, channel: ProviderChannel, route: CatalogueRoute, index: number, routeJob: RouteJob, answer: ProviderAnswer): Promise<StepResult> {
    let accepted;
    try {
      accepted = channel.adapter.accepted(answer, routeJob);
    } catch (err) {
      if (!(err instanceof ProviderProtocolError)) throw err;
      this.logger.error({ taskId: routeJob.taskId, channel: channel.name, reason: err.message }, 'the provider took the job but its answer could not be read');
      return this.lost(ctx, channel.name);
    }
    const after = await ctx.record({
      type: 'DispatchJob',
      data: { channel: channel.name, route: index, supplier_model: route.supplier_model, remote_id: accepted.remoteId, ...(route.unit_cost ? { unit_cost: route.unit_cost } : {}) },
    });
    if (after.status === 'canceled') {
      // Canceled while the provider took it: tell the provider, best effort.
      const request = channel.adapter.cancel(accepted.remoteId, routeJob);
      if (request) await channel.client.send(request, ctx.signal, 'cancel').catch(() => undefined);
      return 'done';
    }
    if (after.status !== 'dispatched') return 'done';
    if (accepted.status) {
      // A synchronous answer carries the result, and only this answer does: archive it now,
      // trying a broken download a few times before failing the job.
      for (let attempt = 1; ; attempt++) {
        try {
          if (await this.apply(after, accepted.status, ctx, channel, routeJob)) return 'done';
          break;
        } catch (err) {
          if (err instanceof OutputRefused) return 'done';
          if (!(err instanceof TryLater) || attempt >= 3) {
            if (channel.adapter.synchronous?.(routeJob)) return this.lost(ctx, channel.name);
            throw err;
          }
          await new Promise((r) => setTimeout(r, err.retryAfterMs ?? 1000 * attempt));
        }
      }
    }
    ctx.runtime.pollAt = Date.now() + channel.config.pollIntervalMs;
    return { inMs: channel.config.pollIntervalMs };
  }

  /** The answer to a create request is lost and cannot be asked again: fail, charging nothing. */
  private async lost(ctx: JobContext, channel: string): Promise<StepResult> {
    this.logger.warn({ channel }, "the provider's answer to a job was lost; failing the task without charging");
    await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_ERROR', message: 'the supplier did not confirm the job; nothing was charged' } } });
    return 'done';
  }

  /** The job as the route's provider sees it: mapped input, input files as links, the provider's voice id. */
  private async routeJob(job: JobInfo, route: CatalogueRoute, channel: ProviderChannel): Promise<RouteJob> {
    const params: Record<string, unknown> = { ...job.params };
    if (Array.isArray(params.asset_ids)) params.asset_ids = params.asset_ids.length ? await this.resources.inputLinks(job, params.asset_ids as string[], this.settings.inputsAsData) : [];
    if (typeof params.voice_id === 'string') {
      try {
        params.voice_id = await this.resources.voice(job, params.voice_id, channel.name);
      } catch (err) {
        // A voice of another channel: only routes of its own channel may run the job.
        if (err instanceof JobInputError && this.routesFor(job).some((r) => r.channel !== channel)) throw new VoiceElsewhere();
        throw err;
      }
    }
    const input = await routeInput(route, channel.config.type, params, params);
    const webhookUrl = channel.config.webhookSecret && channel.adapter.webhooks ? this.addresses.url(job.taskId) : undefined;
    return { taskId: job.taskId, capability: job.capability, supplierModel: route.supplier_model, input, ...(webhookUrl ? { webhookUrl } : {}) };
  }

  // ---- following ----------------------------------------------------------------------

  private followJob(job: JobInfo, remote: RemoteJob): RouteJob {
    return { taskId: job.taskId, capability: job.capability, supplierModel: remote.supplierModel, input: {} };
  }

  private async followStep(state: Dispatched, ctx: JobContext): Promise<StepResult> {
    const rt = ctx.runtime;
    const remote = state.remote;
    const channel = remote ? this.providers.get(remote.channel) : undefined;
    if (!remote || !channel) {
      await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_UNAVAILABLE', message: 'the channel running the job is no longer configured' } } });
      return 'done';
    }
    const routeJob = this.followJob(state.job, remote);
    // A synchronous job's result came only in the submit answer: found here, it was lost.
    if (channel.adapter.synchronous?.(routeJob)) return this.lost(ctx, channel.name);
    const now = Date.now();
    rt.pollAt ??= now; // after a restart or a hand-over: ask at once
    let next = rt.pollAt as number;

    if (state.cancel === 'checking') {
      const checking = (rt.checkingSeen ??= now) as number;
      if (now - checking >= channel.config.cancelTimeoutMs) {
        const after = await ctx.record({ type: 'ResolveCancel', data: { outcome: 'unconfirmed' } });
        if (after.status !== 'dispatched') return 'done';
      } else if (rt.cancelAt !== Infinity && now >= ((rt.cancelAt as number | undefined) ?? 0)) {
        const outcome = await this.askToCancel(channel, remote, routeJob, ctx).catch((err: unknown) => {
          if (err instanceof TryLater) {
            rt.cancelAt = Date.now() + (err.retryAfterMs ?? 2_000);
            return 'later' as const;
          }
          throw err;
        });
        if (outcome === 'canceled' || outcome === 'refused') {
          const after = await ctx.record({ type: 'ResolveCancel', data: { outcome } });
          if (after.status !== 'dispatched') return 'done';
        } else if (outcome === 'pending') {
          rt.cancelAt = Infinity; // asked: the job's status tells the outcome
          rt.pollAt = Math.min(rt.pollAt as number, now + Math.min(channel.config.pollIntervalMs, 1_000));
        }
      }
      next = Math.min(rt.pollAt as number, pendingCancelAt(rt), checking + channel.config.cancelTimeoutMs);
    }

    if (Date.now() >= (rt.pollAt as number)) {
      try {
        // Where the provider lists its jobs, one list request tells many open jobs' statuses;
        // a job the list did not show is asked for by itself.
        const swept = await this.sweeperOf(channel)?.lookup(remote.remoteId, ctx.signal);
        const status = swept && swept.state !== 'completed' ? swept : await this.statusOf(channel, remote, routeJob, ctx);
        if (status === 'gone') {
          await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_ERROR', message: 'the supplier lost the job' } } });
          return 'done';
        }
        rt.pollAttempts = 0;
        rt.pollAt = Date.now() + channel.config.pollIntervalMs;
        if (await this.apply(state, status, ctx, channel, routeJob)) return 'done';
      } catch (err) {
        if (err instanceof OutputRefused) return 'done';
        if (!(err instanceof TryLater) && !(err instanceof ProviderUnreachable) && !(err instanceof ProviderProtocolError)) throw err;
        const attempt = ((rt.pollAttempts as number | undefined) ?? 0) + 1;
        rt.pollAttempts = attempt;
        const backoff = Math.min(channel.config.pollIntervalMs * 2 ** (attempt - 1), 300_000);
        rt.pollAt = Date.now() + ((err instanceof TryLater ? err.retryAfterMs : undefined) ?? backoff);
        this.logger.warn({ taskId: state.job.taskId, channel: channel.name, attempt, reason: err instanceof ProviderProtocolError ? 'unreadable_status' : (err as TryLater).code }, 'following a provider job failed; retrying');
      }
      next = Math.min(rt.pollAt as number, state.cancel === 'checking' ? pendingCancelAt(rt) : Infinity);
    }
    return { inMs: Math.max(0, next - Date.now()) };
  }

  /** One job's status from the provider ('gone' when the provider does not know it). */
  private async statusOf(channel: ProviderChannel, remote: RemoteJob, routeJob: RouteJob, ctx: JobContext): Promise<ProviderJobStatus | 'gone'> {
    const answer = await channel.client.send(channel.adapter.status(remote.remoteId, routeJob), ctx.signal, 'status');
    if (answer.status === 404) return 'gone';
    if (answer.status < 200 || answer.status > 299) throw new TryLater(`http_${answer.status}`, retryAfterMs(answer));
    return channel.adapter.readStatus(answer, routeJob);
  }

  private readonly sweepers = new Map<string, StatusSweeper>();

  private sweeperOf(channel: ProviderChannel): StatusSweeper | undefined {
    if (!channel.adapter.list || !channel.adapter.readList) return undefined;
    let sweeper = this.sweepers.get(channel.name);
    if (!sweeper) {
      sweeper = new StatusSweeper(channel, this.logger);
      this.sweepers.set(channel.name, sweeper);
    }
    return sweeper;
  }

  private async askToCancel(channel: ProviderChannel, remote: RemoteJob, routeJob: RouteJob, ctx: JobContext): Promise<'canceled' | 'refused' | 'pending'> {
    const request = channel.adapter.cancel(remote.remoteId, routeJob);
    if (!request) return 'refused';
    let answer: ProviderAnswer;
    try {
      answer = await channel.client.send(request, ctx.signal, 'cancel');
    } catch (err) {
      if (err instanceof ProviderUnreachable) throw new TryLater(err.code);
      throw err;
    }
    if (answer.status >= 200 && answer.status < 300) {
      try {
        return channel.adapter.readCancel(answer);
      } catch {
        return 'pending';
      }
    }
    if (answer.status === 429 || answer.status >= 500 || answer.status === 408) throw new TryLater(`http_${answer.status}`, retryAfterMs(answer));
    if (answer.status === 404) return 'pending'; // the status tells whether the job is gone
    return 'refused';
  }

  /** Records what the provider reports (from a poll, a submit answer or a webhook); true when the job ended. */
  private async apply(state: ActiveJob, status: ProviderJobStatus, ctx: Pick<JobContext, 'record' | 'signal'>, channel: ProviderChannel, routeJob: RouteJob): Promise<boolean> {
    switch (status.state) {
      case 'queued':
      case 'running':
        return false;
      case 'completed': {
        if (!channel.adapter.result || !channel.adapter.readResult) throw new ProviderProtocolError('the adapter reads no results');
        const remote = (state as Dispatched).remote!;
        const answer = await channel.client.send(channel.adapter.result(remote.remoteId, routeJob), ctx.signal, 'result');
        if (answer.status < 200 || answer.status > 299) throw new TryLater(`http_${answer.status}`, retryAfterMs(answer));
        const result = channel.adapter.readResult(answer, routeJob);
        if (result.state === 'completed') throw new ProviderProtocolError('the result is not final');
        return this.apply(state, result, ctx, channel, routeJob);
      }
      case 'succeeded': {
        let output: SupplierJobOutput;
        try {
          output = await this.archive(state.job, channel, status, ctx.signal);
        } catch (err) {
          if (!(err instanceof OutputRefused)) throw err;
          this.logger.warn({ taskId: state.job.taskId, channel: channel.name, code: err.code }, 'an output could not be archived; failing the task');
          await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_ERROR', message: `an output of the supplier could not be stored (${err.code})` } } });
          throw err;
        }
        await ctx.record({ type: 'CompleteJob', data: { output } });
        return true;
      }
      case 'failed':
        this.logger.warn({ taskId: state.job.taskId, channel: channel.name, detail: status.detail }, 'the provider failed the job');
        await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_ERROR', message: 'the supplier could not complete the job' } } });
        return true;
      case 'canceled': {
        if (state.status === 'dispatched' && state.cancel !== 'none') {
          const after = await ctx.record({ type: 'ResolveCancel', data: { outcome: 'canceled' } });
          return after.status !== 'dispatched';
        }
        await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_CANCELED', message: 'the supplier dropped the job' } } });
        return true;
      }
      default: {
        const never: never = status;
        throw new ProviderProtocolError(`unknown status ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * Streams every output into the account's assets before success: provider links expire.
   * Retryable download failures throw TryLater (the step retries; outputs already stored
   * are not stored again); a 4xx, a refused address or a file type the service does not
   * serve throws OutputRefused.
   */
  private async archive(job: JobInfo, channel: ProviderChannel, status: Extract<ProviderJobStatus, { state: 'succeeded' }>, signal: AbortSignal): Promise<SupplierJobOutput> {
    const ids: string[] = [];
    let index = 0;
    const policy = {
      trusts: (u: URL) => channel.client.trusts(u),
      headersFor: (u: URL) => (u.origin === new URL(channel.config.baseUrl).origin ? channel.adapter.auth(channel.config.credential) : {}),
      connectTimeoutMs: channel.config.requestTimeoutMs,
    };
    for (const file of status.files) {
      const name = fileName(file, index);
      try {
        if ('base64' in file) ids.push(await this.resources.storeOutput(job, index, name, 'application/octet-stream', Buffer.from(file.base64, 'base64'), this.settings.outputMaxBytes));
        else {
          const { body, contentType } = await openOutput(file.url, policy, signal);
          ids.push(await this.resources.storeOutput(job, index, name, contentType ?? 'application/octet-stream', body, this.settings.outputMaxBytes));
        }
      } catch (err) {
        if (err instanceof OutputDownloadError) {
          if (err.retry) throw new TryLater(err.code, err.retryAfterMs);
          throw new OutputRefused(err.code);
        }
        if (err instanceof AppError && ['UNSUPPORTED_MEDIA_TYPE', 'FILE_TYPE_MISMATCH', 'INVALID_TEXT', 'INVALID_JSON', 'PAYLOAD_TOO_LARGE'].includes(err.code)) {
          throw new OutputRefused(err.code.toLowerCase());
        }
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') throw new TryLater('interrupted'); // the download broke off
        throw err;
      }
      index++;
    }
    if (status.text !== undefined && status.files.length === 0) {
      ids.push(await this.resources.storeOutput(job, index++, 'output.txt', 'text/plain', Buffer.from(status.text, 'utf8'), this.settings.outputMaxBytes));
    }
    let voiceId: string | undefined;
    if (job.capability === 'voice.clone') {
      if (!status.voiceId) throw new OutputRefused('no_voice_id');
      const name = typeof job.params.name === 'string' && job.params.name.trim() ? job.params.name.trim() : 'Cloned voice';
      voiceId = await this.resources.registerVoice(job, status.voiceId, name, channel.name);
    }
    return { asset_ids: ids, ...(status.text !== undefined ? { text: status.text } : {}), ...(voiceId ? { voice_id: voiceId } : {}) };
  }

  // ---- webhooks -----------------------------------------------------------------------

  private verifyWebhook(job: ActiveJob, headers: { get(name: string): string | null }, body: Buffer, nowMs: number): boolean {
    const remote = job.status === 'dispatched' ? job.remote : null;
    const channel = remote ? this.providers.get(remote.channel) : undefined;
    const secret = channel?.config.webhookSecret;
    if (!channel || !secret || !channel.adapter.webhooks) return false;
    return channel.adapter.webhooks.verify(headers, body, secret, Math.floor(nowMs / 1000));
  }

  private readWebhook(document: unknown, job: ActiveJob): ProviderJobStatus {
    const remote = job.status === 'dispatched' ? job.remote : null;
    const channel = remote ? this.providers.get(remote.channel) : undefined;
    if (!remote || !channel?.adapter.webhooks) throw new ProviderProtocolError('no webhooks on this channel');
    const reading: WebhookReading = channel.adapter.webhooks.read(document);
    if (reading.remoteId !== remote.remoteId) throw new ProviderProtocolError('a webhook about another job');
    return reading.status;
  }

  private async applyWebhook(job: ActiveJob, status: ProviderJobStatus, ctx: Pick<JobContext, 'record' | 'signal'>): Promise<boolean> {
    const remote = job.status === 'dispatched' ? job.remote : null;
    const channel = remote ? this.providers.get(remote.channel) : undefined;
    if (!remote || !channel) return false;
    try {
      return await this.apply(job, status, ctx, channel, this.followJob(job.job, remote));
    } catch (err) {
      if (err instanceof OutputRefused) return true;
      throw err;
    }
  }
}

/** A voice of another channel than the route's: the route cannot run the job. */
class VoiceElsewhere extends Error {}
