import { Injectable } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { type RecordedEvent } from '@gensvc/kernel';
import { TaskCancellation } from './task-cancellation';

/**
 * CancellationRequested → the cancellation workflow's processor, from the checkpointed
 * subscription: nothing when the request's inline run finished; otherwise (the process died
 * between recording the request and asking the supplier) it asks again (idempotent).
 */
@AsReactor()
@Injectable()
export class TaskCancellationReactor implements Reactor {
  readonly name = 'tasks.cancellation';
  readonly handles: readonly string[] = ['CancellationRequested'];

  constructor(private readonly cancellation: TaskCancellation) {}

  async handle(event: RecordedEvent): Promise<void> {
    await this.cancellation.processor.resume((event.data as { task_id: string }).task_id);
  }
}
