import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { REPLAY_COMPLETED, type ReplayCompleted } from '../../domain/replay-events';

export const REPLAY_HISTORY = 'operations_replays';

/** One document per completed replay, as listed by `GET /admin/replays`. */
export interface ReplayHistoryDoc extends Record<string, unknown> {
  replay_id: string;
  all: boolean;
  projections: string[];
  events: number;
  seconds: number;
  completed_at: string;
}

const projection = documentProjection<ReplayHistoryDoc, ReplayCompleted>({
  name: 'operations.replay-history',
  collection: REPLAY_HISTORY,
  handles: [REPLAY_COMPLETED],
  documentId: (e) => e.data.replay_id,
  evolve: (_doc, e) => {
    const d = e.data;
    return {
      replay_id: d.replay_id,
      all: d.all,
      projections: [...d.projections],
      events: d.events,
      seconds: d.seconds,
      completed_at: e.metadata.occurredAt,
    };
  },
});

@Injectable()
@AsProjection()
export class ReplayHistoryProjection extends ProjectionProvider {
  protected readonly inner = projection;
}
