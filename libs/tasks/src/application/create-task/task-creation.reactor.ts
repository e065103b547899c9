import { Injectable, Logger } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { type RecordedEvent } from '@gensvc/kernel';
import type { CreationIntent } from '../../domain/task-creation';
import { TaskCreationRunner } from './creation-runner';

/**
 * Every stored creation intent (TaskCreationRequested) → the creation workflow, from the
 * checkpointed subscription. A request runs its creation inline: the reactor waits for that
 * run and does nothing more when it finished; otherwise (the request failed part-way, or the
 * process died and this is the redelivery after a restart) it resumes the workflow from what
 * is stored. The checkpoint passes an intent only once its creation is finished.
 */
@AsReactor()
@Injectable()
export class TaskCreationReactor implements Reactor {
  readonly name = 'tasks.creation';
  readonly handles: readonly string[] = ['TaskCreationRequested'];
  private readonly logger = new Logger('TaskCreation');

  constructor(private readonly runner: TaskCreationRunner) {}

  async handle(event: RecordedEvent): Promise<void> {
    const intent = event.data as CreationIntent;
    if (await this.runner.finishedInline(intent.task_id)) return;
    const run = await this.runner.resume(intent);
    if (run.position !== undefined) this.logger.log(`finished the interrupted creation of task ${intent.task_id} (${run.state.status})`);
  }
}
