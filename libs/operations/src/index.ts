export { OperationsModule, type OperationsOptions } from './operations.module';
export { Metrics, countEventsAfter } from './infrastructure/metrics';
export { AdminServer } from './infrastructure/admin-server';
export { ReplayService, type ReplayOptions } from './application/replay/replay.service';
export type { ReplayResult, ReplayState, ReplayStatus, ReplayPhase } from './application/replay/replay-progress';
export { AdminClient, AdminUnreachableError, adminBaseUrl } from './infrastructure/admin-client';
export * from './contracts';

import { ReplayHistoryProjection } from './application/replay/replay-history.projection';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const OPERATIONS_PROJECTIONS = [ReplayHistoryProjection] as const;
