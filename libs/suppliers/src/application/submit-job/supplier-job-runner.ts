import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, runsBackgroundWork } from '@gensvc/config';
import { Clock, streamName } from '@gensvc/kernel';
import { EventStore, KeyedLock, KeyedTimers, RequestContexts, SubscriptionEngine, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { SUPPLIER_JOB_STREAM } from '../../contracts/supplier-gateway';
import { isTerminal, supplierJobDecider, type SupplierJobCommand, type SupplierJobState } from '../../domain/supplier-job';
import { OpenJobsHandler } from '../job-list/open-jobs.handler';
import { SupplierChannels, type ActiveJob, type JobContext, type StepResult } from '../supplier-channel';
import { SupplierJobClaims } from './supplier-job-claims';

/**
 * Longest sleep between two looks at a waiting job: a job is otherwise looked at when its
 * channel asked or its deadline falls due (a jump of a test clock re-arms every job at once).
 * Bounds the effect of a step of the system's wall clock on deadlines.
 */
const MAX_SLEEP_MS = 60_000;


/**
 * Runs supplier jobs: a per-task scheduler over the event store. Whenever a job is due it
 * re-reads the job's stream and lets its channel take the next step; every step records
 * its effect through `handleCommand` (optimistic concurrency), so a repeated or concurrent
 * step changes nothing twice. Steps of one task never overlap in this process.
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
export class SupplierJobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('SupplierJobs');
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
  ) {}

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
          const job = state as ActiveJob;
          this.logger.error({ taskId, deliveries }, 'a supplier job was handed to a worker too often; failing it');
          await this.record(taskId, { type: 'FailJob', data: { error: { code: 'SUPPLIER_UNAVAILABLE', message: 'the job could not be run to its end' } } });
          const channel = this.channels.get(job.job.supplier);
          if (channel?.abandon) void channel.abandon(job.job, this.abort.signal, remoteOf(job)).catch((err) => this.logger.warn({ err, taskId }, 'abandoning a job failed'));
        }
        this.forget(taskId);
      }),
    );
  }

  private forget(taskId: string): void {
    void this.claims.finished(taskId).catch((err) => this.logger.warn({ err, taskId }, 'giving a job claim up failed'));
    this.runtimes.delete(taskId);
    this.failures.delete(taskId);
    this.timers.cancel(taskId);
  }

  private async step(taskId: string): Promise<void> {
    if (this.stopped) return;
    await RequestContexts.run({ requestId: `job_${taskId}`, actor: 'system:suppliers' }, async () => {
      let result: StepResult;
      let deadline = Infinity;
      try {
        if (!(await this.claim(taskId))) return;
        const { state } = await this.load(taskId);
        if (state.status === 'none' || isTerminal(state)) return this.forget(taskId);
        const job = state as ActiveJob;
        deadline = job.job.deadlineAt ? Date.parse(job.job.deadlineAt) : Infinity;
        const now = this.clock.now().getTime();
        const channel = this.channels.get(job.job.supplier);
        if (now >= deadline) {
          await this.record(taskId, { type: 'FailJob', data: { error: { code: 'SUPPLIER_TIMEOUT', message: 'the supplier did not finish the job before its deadline' } } });
          this.forget(taskId);
          if (channel?.abandon) void channel.abandon(job.job, this.abort.signal, remoteOf(job)).catch((err) => this.logger.warn({ err, taskId }, 'abandoning a timed-out job failed'));
          return;
        }
        if (!channel) {
          await this.record(taskId, { type: 'FailJob', data: { error: { code: 'SUPPLIER_UNAVAILABLE', message: 'the model is served by no configured supplier' } } });
          return this.forget(taskId);
        }
        result = await channel.step(job, this.context(taskId));
        this.failures.delete(taskId);
      } catch (err) {
        if (this.stopped) return;
        const n = (this.failures.get(taskId) ?? 0) + 1;
        this.failures.set(taskId, n);
        this.logger.error({ err, taskId, failures: n }, 'supplier job step failed; retrying');
        result = { inMs: Math.min(200 * 2 ** n, 30_000) };
      }
      if (result === 'done') {
        const { state } = await this.load(taskId);
        if (state.status === 'none' || isTerminal(state)) return this.forget(taskId);
        result = 'wait';
      }
      // A waiting job is still looked at now and then: its deadline (by the service clock) must hold.
      const untilDeadline = deadline - this.clock.now().getTime();
      const delay = result === 'wait' ? untilDeadline : Math.min(result.inMs, untilDeadline);
      this.schedule(taskId, Number.isFinite(delay) ? delay : MAX_SLEEP_MS);
    });
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const remoteOf = (job: ActiveJob) => (job.status === 'dispatched' ? job.remote : null);
