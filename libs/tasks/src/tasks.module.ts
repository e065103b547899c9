import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
import { TasksController } from './api/tasks.controller';
import { CancelTaskHandler } from './application/cancel-task/cancel-task.handler';
import { TaskCancellation } from './application/cancel-task/task-cancellation';
import { TaskCancellationReactor } from './application/cancel-task/task-cancellation.reactor';
import { CreateTaskHandler } from './application/create-task/create-task.handler';
import { TaskCreation } from './application/create-task/task-creation';
import { TaskCreationReactor } from './application/create-task/task-creation.reactor';
import { TaskExecutionReactor } from './application/execution/task-execution.reactor';
import { TaskSettlement } from './application/settle-task/task-settlement';
import { TaskSettlementReactor } from './application/settle-task/task-settlement.reactor';
import { TaskQueries } from './application/task-list/task-queries';
import { TaskWatch } from './application/task-list/task-watch';
import { TasksProjection } from './application/task-list/tasks.projection';
import { TaskStore } from './application/task-store';

/**
 * Tasks context: three workflows run by the one workflow processor (creation from a quote:
 * quote lock, fund reservation, task; settlement; cancellation), each started inline by a
 * request or a reactor and resumed from the checkpointed subscription after a crash;
 * execution through the supplier gateway; and the
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
        TaskCreation,
        TaskCreationReactor,
        CancelTaskHandler,
        TaskCancellation,
        TaskCancellationReactor,
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
