import { eventSchemas, type DomainEvent } from '@gensvc/shared';

/**
 * Audit trail of replays: one stream per replay (`replay-<id>`). Schema version 2 is the
 * current shape; version 1 (`events.v1`) is lifted on read by the upcaster below, so a
 * replay of old streams yields the current shape (DESIGN rule 5).
 */
export type ReplayCompleted = DomainEvent<
  'ReplayCompleted',
  {
    readonly replayId: string;
    /** True when every projection was rebuilt. */
    readonly all: boolean;
    readonly projections: readonly string[];
    readonly events: number;
    readonly seconds: number;
  }
>;

/** Version 1 of ReplayCompleted: one projection or all (null), duration in milliseconds. */
export interface ReplayCompletedV1Data {
  readonly replayId: string;
  readonly projection: string | null;
  readonly events: number;
  readonly durationMs: number;
}

export type OperationsEvent = ReplayCompleted;

export const REPLAY_COMPLETED = 'ReplayCompleted';

/** v1 → v2: a single optional projection becomes a list plus `all`; milliseconds become seconds. */
export function upcastReplayCompletedV1(d: ReplayCompletedV1Data): ReplayCompleted['data'] {
  return {
    replayId: d.replayId,
    all: d.projection === null,
    projections: d.projection === null ? [] : [d.projection],
    events: d.events,
    seconds: Math.round(d.durationMs) / 1000,
  };
}

eventSchemas.upcast(REPLAY_COMPLETED, 1, upcastReplayCompletedV1);
