export * from './contracts';
export { TasksModule } from './tasks.module';
