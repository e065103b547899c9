import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ReadStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { isTerminal } from '../../domain/task';
import { TaskQueries, type StoredTask } from './task-queries';
import { TASKS } from './tasks.projection';

/** Task documents read per query when looking for changes. */
const PAGE = 500;

/** Whether the task will not change any more: a terminal status, and settled (charged_amount final). */
export const isFinished = (task: StoredTask): boolean => isTerminal(task.status) && task.settlement_status !== 'reserved';

/**
 * One caller following one task (`TaskWatch.follow`): `current` is the newest state it was
 * given; `next` waits for a newer one.
 */
export interface TaskFollower {
  readonly current: StoredTask;
  /**
   * Resolves with the task's next state newer than `current` (and makes it `current`), or with
   * null when `signal` aborts first or the service shuts down. Several changes that happened
   * meanwhile arrive as one: the newest state.
   */
  next(signal: AbortSignal): Promise<StoredTask | null>;
  /** Stops following (idempotent). */
  close(): void;
}

interface Follower {
  /** The newest state it has not taken yet. */
  pending: StoredTask | null;
  wake: (() => void) | undefined;
}

/**
 * Tells callers when tasks change, for `Prefer: wait` and the task event stream. Nothing polls
 * per caller and nothing holds a thread: the subscription engine announces each move of the
 * read models (`onProjected`: batches this process applied, and on a read store shared with
 * other processes the batches they applied, which this process's projection loop adopts within
 * its poll interval), and then, only while someone follows a task, one query reads the task
 * documents changed since the last look (`_pos`, the position of the last event folded into a
 * document, is indexed) and hands each to the followers of its task. So a change made by a
 * worker in another process reaches a caller waiting here as soon as this process's read models
 * show it, on the embedded stores as on MongoDB.
 */
@Injectable()
export class TaskWatch implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('TaskWatch');
  private readonly followers = new Map<string, Set<Follower>>();
  /** Changes of documents with `_pos` up to here have been handed out (or nobody followed them). */
  private cursor = -1;
  private scanning = false;
  private scanAgain = false;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly engine: SubscriptionEngine,
    private readonly readStore: ReadStore,
    private readonly queries: TaskQueries,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.engine.onProjected(() => void this.scan());
  }

  /** Ends every follower (their waits resolve with null), so open answers finish before the server closes. */
  beforeApplicationShutdown(): void {
    this.closed = true;
    this.unsubscribe?.();
    for (const set of this.followers.values()) for (const f of set) f.wake?.();
  }

  /** Starts following the account's task; NOT_FOUND when it is not the account's. */
  async follow(accountId: string, taskId: string): Promise<TaskFollower> {
    // Registered before the first read, so no change after that read can be missed.
    if (this.followers.size === 0) this.cursor = Math.max(this.cursor, Number(this.engine.projectedPosition()));
    const follower: Follower = { pending: null, wake: undefined };
    const set = this.followers.get(taskId) ?? new Set<Follower>();
    set.add(follower);
    this.followers.set(taskId, set);
    const close = () => {
      set.delete(follower);
      if (set.size === 0 && this.followers.get(taskId) === set) this.followers.delete(taskId);
    };
    let current: StoredTask;
    try {
      current = await this.queries.stored(accountId, taskId);
    } catch (err) {
      close();
      throw err;
    }
    const shutDown = () => this.closed;
    return {
      get current() {
        return current;
      },
      async next(signal: AbortSignal): Promise<StoredTask | null> {
        for (;;) {
          const pending = follower.pending;
          follower.pending = null;
          if (pending && pending._pos > current._pos) {
            current = pending;
            return current;
          }
          if (signal.aborted || shutDown()) return null;
          await new Promise<void>((resolve) => {
            const done = () => {
              signal.removeEventListener('abort', done);
              follower.wake = undefined;
              resolve();
            };
            follower.wake = done;
            signal.addEventListener('abort', done, { once: true });
          });
        }
      },
      close,
    };
  }

  /**
   * The account's task once it is finished, or as it is after `seconds` (or when `signal`
   * aborts: the caller went away); NOT_FOUND when it is not the account's.
   */
  async waitUntilFinished(accountId: string, taskId: string, seconds: number, signal: AbortSignal): Promise<StoredTask> {
    const follower = await this.follow(accountId, taskId);
    try {
      const until = AbortSignal.any([signal, AbortSignal.timeout(seconds * 1000)]);
      while (!isFinished(follower.current) && (await follower.next(until))) {
        /* the next state is follower.current */
      }
      return follower.current;
    } finally {
      follower.close();
    }
  }

  /** Hands the task documents changed since the cursor to their followers (one scan at a time). */
  private async scan(): Promise<void> {
    if (this.scanning) {
      this.scanAgain = true;
      return;
    }
    this.scanning = true;
    try {
      do {
        this.scanAgain = false;
        const to = Number(this.engine.projectedPosition());
        if (this.followers.size > 0) await this.handOut(this.cursor);
        // Documents past `to` another process already wrote may be handed out twice; followers skip what they have.
        this.cursor = to;
      } while (this.scanAgain);
    } catch (err) {
      this.logger.error({ err }, 'reading changed tasks failed; retrying at the next change');
    } finally {
      this.scanning = false;
    }
  }

  private async handOut(after: number): Promise<void> {
    const tasks = this.readStore.collection<StoredTask>(TASKS);
    for (let from = after; ; ) {
      const docs = await tasks.find({ _pos: { $gt: from } }, { sort: { _pos: 1 }, limit: PAGE });
      for (const doc of docs) {
        for (const f of this.followers.get(doc._id) ?? []) {
          if (!f.pending || f.pending._pos < doc._pos) f.pending = doc;
          f.wake?.();
        }
      }
      if (docs.length < PAGE) return;
      from = docs[docs.length - 1]._pos;
    }
  }
}
