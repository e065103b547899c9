import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  AppError,
  AsProjection,
  Clock,
  ReadStore,
  RequestContexts,
  SubscriptionEngine,
  ProjectionProvider,
  documentProjection,
} from '@gensvc/shared';
import type { CreationIntent } from '../../domain/task-creation';
import { CreateTaskHandler } from './create-task.handler';

export const PENDING_CREATIONS = 'task_creations_pending';

export interface PendingCreationDoc extends Record<string, unknown> {
  intent: CreationIntent;
  requested_at: string;
}

/** Creations whose intent is recorded but whose task is neither created nor rolled back. */
@AsProjection()
@Injectable()
export class PendingCreationsProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<PendingCreationDoc>({
    name: 'tasks.pending_creations',
    collection: PENDING_CREATIONS,
    handles: ['TaskCreationRequested', 'TaskCreated', 'TaskCreationRolledBack'],
    documentId: (e) => (e.data as { task_id: string }).task_id,
    indexes: [{ keys: { requested_at: 1 } }],
    evolve(doc, event) {
      if (event.type === 'TaskCreationRequested') {
        const intent = event.data as CreationIntent;
        return { intent, requested_at: intent.requested_at };
      }
      return null;
    },
  });
}

/** Age after which an unfinished creation is taken over (its request has long answered or died). */
export const RECOVERY_GRACE_MS = 10_000;
const RECOVERY_INTERVAL_MS = 5_000;

/**
 * Finishes creations a crash interrupted: every few seconds (and soon after start, once the
 * projections caught up) it drives each pending creation older than the grace period. The
 * steps are idempotent, so a creation still in progress elsewhere converges to the same
 * outcome: the task is created, or the creation is rejected and rolled back.
 */
@Injectable()
export class CreationRecovery implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TaskCreationRecovery');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  /** Creations found finished although still listed (a projection redelivery): skipped. */
  private readonly finished = new Set<string>();

  constructor(
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly clock: Clock,
    private readonly handler: CreateTaskHandler,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(500);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Drives the pending creations older than `olderThanMs`; resolves with how many it looked at. */
  runOnce(olderThanMs = RECOVERY_GRACE_MS): Promise<number> {
    this.running ??= this.recover(olderThanMs).finally(() => (this.running = undefined));
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      if (this.engine.health().started) {
        try {
          await this.runOnce();
        } catch (err) {
          this.logger.error(`task creation recovery failed; retrying: ${(err as Error).message}`);
        }
      }
      this.schedule(RECOVERY_INTERVAL_MS);
    }, ms);
    this.timer.unref();
  }

  private async recover(olderThanMs: number): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - olderThanMs).toISOString();
    const pending = await this.readStore
      .collection<PendingCreationDoc & { _id: string }>(PENDING_CREATIONS)
      .find({ requested_at: { $lte: cutoff } }, { sort: { requested_at: 1 }, limit: 200 });
    let n = 0;
    for (const doc of pending) {
      if (this.stopped) break;
      if (this.finished.has(doc._id)) continue;
      n++;
      await RequestContexts.run({ requestId: `recovery_${doc._id}`, actor: 'system:task-creation-recovery' }, async () => {
        try {
          await this.handler.drive(doc.intent);
          this.logger.log(`finished the interrupted creation of task ${doc._id}`);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          this.logger.log(`rolled back the interrupted creation of task ${doc._id} (${err.code})`);
        }
        this.finished.add(doc._id);
        if (this.finished.size > 10_000) this.finished.clear();
      });
    }
    return n;
  }
}
