import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
import { TasksController } from './api/tasks.controller';
import { CancelTaskHandler } from './application/cancel-task/cancel-task.handler';
import { CreateTaskHandler } from './application/create-task/create-task.handler';
import { TaskCreationRunner } from './application/create-task/creation-runner';
import { TaskCreationReactor } from './application/create-task/task-creation.reactor';
import { TaskExecutionReactor } from './application/execution/task-execution.reactor';
import { TaskSettlement } from './application/settle-task/task-settlement';
import { TaskSettlementReactor } from './application/settle-task/task-settlement.reactor';
import { TaskQueries } from './application/task-list/task-queries';
import { TaskWatch } from './application/task-list/task-watch';
import { TasksProjection } from './application/task-list/tasks.projection';
import { TaskStore } from './application/task-store';

/**
 * Tasks context: task creation from a quote (a workflow: quote lock, fund reservation, task;
 * run inline by the request and from the checkpointed subscription, which finishes what a
 * crash interrupted), execution through the supplier gateway, settlement (a workflow),
 * cancellation, and the
 * task and bill read models (GET /v1/tasks, /v1/tasks/{id}, /v1/billing). Imports: the
 * storage module, assets (`AssetRegistry`), voices (`VoiceRegistry`), quoting (`QuoteBook`),
 * suppliers (`SupplierGateway`) and wallet (`WalletCommands`).
 */
@Module({})
export class TasksModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: TasksModule,
      imports: deps.imports,
      controllers: [TasksController],
      providers: [
        TaskStore,
        CreateTaskHandler,
        TaskCreationRunner,
        TaskCreationReactor,
        CancelTaskHandler,
        TaskSettlement,
        TaskSettlementReactor,
        TaskExecutionReactor,
        TaskQueries,
        TaskWatch,
        TasksProjection,
      ],
    };
  }
}
