import { Inject, Injectable } from '@nestjs/common';
import { EventStore, WorkflowProcessor, type WorkflowDefinition, type WorkflowOutcome, type WorkflowRun } from '@gensvc/event-sourcing';
import { SupplierGateway } from '@gensvc/suppliers/contracts';
import { isTerminal, type TaskState } from '../../domain/task';
import { taskCancellationWorkflow, type CancellationCommand, type CancellationInput, type CancellationState } from '../../domain/task-cancellation-workflow';
import { TaskSettlement } from '../settle-task/task-settlement';
import { TaskStore } from '../task-store';

/**
 * The cancellation workflow (`domain/task-cancellation-workflow.ts`) under the workflow
 * processor: its history is the task's cancellation as inputs, its commands the supplier
 * gateway's cancel, the confirmation on the task stream and the settlement. The request
 * (POST /v1/tasks/{id}/cancel) starts it inline; `TaskCancellationReactor` resumes it for
 * every stored CancellationRequested the request did not finish (a crash between recording
 * the request and asking the supplier).
 */
@Injectable()
export class TaskCancellation implements WorkflowDefinition<string, CancellationInput, CancellationState, CancellationCommand> {
  readonly name = 'tasks.cancellation';
  readonly workflow = taskCancellationWorkflow;
  readonly processor: WorkflowProcessor<string, CancellationInput, CancellationState, CancellationCommand>;

  constructor(
    private readonly tasks: TaskStore,
    private readonly gateway: SupplierGateway,
    private readonly settlement: TaskSettlement,
    @Inject(EventStore) events: EventStore,
  ) {
    this.processor = new WorkflowProcessor(this, events);
  }

  idOf(taskId: string): string {
    return taskId;
  }

  async history(taskId: string): Promise<readonly CancellationInput[]> {
    return cancellationInputs(await this.tasks.load(taskId));
  }

  /** Asked (the supplier's answer follows as events), canceled and settled, or ended otherwise. */
  finished(state: CancellationState): boolean {
    return state.status !== 'requested';
  }

  /** Runs the cancellation of `taskId` inline from what `trigger` recorded (the task's state after it). */
  start(taskId: string, trigger: () => Promise<TaskState>): Promise<WorkflowRun<CancellationState>> {
    return this.processor.start(taskId, async () => cancellationInputs(await trigger()));
  }

  async execute(c: CancellationCommand): Promise<WorkflowOutcome<CancellationInput>> {
    const taskId = c.data.task_id;
    switch (c.type) {
      case 'AskSupplierToCancel': {
        const answer = await this.gateway.requestCancel(taskId);
        return { inputs: [{ type: 'SupplierAnswered', data: { task_id: taskId, canceled: answer === 'canceled' } }] };
      }
      case 'ConfirmCancellation': {
        const r = await this.tasks.handle(taskId, { type: 'ConfirmCancellation', data: { task_id: taskId }, metadata: { now: this.tasks.now() } });
        return { inputs: endInputs(r.state), position: r.position };
      }
      case 'SettleTask':
        return { inputs: [], position: (await this.settlement.settle(taskId, await this.tasks.load(taskId))).position };
      default: {
        const never: never = c;
        return never;
      }
    }
  }
}

/** How the task ended, as cancellation inputs (nothing while it runs). */
function endInputs(state: TaskState): CancellationInput[] {
  if (state.kind !== 'task' || !isTerminal(state.task.status)) return [];
  const data = { task_id: state.task.task_id };
  return [state.task.status === 'canceled' ? { type: 'TaskCanceled', data } : { type: 'TaskEnded', data }];
}

/** A task's cancellation as inputs: requested, the supplier's answer when it holds the job, how the task ended. */
export function cancellationInputs(state: TaskState): CancellationInput[] {
  if (state.kind !== 'task' || state.task.cancellation.status === 'none') return [];
  const t = state.task;
  const inputs: CancellationInput[] = [{ type: 'CancellationRequested', data: { task_id: t.task_id } }];
  const c = t.cancellation.status;
  if (!isTerminal(t.status) && c !== 'requested' && c !== 'checking') inputs.push({ type: 'SupplierAnswered', data: { task_id: t.task_id, canceled: false } });
  return [...inputs, ...endInputs(state)];
}
