export * from './contracts/task-events';
