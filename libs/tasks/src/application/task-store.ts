import { Inject, Injectable } from '@nestjs/common';
import { Clock, streamName } from '@gensvc/kernel';
import { EventStore, handleCommand, loadAggregate, startCommand, type StartedCommand } from '@gensvc/event-sourcing';
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

  async handle(taskId: string, command: TaskCommand): Promise<{ state: TaskState; events: readonly TaskEvent[]; position?: bigint }> {
    const r = await handleCommand(this.events, streamName(TASK_STREAM, taskId), taskDecider, command, { retries: 20 });
    return { state: r.state, events: r.events, position: r.position };
  }

  /**
   * A command queued after the events named by `after`, without waiting for the commit
   * (pipelined appends). `fresh`: the task id was made just now, so its stream is not read.
   */
  begin(taskId: string, command: TaskCommand, after: readonly string[], options: { fresh?: boolean } = {}): Promise<StartedCommand<TaskState, TaskEvent>> {
    return startCommand(this.events, streamName(TASK_STREAM, taskId), taskDecider, command, { after, fresh: options.fresh });
  }

  now(): Date {
    return this.clock.now();
  }
}
