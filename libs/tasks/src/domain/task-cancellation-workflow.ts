import type { Workflow } from '@gensvc/kernel';

/**
 * Cancelling a task (CONTRACT.md §4) as a pure workflow over the task stream and the
 * supplier's answer: a requested cancellation asks the supplier; a job no supplier holds yet
 * is canceled at once (`canceled`), so the cancellation is confirmed on the task and the task
 * settled (its reservation released) right away; a held job's outcome arrives later as the
 * supplier job's events, which the execution reactor turns into the task's transitions. A
 * task that ended otherwise needs nothing. Every command is idempotent, so a run resumed from
 * the task stream (after a crash, or a repeated request) converges.
 */
export type CancellationInput =
  | { readonly type: 'CancellationRequested'; readonly data: { readonly task_id: string } }
  | { readonly type: 'SupplierAnswered'; readonly data: { readonly task_id: string; readonly canceled: boolean } }
  | { readonly type: 'TaskCanceled'; readonly data: { readonly task_id: string } }
  | { readonly type: 'TaskEnded'; readonly data: { readonly task_id: string } };

export type CancellationCommand =
  | { readonly type: 'AskSupplierToCancel'; readonly data: { readonly task_id: string } }
  | { readonly type: 'ConfirmCancellation'; readonly data: { readonly task_id: string } }
  | { readonly type: 'SettleTask'; readonly data: { readonly task_id: string } };

export type CancellationState =
  | { readonly status: 'none' }
  | { readonly status: 'requested'; readonly task_id: string }
  | { readonly status: 'held'; readonly task_id: string }
  | { readonly status: 'canceled'; readonly task_id: string }
  | { readonly status: 'ended' };

function evolve(state: CancellationState, input: CancellationInput): CancellationState {
  if (state.status === 'ended') return state;
  switch (input.type) {
    case 'CancellationRequested':
      return state.status === 'none' ? { status: 'requested', task_id: input.data.task_id } : state;
    case 'SupplierAnswered':
      return state.status === 'requested' && !input.data.canceled ? { status: 'held', task_id: state.task_id } : state;
    case 'TaskCanceled':
      return { status: 'canceled', task_id: input.data.task_id };
    case 'TaskEnded':
      return { status: 'ended' };
    default: {
      const never: never = input;
      return never;
    }
  }
}

function decide(input: CancellationInput, state: CancellationState): readonly CancellationCommand[] {
  switch (input.type) {
    case 'CancellationRequested':
      return state.status === 'requested' ? [{ type: 'AskSupplierToCancel', data: { task_id: state.task_id } }] : [];
    case 'SupplierAnswered':
      return state.status === 'requested' && input.data.canceled ? [{ type: 'ConfirmCancellation', data: { task_id: state.task_id } }] : [];
    case 'TaskCanceled':
      // The reservation goes back with the answer (the settlement is idempotent: its own reactor repeats it).
      return [{ type: 'SettleTask', data: { task_id: input.data.task_id } }];
    case 'TaskEnded':
      return [];
    default: {
      const never: never = input;
      return never;
    }
  }
}

export const taskCancellationWorkflow: Workflow<CancellationInput, CancellationState, CancellationCommand> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
