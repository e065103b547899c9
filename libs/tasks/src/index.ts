export * from './contracts/task-events';
export { TasksModule } from './tasks.module';
