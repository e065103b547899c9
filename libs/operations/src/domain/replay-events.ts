import { eventSchemas, type DomainEvent } from '@gensvc/kernel';

/**
 * Audit trail of replays: one stream per replay (`replay-<id>`). Schema version 3 is the
 * current shape (snake_case like every event); versions 1 and 2 are lifted on read by the
 * upcasters below, so a replay of old streams yields the current shape (DESIGN rule 5).
 */
export type ReplayCompleted = DomainEvent<
  'ReplayCompleted',
  {
    readonly replay_id: string;
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

/** Version 2 of ReplayCompleted: the current fields, in camelCase. */
export interface ReplayCompletedV2Data {
  readonly replayId: string;
  readonly all: boolean;
  readonly projections: readonly string[];
  readonly events: number;
  readonly seconds: number;
}

/** v1 → v2: a single optional projection becomes a list plus `all`; milliseconds become seconds. */
export function upcastReplayCompletedV1(d: ReplayCompletedV1Data): ReplayCompletedV2Data {
  return {
    replayId: d.replayId,
    all: d.projection === null,
    projections: d.projection === null ? [] : [d.projection],
    events: d.events,
    seconds: Math.round(d.durationMs) / 1000,
  };
}

/** v2 → v3: snake_case. */
export function upcastReplayCompletedV2({ replayId, ...rest }: ReplayCompletedV2Data): ReplayCompleted['data'] {
  return { replay_id: replayId, ...rest };
}

eventSchemas.upcast(REPLAY_COMPLETED, 1, upcastReplayCompletedV1);
eventSchemas.upcast(REPLAY_COMPLETED, 2, upcastReplayCompletedV2);
