/** The operations context's contracts: what other libraries may import (Nest-free). */
export { REPLAY_COMPLETED, type OperationsEvent, type ReplayCompleted, type ReplayCompletedV1Data } from '../domain/replay-events';
