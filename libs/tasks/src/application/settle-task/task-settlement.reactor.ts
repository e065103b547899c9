import { Injectable } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { TASK_TERMINAL_EVENTS, type RecordedEvent } from '@gensvc/kernel';
import { TaskSettlement } from './task-settlement';

/** TaskSucceeded / TaskFailed / TaskCanceled → the settlement workflow's processor (nothing when an inline run settled the task). */
@AsReactor()
@Injectable()
export class TaskSettlementReactor implements Reactor {
  readonly name = 'tasks.settlement';
  readonly handles: readonly string[] = TASK_TERMINAL_EVENTS;

  constructor(private readonly settlement: TaskSettlement) {}

  async handle(event: RecordedEvent): Promise<void> {
    await this.settlement.processor.resume((event.data as { task_id: string }).task_id);
  }
}
