import { Injectable, Logger } from '@nestjs/common';
import { AppError, type Command } from '@gensvc/kernel';
import { isTerminal, type SupplierJobState } from '../../domain/supplier-job';
import { CallbackTokens, verifyCallback } from '../../infrastructure/http/callback-security';
import { SupplierSettings } from '../../supplier-settings';
import { SupplierJobRunner } from '../submit-job/supplier-job-runner';
import { SupplierChannels, type ActiveJob, type CallbackReceiver } from '../supplier-channel';

/** POST /v1/supplier-callbacks/{token}: the token of the address, the signature headers and the raw body. */
export type ReceiveCallbackCommand = Command<
  'ReceiveCallback',
  {
    readonly token: string;
    readonly timestamp: string | undefined;
    readonly signature: string | undefined;
    /** Every request header (providers sign with headers of their own). */
    readonly headers?: { get(name: string): string | null };
    /**
     * The raw body, or a loader of it: the address and the headers are checked before a byte
     * of the body is read, so strangers cannot make the service buffer large bodies.
     */
    readonly body: Buffer | (() => Promise<Buffer>);
  }
>;

/**
 * Takes results that external suppliers deliver to `/v1/supplier-callbacks/<token>`:
 * opens the token (the task), checks the channel's HMAC signature and the timestamp window
 * over the raw body, then records the reported state like a poll would (serialized with
 * the job's steps). Unknown tokens answer 404, bad signatures 401; a callback for a job
 * that already ended is acknowledged and changes nothing.
 */
@Injectable()
export class ReceiveCallbackHandler {
  private readonly logger = new Logger('SupplierCallbacks');
  private readonly tokens: CallbackTokens;

  constructor(
    private readonly settings: SupplierSettings,
    private readonly channels: SupplierChannels,
    private readonly runner: SupplierJobRunner,
  ) {
    this.tokens = new CallbackTokens(settings.signingSecret);
  }

  async execute(cmd: ReceiveCallbackCommand): Promise<void> {
    const { token, body: bodyOrLoader } = cmd.data;
    const headers = { timestamp: cmd.data.timestamp, signature: cmd.data.signature };
    const taskId = this.tokens.open(token);
    if (!taskId) throw new AppError('NOT_FOUND', 'no such callback address');
    const { state } = await this.runner.load(taskId);
    if (state.status === 'none' || !state.job) throw new AppError('NOT_FOUND', 'no such callback address');
    const receiver = this.channels.get(state.job.supplier)?.callbacks;
    if (!receiver) throw new AppError('NOT_FOUND', 'no such callback address');
    const now = cmd.metadata.now.getTime();
    if (receiver.secret === undefined) return this.receiveSigned(taskId, state, receiver, cmd, now);
    const secret = receiver.secret;
    const early = verifyCallback(secret, headers, Buffer.alloc(0), now, this.settings.callbackWindowSeconds);
    if (early !== 'ok' && early !== 'bad_signature') {
      this.logger.warn({ taskId, check: early }, 'refused a supplier callback');
      throw new AppError('UNAUTHORIZED', early === 'stale' ? 'callback timestamp outside the accepted window' : 'callback signature invalid');
    }
    const body = typeof bodyOrLoader === 'function' ? await bodyOrLoader() : bodyOrLoader;
    const check = verifyCallback(secret, headers, body, now, this.settings.callbackWindowSeconds);
    if (check !== 'ok') {
      this.logger.warn({ taskId, check }, 'refused a supplier callback');
      throw new AppError('UNAUTHORIZED', check === 'stale' ? 'callback timestamp outside the accepted window' : 'callback signature invalid');
    }
    let remote: unknown;
    try {
      remote = receiver.parse(JSON.parse(body.toString('utf8')), state as ActiveJob);
    } catch {
      throw new AppError('VALIDATION_ERROR', 'body: not a job status document');
    }
    if (isTerminal(state)) return;
    await this.record(taskId, receiver, remote);
  }

  /**
   * A provider's webhook: its own signature scheme over the raw body (checked only for a job
   * the provider holds; a job that already ended acknowledges and changes nothing).
   */
  private async receiveSigned(taskId: string, state: SupplierJobState, receiver: CallbackReceiver, cmd: ReceiveCallbackCommand, now: number): Promise<void> {
    if (isTerminal(state)) return;
    if (!receiver.verify) throw new AppError('NOT_FOUND', 'no such callback address');
    // The provider answered faster by webhook than its create answer was recorded here: ask
    // it to send again (the status is also polled).
    if (state.status === 'queued' && state.submitting) throw new AppError('SERVICE_UNAVAILABLE', 'the job is being recorded; send the webhook again');
    if (state.status !== 'dispatched') throw new AppError('NOT_FOUND', 'no such callback address');
    const body = typeof cmd.data.body === 'function' ? await cmd.data.body() : cmd.data.body;
    const headers = cmd.data.headers ?? { get: () => null };
    if (!receiver.verify(state, headers, body, now)) {
      this.logger.warn({ taskId }, 'refused a provider webhook (signature)');
      throw new AppError('UNAUTHORIZED', 'webhook signature invalid');
    }
    let remote: unknown;
    try {
      remote = receiver.parse(JSON.parse(body.toString('utf8')), state);
    } catch {
      throw new AppError('VALIDATION_ERROR', 'body: not a status of this job');
    }
    await this.record(taskId, receiver, remote);
  }

  /** Records a reported status like a poll would, serialized with the job's steps. */
  private async record(taskId: string, receiver: CallbackReceiver, remote: unknown): Promise<void> {
    await this.runner.exclusive(taskId, async () => {
      const { state: current } = await this.runner.load(taskId);
      if (current.status !== 'queued' && current.status !== 'dispatched') return;
      const ctx = this.runner.context(taskId);
      ctx.runtime.pollAt = Date.now() + receiver.pollIntervalMs; // heard from the supplier: no poll needed yet
      try {
        await receiver.apply(current as ActiveJob, remote, ctx);
      } catch (err) {
        this.logger.error({ err, taskId }, 'recording a supplier callback failed; polling instead');
        ctx.runtime.pollAt = Date.now();
        this.runner.schedule(taskId);
        throw new AppError('SERVICE_UNAVAILABLE', 'the result could not be recorded now; it will be fetched again');
      }
    });
  }
}
