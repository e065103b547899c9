import type { Workflow } from '@gensvc/kernel';
import type { SupplierJobEvent } from '../contracts/supplier-gateway';
import { evolve as evolveJob, isTerminal, type SupplierJobState } from './supplier-job';

/**
 * The life of one supplier job as the workers drive it: a time- and provider-driven process.
 * Its inputs are the job's own events (history) and the two things that happen to it in a
 * worker: the job falls due (`JobDue`: its timer fired, it was offered or handed over), and
 * its channel took a step (`JobStepped`: what the channel asked for next). Its commands are
 * effects the runner executes: take the channel's step, fail the job on its deadline, look at
 * it again at a time (a timer is a command), or let it go.
 *
 *   due ─▶ finished? ─▶ release
 *       ─▶ past its deadline? ─▶ time out ─▶ (SupplierJobFailed) ─▶ release
 *       ─▶ step ─▶ (the step's events) ─▶ stepped ─▶ finished? release : look again at
 *                                                   min(what the channel asked, the deadline)
 *
 * What a step decides with a provider (which route, when to retry it) is folded from the
 * job's events too (`route-failover.ts`), so nothing of a job's course lives only in a
 * worker's memory but the time of its next poll.
 */
export type StepNext = { readonly inMs: number } | 'wait' | 'done';

export type SupplierJobInput =
  | SupplierJobEvent
  | { readonly type: 'JobDue'; readonly data: { readonly task_id: string; readonly at: string } }
  | { readonly type: 'JobStepped'; readonly data: { readonly task_id: string; readonly at: string; readonly next: StepNext } };

export type SupplierJobRunCommand =
  | { readonly type: 'StepJob'; readonly data: { readonly task_id: string } }
  | { readonly type: 'TimeOutJob'; readonly data: { readonly task_id: string } }
  /** Look at the job again at `at` (null: no time of its own; the runner's longest sleep bounds it). */
  | { readonly type: 'LookAgain'; readonly data: { readonly task_id: string; readonly at: string | null } }
  | { readonly type: 'ReleaseJob'; readonly data: { readonly task_id: string } };

export interface SupplierJobRunState {
  readonly job: SupplierJobState;
}

const deadlineOf = (job: SupplierJobState): number =>
  (job.status === 'queued' || job.status === 'dispatched') && job.job.deadlineAt ? Date.parse(job.job.deadlineAt) : Infinity;

const isJobEvent = (input: SupplierJobInput): input is SupplierJobEvent => input.type !== 'JobDue' && input.type !== 'JobStepped';

export const supplierJobWorkflow: Workflow<SupplierJobInput, SupplierJobRunState, SupplierJobRunCommand> = {
  initialState: () => ({ job: { status: 'none' } }),

  evolve(state, input) {
    return isJobEvent(input) ? { job: evolveJob(state.job, input) } : state;
  },

  decide(input, { job }) {
    const task_id = input.data.task_id;
    const finished = job.status === 'none' || isTerminal(job);
    switch (input.type) {
      case 'JobDue':
        if (finished) return [{ type: 'ReleaseJob', data: { task_id } }];
        if (Date.parse(input.data.at) >= deadlineOf(job)) return [{ type: 'TimeOutJob', data: { task_id } }];
        return [{ type: 'StepJob', data: { task_id } }];
      case 'JobStepped': {
        if (finished) return [];
        // A job still open is looked at by its deadline at the latest, even if the channel waits for a callback.
        const deadline = deadlineOf(job);
        const asked = typeof input.data.next === 'object' ? Date.parse(input.data.at) + input.data.next.inMs : Infinity;
        const at = Math.min(asked, deadline);
        return [{ type: 'LookAgain', data: { task_id, at: Number.isFinite(at) ? new Date(at).toISOString() : null } }];
      }
      default:
        // An outcome of this run that ended the job (one a step, a time-out or a callback recorded).
        return isTerminal(job) && (input.type === 'SupplierJobSucceeded' || input.type === 'SupplierJobFailed' || input.type === 'SupplierJobCanceled')
          ? [{ type: 'ReleaseJob', data: { task_id } }]
          : [];
    }
  },
};
