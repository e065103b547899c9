export { OperationsModule, type OperationsOptions } from './operations.module';
export { Metrics, countEventsAfter } from './infrastructure/metrics';
export { AdminServer } from './infrastructure/admin-server';
export { ReplayService, type ReplayOptions } from './application/replay/replay.service';
export { MarginReportHandler, type MarginReportAnswer, type MarginReportQuery } from './application/margin-report/margin-report.handler';
export type { ReplayResult, ReplayState, ReplayStatus, ReplayPhase } from './application/replay/replay-progress';
export { AdminClient, AdminUnreachableError, adminBaseUrl } from './infrastructure/admin-client';
export * from './contracts';
