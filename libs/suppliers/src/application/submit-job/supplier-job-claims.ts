import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { ConsumerGroups, GroupConsumer, GroupMessage, LeaseStore } from '@gensvc/event-sourcing';
import type { SupplierSettings } from '../../supplier-settings';

/** What the claims tell the runner. */
export interface ClaimsOwner {
  /** This process now holds the job: look at it. */
  offer(taskId: string): void;
  /** Its workers stopped too often while holding the job: end it instead of running it again. */
  giveUp(taskId: string, deliveries: number): Promise<void>;
}

/**
 * Which worker runs a supplier job: exactly one at a time across the processes sharing the
 * stores. A job is only stepped in the process whose claim holds; a dead process's claims
 * pass to another within a bounded time, and the taker continues from the job's stream.
 */
export abstract class SupplierJobClaims {
  /** True when unfinished jobs are found from the read model at start; false when the claims hand them out. */
  abstract readonly resumesFromReadModel: boolean;
  /** Starts claiming (called once the process runs background work and its projections caught up). */
  abstract start(owner: ClaimsOwner): Promise<void>;
  /** `true`: this process holds the job now; `false`: another does; `{ retryInMs }`: look again then. */
  abstract claim(taskId: string): Promise<boolean | { retryInMs: number }>;
  /** The job is over (or there is none): give its claim up for good. */
  abstract finished(taskId: string): Promise<void>;
  /** Hands every held job to the other workers at once (a graceful stop). */
  abstract stop(): Promise<void>;
}

const leaseKey = (taskId: string) => `supplier-job:${taskId}`;
/** Claims renewed in one write. */
const RENEW_SLICE = 500;

/**
 * Claims as leases (`supplier-job:<task id>` in the LeaseStore), for the embedded stores:
 * every worker learns of every job, the first to take the lease runs it and renews the lease
 * every third of `SUPPLIER_JOB_LEASE_MS`; the others look again when it would expire.
 */
export class LeaseJobClaims extends SupplierJobClaims {
  readonly resumesFromReadModel = true;
  private readonly logger = new Logger('SupplierJobs');
  private readonly held = new Set<string>();
  private heartbeat: NodeJS.Timeout | undefined;
  private renewing = false;
  private readonly owner = `jobs-${process.pid}-${randomUUID()}`;

  constructor(
    private readonly leases: LeaseStore,
    private readonly settings: SupplierSettings,
  ) {
    super();
  }

  async start(): Promise<void> {
    this.heartbeat ??= setInterval(() => void this.renew(), Math.max(250, Math.floor(this.settings.jobLeaseMs / 3)));
    this.heartbeat.unref();
  }

  async claim(taskId: string): Promise<boolean | { retryInMs: number }> {
    if (await this.leases.acquire(leaseKey(taskId), this.owner, this.settings.jobLeaseMs)) {
      this.held.add(taskId);
      return true;
    }
    this.held.delete(taskId);
    // The holder renews its claim while alive: look again when it would expire.
    const holder = await this.leases.holder(leaseKey(taskId));
    const wait = holder ? holder.expiresAt - Date.now() : 0;
    return { retryInMs: Math.max(50, wait + Math.floor(Math.random() * 250)) };
  }

  async finished(taskId: string): Promise<void> {
    if (this.held.delete(taskId)) await this.leases.release(leaseKey(taskId), this.owner);
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    await Promise.allSettled([...this.held].map((taskId) => this.leases.release(leaseKey(taskId), this.owner)));
    this.held.clear();
  }

  /**
   * Renews every held claim, a slice at a time (one write each, the event loop free between
   * slices), however many jobs wait: a claim that another worker took is let go.
   */
  private async renew(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      const held = [...this.held];
      for (let i = 0; i < held.length; i += RENEW_SLICE) {
        const slice = held.slice(i, i + RENEW_SLICE);
        try {
          const still = await this.leases.renew(slice.map(leaseKey), this.owner, this.settings.jobLeaseMs);
          for (const taskId of slice) if (!still.has(leaseKey(taskId))) this.held.delete(taskId);
        } catch (err) {
          this.logger.warn({ err, jobs: slice.length }, 'renewing job leases failed');
        }
        if (i + RENEW_SLICE < held.length) await new Promise((r) => setImmediate(r));
      }
    } finally {
      this.renewing = false;
    }
  }
}

/**
 * The claims the stores allow: competing consumers when the event store offers them
 * (EventStoreDB, `EVENTSTORE_URL`), leases otherwise (the embedded event store).
 */
export function supplierJobClaims(groups: ConsumerGroups | null, leases: LeaseStore, settings: SupplierSettings): SupplierJobClaims {
  return groups ? new GroupJobClaims(groups, settings) : new LeaseJobClaims(leases, settings);
}

/** The consumer group of supplier jobs on EventStoreDB. */
export const SUPPLIER_JOB_GROUP = 'gensvc-supplier-jobs';
/** Deliveries after the first before a job is given up (its workers kept stopping while holding it). */
export const SUPPLIER_JOB_MAX_RETRIES = 10;
/** Jobs one worker holds at once (messages in flight to it); the others wait on the server for a free worker. */
export const SUPPLIER_JOBS_PER_WORKER = 256;

/**
 * Claims as a persistent subscription with competing consumers (EventStoreDB): the group
 * `gensvc-supplier-jobs` receives every `SupplierJobQueued`, and the server hands each to
 * one connected worker. The worker holds the job as long as it holds the message and
 * acknowledges it when the job is over. A worker that stops hands its messages back (nack
 * `retry`); one that dies loses its connection, and the server hands its messages to the
 * other workers at once. The message timeout is longer than any job's deadline, so a job
 * is never given to a second worker while its holder runs it. A message delivered more than
 * `SUPPLIER_JOB_MAX_RETRIES` times ends its job (`SUPPLIER_UNAVAILABLE`) instead of being
 * parked, so its reservation is released; a message without a task id is parked.
 */
export class GroupJobClaims extends SupplierJobClaims {
  readonly resumesFromReadModel = false;
  private readonly logger = new Logger('SupplierJobs');
  private readonly held = new Map<string, GroupMessage>();
  private consumer: GroupConsumer | undefined;

  constructor(
    private readonly groups: ConsumerGroups,
    private readonly settings: SupplierSettings,
  ) {
    super();
  }

  /** Longer than the longest deadline a job can get, so a live holder is never overtaken. */
  get messageTimeoutMs(): number {
    const deadlines = [this.settings.jobDeadlineMs, ...[...this.settings.channels.values()].map((c) => c.deadlineMs ?? 0)];
    return Math.max(...deadlines) + 60_000;
  }

  async start(owner: ClaimsOwner): Promise<void> {
    if (this.consumer) return;
    await this.groups.ensure({ group: SUPPLIER_JOB_GROUP, eventTypes: ['SupplierJobQueued'], messageTimeoutMs: this.messageTimeoutMs, maxRetryCount: SUPPLIER_JOB_MAX_RETRIES });
    this.consumer = this.groups.consume(SUPPLIER_JOB_GROUP, {
      inFlight: SUPPLIER_JOBS_PER_WORKER,
      onMessage: (m) => {
        const taskId = (m.data as { task_id?: unknown } | null)?.task_id;
        if (typeof taskId !== 'string' || !taskId) {
          void m.nack('park', 'SupplierJobQueued without a task id').catch(() => undefined);
          return;
        }
        this.held.set(taskId, m);
        if (m.retryCount >= SUPPLIER_JOB_MAX_RETRIES) void owner.giveUp(taskId, m.retryCount + 1).catch((err) => this.logger.error({ err, taskId }, 'giving up a job failed'));
        else owner.offer(taskId);
      },
      onDropped: (err) => {
        // The server hands the messages of this connection to the workers again.
        if (this.held.size) this.logger.warn({ err, jobs: this.held.size }, 'lost the supplier job subscription; its jobs go to the workers again');
        this.held.clear();
      },
    });
  }

  async claim(taskId: string): Promise<boolean> {
    return this.held.has(taskId);
  }

  async finished(taskId: string): Promise<void> {
    const m = this.held.get(taskId);
    if (!m) return;
    this.held.delete(taskId);
    await m.ack();
  }

  async stop(): Promise<void> {
    const held = [...this.held.values()];
    this.held.clear();
    await Promise.allSettled(held.map((m) => m.nack('retry', 'the worker stops')));
    await this.consumer?.close();
    this.consumer = undefined;
  }
}
