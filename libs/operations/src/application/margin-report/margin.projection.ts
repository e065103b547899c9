import { Injectable } from '@nestjs/common';
import { AsProjection, DuplicateKeyError, ProjectionProvider, type Collection, type Projection } from '@gensvc/event-sourcing';
import { type RecordedOf } from '@gensvc/kernel';
import { MARGIN_EVENT_TYPES, addToHour, contributionOf, evolveMarginTask, hourKey, type MarginEvent, type MarginHour, type MarginTask } from '../../domain/margin';

/** One record per task until it settles (settled tasks that charged stay, for the partial hours of a window). */
export const MARGIN_TASKS = 'operations_margin_tasks';
/** One document per hour, model and channel: the tasks settled in it, their charges and their costs. */
export const MARGIN_HOURS = 'operations_margin_hours';

interface Positioned {
  _id: string;
  /** Position of the last event applied. */
  _pos: number;
  [key: string]: unknown;
}
export interface MarginTaskDoc extends MarginTask, Positioned {}
export interface MarginHourDoc extends MarginHour, Positioned {}

/** A task's record without the bookkeeping fields. */
export function taskOf(doc: MarginTaskDoc): MarginTask {
  return { model: doc.model, quantity: doc.quantity, channel: doc.channel, unit_cost: doc.unit_cost, charged: doc.charged, settled_at: doc.settled_at };
}

const hourOfDoc = (doc: MarginHourDoc): MarginHour => ({ hour: doc.hour, model: doc.model, channel: doc.channel, tasks: doc.tasks, revenue: doc.revenue, cost: doc.cost });

/**
 * Writes `next` over `current` if nobody changed it since it was read (the position it held),
 * or inserts it; null deletes. A concurrent writer (another process's loop, MongoDB) applied
 * the same events in the same order, so losing the race loses nothing.
 */
async function write<T extends Positioned>(c: Collection<T>, current: T | null, next: T | null, id: string): Promise<void> {
  try {
    if (next === null) {
      if (current) await c.deleteOne({ _id: id, _pos: current._pos } as never);
    } else if (current) await c.replaceOne({ _id: id, _pos: current._pos } as never, next);
    else await c.insertOne(next);
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
  }
}

/**
 * The margin report's read model (`domain/margin.ts`). Each document records the position of
 * the last event applied to it, so an event delivered again changes nothing: a task's record
 * and its hour are guarded each on its own, so a settlement applied to the record but not yet
 * to the hour (a crash between the two writes) still reaches the hour.
 */
export const marginProjection: Projection = {
  name: 'operations.margin',
  collections: [MARGIN_TASKS, MARGIN_HOURS],
  handles: MARGIN_EVENT_TYPES,
  async setup(target) {
    await target.collection(MARGIN_TASKS).createIndex({ keys: { settled_at: 1 } });
    await target.collection(MARGIN_HOURS).createIndex({ keys: { hour: 1 } });
  },
  async apply(recorded, target) {
    const event = recorded as RecordedOf<MarginEvent>;
    const id = event.data.task_id;
    const pos = Number(event.position);
    const tasks = target.collection<MarginTaskDoc>(MARGIN_TASKS);
    const current = await tasks.findOne({ _id: id });
    let task: MarginTask | null;
    if (current && current._pos >= pos) {
      task = taskOf(current);
    } else {
      task = evolveMarginTask(current ? taskOf(current) : null, event);
      await write(tasks, current, task === null ? null : ({ ...task, _id: id, _pos: pos } as MarginTaskDoc), id);
    }
    if (event.type !== 'TaskSettled' || task === null) return;
    const contribution = contributionOf(task);
    if (!contribution) return;
    const hours = target.collection<MarginHourDoc>(MARGIN_HOURS);
    const hourId = hourKey(contribution);
    const hour = await hours.findOne({ _id: hourId });
    if (hour && hour._pos >= pos) return;
    await write(hours, hour, { ...addToHour(hour ? hourOfDoc(hour) : null, contribution), _id: hourId, _pos: pos } as MarginHourDoc, hourId);
  },
};

@Injectable()
@AsProjection()
export class MarginProjection extends ProjectionProvider {
  protected readonly inner = marginProjection;
}
