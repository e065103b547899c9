/**
 * The published language between contexts: integration events that a lower context consumes
 * from a higher one without importing it (see docs/architecture.md, "Context graph").
 */
export * from './task-lifecycle';
