/** The tasks context publishes its lifecycle events in the shared published language. */
export { TASK_STREAM, TASK_TERMINAL_EVENTS, type TaskCreatedData, type TaskIntegrationEvent, type TaskOutput } from '@gensvc/kernel';
