import { Inject, Injectable } from '@nestjs/common';
import { Clock, streamName } from '@gensvc/kernel';
import { EventStore, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { TASK_STREAM } from '../contracts/task-events';
import { taskDecider, type TaskCommand, type TaskEvent, type TaskState } from '../domain/task';

/** Commands on task streams (`task-<task_id>`) through the kernel's handleCommand. */
@Injectable()
export class TaskStore {
  constructor(
    @Inject(EventStore) readonly events: EventStore,
    readonly clock: Clock,
  ) {}

  async load(taskId: string): Promise<TaskState> {
    return (await loadAggregate(this.events, streamName(TASK_STREAM, taskId), taskDecider)).state;
  }

  /** `fresh`: the task id was made just now, so its stream is not read before the first attempt. */
  async handle(taskId: string, command: TaskCommand, options: { fresh?: boolean } = {}): Promise<{ state: TaskState; events: readonly TaskEvent[]; position?: bigint }> {
    const r = await handleCommand(this.events, streamName(TASK_STREAM, taskId), taskDecider, command, { retries: 20, fresh: options.fresh });
    return { state: r.state, events: r.events, position: r.position };
  }

  now(): Date {
    return this.clock.now();
  }
}
