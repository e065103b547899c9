import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, runsBackgroundWork } from '@gensvc/config';
import { Clock, streamName } from '@gensvc/kernel';
import {
  EventStore,
  KeyedLock,
  KeyedTimers,
  RequestContexts,
  SubscriptionEngine,
  WorkflowProcessor,
  handleCommand,
  loadAggregate,
  type WorkflowDefinition,
  type WorkflowOutcome,
} from '@gensvc/event-sourcing';
import { SUPPLIER_JOB_STREAM, type SupplierJobEvent } from '../../contracts/supplier-gateway';
import { isTerminal, supplierJobDecider, type JobError, type SupplierJobCommand, type SupplierJobState } from '../../domain/supplier-job';
import { supplierJobWorkflow, type StepNext, type SupplierJobInput, type SupplierJobRunCommand, type SupplierJobRunState } from '../../domain/supplier-job-workflow';
import { OpenJobsHandler } from '../job-list/open-jobs.handler';
import { SupplierChannels, type ActiveJob, type JobContext } from '../supplier-channel';
import { SupplierJobClaims } from './supplier-job-claims';

/**
 * Longest sleep between two looks at a waiting job: a job is otherwise looked at when its
 * channel asked or its deadline falls due (a jump of a test clock re-arms every job at once).
 * Bounds the effect of a step of the system's wall clock on deadlines.
 */
const MAX_SLEEP_MS = 60_000;


/**
 * Runs supplier jobs: the supplier job workflow (`domain/supplier-job-workflow.ts`) under the
 * workflow processor, with a per-task scheduler over the event store. Whenever a job is due
 * the processor folds the job's stream and the workflow decides: let it go, fail it on its
 * deadline, or let its channel take the next step and look again when the step asks (by the
 * deadline at the latest). Every step records its effect through `handleCommand` (optimistic
 * concurrency), so a repeated or concurrent step changes nothing twice. Steps of one task
 * never overlap in this process.
 *
 * Survives restarts: once the subscriptions have started (a process whose role runs
 * background work, `all` or `worker`; the admin CLI never runs jobs) and the projections
 * caught up, it starts its claims and (with leases) resumes every unfinished job from the
 * `supplier_jobs` read model (`job-list/`); new jobs arrive through `schedule` (the submit
 * and cancel handlers, the worker reactor, the claims). Deadlines come from the job's
 * stream, so they hold across restarts.
 *
 * Several workers: a job steps only in the worker whose claim on it holds
 * (`SupplierJobClaims`), so one worker submits it. On the embedded stores every worker
 * learns of every job and the claim is a lease; on EventStoreDB the jobs are handed out by a
 * persistent subscription with competing consumers. When the holder dies, another worker
 * takes the job over and continues from what the job's stream recorded: a job the supplier
 * already accepted is not submitted again.
 */
@Injectable()
export class SupplierJobRunner
  implements OnApplicationBootstrap, BeforeApplicationShutdown, WorkflowDefinition<string, SupplierJobInput, SupplierJobRunState, SupplierJobRunCommand>
{
  readonly name = 'suppliers.job';
  readonly workflow = supplierJobWorkflow;
  private readonly processor: WorkflowProcessor<string, SupplierJobInput, SupplierJobRunState, SupplierJobRunCommand>;
  private readonly logger = new Logger('SupplierJobs');
  /** The job's stream as its running workflow knows it (runs of one task never overlap here; kept for the run only). */
  private readonly runs = new Map<string, JobRun>();
  private readonly timers = new KeyedTimers((taskId) => void this.exclusive(taskId, () => this.step(taskId)), MAX_SLEEP_MS);
  private readonly chains = new KeyedLock();
  private readonly runtimes = new Map<string, Record<string, number | boolean | undefined>>();
  private readonly failures = new Map<string, number>();
  private readonly abort = new AbortController();
  private bootTimer: NodeJS.Timeout | undefined;
  private stopWatchingClock: (() => void) | undefined;
  private resumed = false;
  private stopped = false;

  constructor(
    private readonly events: EventStore,
    private readonly openJobs: OpenJobsHandler,
    private readonly engine: SubscriptionEngine,
    private readonly clock: Clock,
    private readonly channels: SupplierChannels,
    private readonly claims: SupplierJobClaims,
    private readonly config: AppConfig,
  ) {
    this.processor = new WorkflowProcessor(this, events);
  }

  onApplicationBootstrap(): void {
    let failures = 0;
    const tick = async () => {
      this.bootTimer = undefined;
      if (this.stopped) return;
      try {
        if (await this.readyToResume()) {
          await this.resumeAll();
          return;
        }
        failures = 0;
      } catch (err) {
        failures++;
        this.logger.error({ err, failures }, 'starting the supplier job claims failed; retrying');
      }
      this.bootTimer = setTimeout(tick, failures ? Math.min(100 * 2 ** failures, 10_000) : 100);
      this.bootTimer.unref();
    };
    this.bootTimer = setTimeout(tick, 0);
    this.bootTimer.unref();
    this.stopWatchingClock = this.clock.onJump(() => this.timers.fireAllNow());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.stopWatchingClock?.();
    if (this.bootTimer) clearTimeout(this.bootTimer);
    this.timers.clear();
    this.abort.abort();
    await this.chains.idle(5000);
    // Hand the jobs over at once instead of after the claims' time to live.
    await this.claims.stop().catch((err) => this.logger.warn({ err }, 'handing the supplier jobs over failed'));
  }

  /** Whether this process runs jobs (its role runs background work and the subscriptions run here). */
  get active(): boolean {
    return !this.stopped && runsBackgroundWork(this.config.processRole) && this.engine.health().started;
  }

  /** Looks at the job at `at` (default now), or earlier if already due earlier. */
  schedule(taskId: string, delayMs = 0): void {
    if (this.active) this.timers.schedule(taskId, delayMs);
  }

  /**
   * Whether this process has work on the job: a step running or waiting its turn, or a look
   * pending. A finished job is let go (tests wait for that before they look for what it did not do).
   */
  holds(taskId: string): boolean {
    return this.chains.has(taskId) || this.timers.dueAt(taskId) !== undefined;
  }

  /** When this process next looks at the job (`Date.now()` time), if it will. */
  nextLookAt(taskId: string): number | undefined {
    return this.timers.dueAt(taskId);
  }

  /** Runs `fn` when no other work of the same task runs in this process. */
  exclusive<T>(taskId: string, fn: () => Promise<T>): Promise<T> {
    return this.chains.run(taskId, fn);
  }

  /** Records a command on a job's stream, stamped with the clock. */
  async record(taskId: string, command: DistributiveOmit<SupplierJobCommand, 'metadata'>): Promise<SupplierJobState> {
    const result = await handleCommand(this.events, streamName(SUPPLIER_JOB_STREAM, taskId), supplierJobDecider, {
      ...command,
      metadata: { now: this.clock.now() },
    } as SupplierJobCommand);
    const run = this.runs.get(taskId);
    if (run && !run.stale) {
      // The events follow what the run knows directly (nobody else wrote between): they are
      // its next inputs without reading the stream again. Otherwise the run reads what it missed.
      if (result.revision === run.revision + BigInt(result.events.length)) {
        run.recorded.push(...result.events);
        run.revision = result.revision;
        run.state = result.state;
      } else run.stale = true;
    }
    return result.state;
  }

  load(taskId: string): Promise<{ state: SupplierJobState }> {
    return loadAggregate(this.events, streamName(SUPPLIER_JOB_STREAM, taskId), supplierJobDecider);
  }

  /** Scratch state of a job in this process, shared by its steps and its callbacks. */
  runtime(taskId: string): Record<string, number | boolean | undefined> {
    let rt = this.runtimes.get(taskId);
    if (!rt) {
      rt = {};
      this.runtimes.set(taskId, rt);
    }
    return rt;
  }

  context(taskId: string): JobContext {
    return {
      record: (command) => this.record(taskId, command),
      now: () => this.clock.now(),
      runtime: this.runtime(taskId),
      signal: this.abort.signal,
    };
  }

  private async readyToResume(): Promise<boolean> {
    if (!this.active) return false;
    const head = await this.events.headPosition();
    return this.engine.projectedPosition() >= head;
  }

  private async resumeAll(): Promise<void> {
    if (this.resumed) return;
    await this.claims.start({ offer: (taskId) => this.schedule(taskId), giveUp: (taskId, deliveries) => this.giveUp(taskId, deliveries) });
    this.resumed = true;
    if (!this.claims.resumesFromReadModel) return;
    const open = await this.openJobs.execute();
    if (open.length) this.logger.log(`resuming ${open.length} unfinished supplier job(s)`);
    for (const taskId of open) this.schedule(taskId);
  }

  /**
   * Whether this process holds the job. When another process holds it, looks again when
   * that claim could have passed (leases), or not at all (the claims offer it when it does).
   */
  private async claim(taskId: string): Promise<boolean> {
    const claimed = await this.claims.claim(taskId);
    if (claimed === true) return true;
    // Another process runs it: nothing of it is kept here.
    this.runtimes.delete(taskId);
    this.failures.delete(taskId);
    if (claimed !== false) this.schedule(taskId, claimed.retryInMs);
    return false;
  }

  /**
   * Ends a job its workers kept dying on (the claims handed it out too often): fails it with
   * `SUPPLIER_UNAVAILABLE`, which releases its reservation, and tells the supplier to stop.
   */
  private async giveUp(taskId: string, deliveries: number, attempt = 1): Promise<void> {
    try {
      await this.failHandedOver(taskId, deliveries);
    } catch (err) {
      // The event store did not take it: try again while this process holds the job.
      if (this.stopped) return;
      this.logger.error({ err, taskId, attempt }, 'failing an over-delivered supplier job failed; retrying');
      setTimeout(() => void this.giveUp(taskId, deliveries, attempt + 1), Math.min(200 * 2 ** attempt, 30_000)).unref();
    }
  }

  private failHandedOver(taskId: string, deliveries: number): Promise<void> {
    return this.exclusive(taskId, () =>
      RequestContexts.run({ requestId: `job_${taskId}`, actor: 'system:suppliers' }, async () => {
        const { state } = await this.load(taskId);
        if (state.status !== 'none' && !isTerminal(state)) {
          this.logger.error({ taskId, deliveries }, 'a supplier job was handed to a worker too often; failing it');
          await this.failAndAbandon(taskId, state as ActiveJob, { code: 'SUPPLIER_UNAVAILABLE', message: 'the job could not be run to its end' });
        }
        this.forget(taskId);
      }),
    );
  }

  /** Fails an open job and tells its supplier to stop, best effort. */
  private async failAndAbandon(taskId: string, job: ActiveJob, error: JobError): Promise<void> {
    await this.record(taskId, { type: 'FailJob', data: { error } });
    const channel = this.channels.get(job.job.supplier);
    if (channel?.abandon) void channel.abandon(job.job, this.abort.signal, remoteOf(job)).catch((err) => this.logger.warn({ err, taskId }, 'abandoning a job failed'));
  }

  private forget(taskId: string): void {
    void this.claims.finished(taskId).catch((err) => this.logger.warn({ err, taskId }, 'giving a job claim up failed'));
    this.runtimes.delete(taskId);
    this.failures.delete(taskId);
    this.timers.cancel(taskId);
  }

  /** A job fell due: if this process holds it, the processor runs its workflow from the job's stream. */
  private async step(taskId: string): Promise<void> {
    if (this.stopped) return;
    await RequestContexts.run({ requestId: `job_${taskId}`, actor: 'system:suppliers' }, async () => {
      try {
        if (!(await this.claim(taskId))) return;
        await this.processor.run(taskId).finally(() => this.runs.delete(taskId));
      } catch (err) {
        // The event store did not answer (reading the job, recording its time-out): look again later.
        if (this.stopped) return;
        this.logger.error({ err, taskId }, 'running a supplier job failed; retrying');
        this.schedule(taskId, this.backoff(taskId));
      }
    });
  }

  // ---- the workflow's definition --------------------------------------------------------

  idOf(taskId: string): string {
    return taskId;
  }

  /** The job's stream, then the job falling due now (what the workflow decides on). */
  async history(taskId: string): Promise<readonly SupplierJobInput[]> {
    this.runs.set(taskId, { revision: -1n, state: supplierJobDecider.initialState(), recorded: [], stale: true });
    const events = await this.newEvents(taskId);
    return [...events, { type: 'JobDue', data: { task_id: taskId, at: this.clock.now().toISOString() } }];
  }

  finished(state: SupplierJobRunState): boolean {
    return state.job.status === 'none' || isTerminal(state.job);
  }

  async execute(command: SupplierJobRunCommand): Promise<WorkflowOutcome<SupplierJobInput>> {
    const taskId = command.data.task_id;
    switch (command.type) {
      case 'StepJob': {
        const next = await this.stepChannel(taskId);
        const events = await this.newEvents(taskId);
        return { inputs: [...events, { type: 'JobStepped', data: { task_id: taskId, at: this.clock.now().toISOString(), next } }] };
      }
      case 'TimeOutJob':
        await this.failAndAbandon(taskId, this.current(taskId) as ActiveJob, { code: 'SUPPLIER_TIMEOUT', message: 'the supplier did not finish the job before its deadline' });
        return { inputs: await this.newEvents(taskId) };
      case 'LookAgain': {
        const delay = command.data.at === null ? MAX_SLEEP_MS : Date.parse(command.data.at) - this.clock.now().getTime();
        this.schedule(taskId, Math.max(0, delay));
        return { inputs: [] };
      }
      case 'ReleaseJob':
        this.forget(taskId);
        return { inputs: [] };
    }
  }

  /**
   * The channel's step on the open job; a step that failed unexpectedly (a provider's answer
   * that broke a rule, the blob store down) is taken again after a backoff.
   */
  private async stepChannel(taskId: string): Promise<StepNext> {
    const job = this.current(taskId) as ActiveJob;
    const channel = this.channels.get(job.job.supplier);
    try {
      if (!channel) {
        await this.record(taskId, { type: 'FailJob', data: { error: { code: 'SUPPLIER_UNAVAILABLE', message: 'the model is served by no configured supplier' } } });
        return 'done';
      }
      const next = await channel.step(job, this.context(taskId));
      this.failures.delete(taskId);
      return next;
    } catch (err) {
      if (this.stopped) return 'wait';
      const inMs = this.backoff(taskId);
      this.logger.error({ err, taskId, failures: this.failures.get(taskId) }, 'supplier job step failed; retrying');
      return { inMs };
    }
  }

  private backoff(taskId: string): number {
    const n = (this.failures.get(taskId) ?? 0) + 1;
    this.failures.set(taskId, n);
    return Math.min(200 * 2 ** n, 30_000);
  }

  /** The job as this run knows it. */
  private current(taskId: string): SupplierJobState {
    return this.runs.get(taskId)?.state ?? { status: 'none' };
  }

  /**
   * The events on the job's stream this run has not taken as inputs yet: what it recorded
   * itself, and, when someone else wrote too (a cancel, a callback in another process), what
   * it reads from the stream after what it knew.
   */
  private async newEvents(taskId: string): Promise<SupplierJobEvent[]> {
    const run = this.runs.get(taskId)!;
    const events = run.recorded.splice(0);
    if (!run.stale) return events;
    const recorded = await this.events.readStream<SupplierJobEvent>(streamName(SUPPLIER_JOB_STREAM, taskId), { fromRevision: run.revision + 1n });
    for (const r of recorded) {
      const event = { type: r.type, data: r.data } as SupplierJobEvent;
      run.state = supplierJobDecider.evolve(run.state, event);
      run.revision = r.revision;
      events.push(event);
    }
    run.stale = false;
    return events;
  }
}

/** One run of a job's workflow: the stream up to `revision` folded into `state`; `recorded`, its own events not yet taken as inputs. */
interface JobRun {
  revision: bigint;
  state: SupplierJobState;
  readonly recorded: SupplierJobEvent[];
  /** Someone else wrote on the stream (or the run has not read it yet): read from `revision` on. */
  stale: boolean;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const remoteOf = (job: ActiveJob) => (job.status === 'dispatched' ? job.remote : null);
