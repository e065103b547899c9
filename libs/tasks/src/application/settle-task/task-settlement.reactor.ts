import { Injectable } from '@nestjs/common';
import { AsReactor, TASK_TERMINAL_EVENTS, type Reactor, type RecordedEvent } from '@gensvc/shared';
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
