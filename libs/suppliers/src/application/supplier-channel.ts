import type { SupplierJobCommand, SupplierJobState, JobInfo, RemoteJob } from '../domain/supplier-job';
import type { StepNext } from '../domain/supplier-job-workflow';

export type ActiveJob = Extract<SupplierJobState, { status: 'queued' | 'dispatched' }>;

/** What a channel asks of the runner while it advances one job. */
export interface JobContext {
  /** Records a command on the job's stream (optimistic concurrency); returns the state after it. */
  record(command: DistributiveOmit<SupplierJobCommand, 'metadata'>): Promise<SupplierJobState>;
  /** The service clock (the time of the job's events: deadlines, route retries). */
  now(): Date;
  /** Per-process scratch state of this job (when to poll next); lost on restart by design. */
  readonly runtime: Record<string, number | boolean | undefined>;
  /** Aborted when the service shuts down. */
  readonly signal: AbortSignal;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * What a channel's step answers (the supplier job workflow's `StepNext`): look again in `inMs`
 * milliseconds, wait without a timer (until an event, a callback or the deadline), or nothing
 * left to do.
 */
export type StepResult = StepNext;

/**
 * A supplier channel (the built-in local supplier, or one external HTTP supplier). The
 * runner calls `step` for a queued or dispatched job whenever it is due; a step must be
 * safe to repeat after a crash (it re-reads the job's state each time).
 */
export abstract class SupplierChannel {
  abstract readonly name: string;
  /** Deadline of this channel's jobs, when it differs from SUPPLIER_JOB_DEADLINE_MS. */
  readonly deadlineMs?: number;
  abstract step(job: ActiveJob, ctx: JobContext): Promise<StepResult>;
  /** Best-effort cleanup at the supplier after the job failed on its deadline (`remote`: the provider job, when known). */
  abandon?(job: JobInfo, signal: AbortSignal, remote?: RemoteJob | null): Promise<void>;
  /** Deletes a voice this channel made (voice deletion). */
  abstract deleteVoice(supplierVoiceId: string, signal: AbortSignal): Promise<void>;
  /** Set when the channel's supplier reports by callback (the HTTP channel). */
  readonly callbacks?: CallbackReceiver;
}

/**
 * What a channel that takes supplier callbacks offers the callback handler: how a
 * callback's signature is checked (the gensvc protocol's HMAC with `secret`, checked by the
 * handler; or `verify`, the provider's own scheme), how to read a reported status and how
 * to record it.
 */
export interface CallbackReceiver<Status = unknown> {
  /** The gensvc protocol's callback secret (the handler checks its HMAC headers). */
  readonly secret?: string;
  /**
   * The provider's own signature check over the raw body (Standard Webhooks for Replicate):
   * false refuses the callback (401). Used when there is no `secret`.
   */
  verify?(job: ActiveJob, headers: { get(name: string): string | null }, body: Buffer, nowMs: number): boolean;
  /** The channel's poll interval: after a callback, the next poll waits this long. */
  readonly pollIntervalMs: number;
  /** The status in a callback's JSON document; throws when it is none (or not about this job). */
  parse(document: unknown, job: ActiveJob): Status;
  /** Records a reported status as a poll would; true when the job ended. */
  apply(job: ActiveJob, status: Status, ctx: Pick<JobContext, 'record' | 'signal'>): Promise<boolean>;
}

/** An input the job cannot use (an asset or voice gone, a sample that is not audio). */
export class JobInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobInputError';
  }
}

/** The channels of this deployment by name. */
export abstract class SupplierChannels {
  abstract get(name: string): SupplierChannel | undefined;
  abstract names(): string[];
}
