import { AppError, type Decider } from '@gensvc/kernel';

/**
 * The intent to create a task under one Idempotency-Key of one account (stream
 * `taskcreation-<sha256(account, key)>`). Its only event records the task id and the body
 * the key is bound to. The creation itself is a workflow (`task-creation-workflow.ts`) whose
 * steps are each idempotent per task id, so the request, a retry with the same key, or the
 * reactor that hears this event can finish a creation that a crash interrupted.
 */
export const TASK_CREATION_STREAM = 'taskcreation';

export interface CreationIntent {
  readonly creation_id: string;
  readonly task_id: string;
  readonly account_id: string;
  readonly connection_id: string;
  readonly idempotency_key: string;
  /** SHA-256 of the normalized body ({quote_id, title}). */
  readonly body_hash: string;
  readonly quote_id: string;
  readonly title: string | null;
  readonly requested_at: string;
}

export type TaskCreationEvent = { type: 'TaskCreationRequested'; data: CreationIntent };

export type TaskCreationCommand = { type: 'RequestCreation'; data: CreationIntent; metadata: { now: Date } };

export type TaskCreationState = { readonly intent: CreationIntent | null };

export const taskCreationDecider: Decider<TaskCreationState, TaskCreationCommand, TaskCreationEvent> = {
  initialState: () => ({ intent: null }),
  evolve: (state, event) => (event.type === 'TaskCreationRequested' && !state.intent ? { intent: event.data } : state),
  decide(command, state) {
    if (!state.intent) return [{ type: 'TaskCreationRequested', data: command.data }];
    if (state.intent.body_hash !== command.data.body_hash) {
      throw new AppError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key was already used with a different body; use a new key for a new task');
    }
    return [];
  },
};
