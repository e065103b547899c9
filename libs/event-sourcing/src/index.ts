/**
 * Event sourcing around the kernel: the event store and read store ports, the command
 * handler, projections, reactors and the subscription engine that runs them, consumer
 * groups, leases, keyed locks and timers, and the request context that correlates events.
 */
export * from './request-context';
export * from './keyed-lock';
export * from './keyed-timers';
export * from './event-store.port';
export * from './command-handler';
export * from './append-chain';
export * from './workflow-processor';
export * from './projection';
export * from './reactor';
export * from './engine';
export * from './projection-lag.error';
export * from './consumer-groups.port';
export * from './read-store/read-store.port';
export * from './read-store/documents';
export { filterMatcher } from './read-store/simple-filter';
export * from './lease-store.port';
