import { Injectable } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { TASK_TERMINAL_EVENTS, type RecordedEvent } from '@gensvc/kernel';
import { TaskSettlement } from './task-settlement';

/** TaskSucceeded / TaskFailed / TaskCanceled → the settlement workflow (settling twice is a no-op). */
@AsReactor()
@Injectable()
export class TaskSettlementReactor implements Reactor {
  readonly name = 'tasks.settlement';
  readonly handles: readonly string[] = TASK_TERMINAL_EVENTS;

  constructor(private readonly settlement: TaskSettlement) {}

  async handle(event: RecordedEvent): Promise<void> {
    await this.settlement.settle((event.data as { task_id: string }).task_id);
  }
}
