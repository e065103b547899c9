export * from './contracts';
export { TasksModule } from './tasks.module';

import { TasksProjection } from './application/task-list/tasks.projection';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const TASKS_PROJECTIONS = [TasksProjection] as const;
