import { Injectable, Logger } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { type RecordedEvent } from '@gensvc/kernel';
import type { CreationIntent } from '../../domain/task-creation';
import { TaskCreation } from './task-creation';

/**
 * Every stored creation intent (TaskCreationRequested) → the creation workflow's processor,
 * from the checkpointed subscription: it waits for the request's inline run and does nothing
 * more when that finished; otherwise (the request failed part-way, or the process died and
 * this is the delivery after a restart) it resumes the workflow from what is stored. The
 * checkpoint passes an intent only once its creation is finished.
 */
@AsReactor()
@Injectable()
export class TaskCreationReactor implements Reactor {
  readonly name = 'tasks.creation';
  readonly handles: readonly string[] = ['TaskCreationRequested'];
  private readonly logger = new Logger('TaskCreation');

  constructor(private readonly creation: TaskCreation) {}

  async handle(event: RecordedEvent): Promise<void> {
    const intent = event.data as CreationIntent;
    const run = await this.creation.processor.resume(intent);
    if (run?.position !== undefined) this.logger.log(`finished the interrupted creation of task ${intent.task_id} (${run.state.status})`);
  }
}
