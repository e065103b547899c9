export * from './contracts';
export { TasksModule } from './tasks.module';
/** Finishes task creations a crash interrupted (runs by itself; `runOnce` for operators and tests). */
export { CreationRecovery } from './application/create-task/creation-recovery';
