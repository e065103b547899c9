import { Module } from '@nestjs/common';
import { TasksController } from './api/tasks.controller';
import { CancelTaskHandler } from './application/cancel-task/cancel-task.handler';
import { CreateTaskHandler } from './application/create-task/create-task.handler';
import { CreationRecovery, PendingCreationsProjection } from './application/create-task/creation-recovery';
import { TaskExecutionReactor } from './application/execution/task-execution.reactor';
import { TaskSettlement } from './application/execution/task-settlement';
import { TaskQueries } from './application/task-list/task-queries';
import { TasksProjection } from './application/task-list/tasks.projection';
import { TaskStore } from './application/task-store';

/**
 * Tasks context: task creation from a quote (quote lock + fund reservation, idempotent, with
 * crash recovery), execution through the supplier gateway, settlement, cancellation, and the
 * task and bill read models (GET /v1/tasks, /v1/tasks/{id}, /v1/billing).
 */
@Module({
  controllers: [TasksController],
  providers: [
    TaskStore,
    CreateTaskHandler,
    CreationRecovery,
    PendingCreationsProjection,
    CancelTaskHandler,
    TaskSettlement,
    TaskExecutionReactor,
    TaskQueries,
    TasksProjection,
  ],
})
export class TasksModule {}
