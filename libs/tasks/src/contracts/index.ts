/** The tasks context's contracts: what other libraries may import (Nest-free). */
export * from './task-events';
export { TASK_EVENT_TYPES, type TaskEvent } from '../domain/task';
