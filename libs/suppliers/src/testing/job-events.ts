import type { INestApplicationContext } from '@nestjs/common';
import { EventStore } from '@gensvc/event-sourcing';
import { newId } from '@gensvc/kernel';
import type { SupplierJobEvent } from '../contracts/supplier-gateway';

/** Test helpers (e2e and integration tests) for supplier jobs. */
interface TestApp {
  readonly app: INestApplicationContext;
}

/** The events of a supplier job, as stored (stream `supplierjob-<task_id>`). */
export async function jobEvents(t: TestApp, taskId: string): Promise<SupplierJobEvent[]> {
  const recorded = await t.app.get(EventStore).readStream<SupplierJobEvent>(`supplierjob-${taskId}`);
  return recorded.map((r) => ({ type: r.type, data: r.data }) as SupplierJobEvent);
}

export const jobEventTypes = async (t: TestApp, taskId: string): Promise<string[]> => (await jobEvents(t, taskId)).map((e) => e.type);

const TERMINAL = ['SupplierJobSucceeded', 'SupplierJobFailed', 'SupplierJobCanceled'];

/** Polls a job's stream until `until` holds (default: the job ended). */
export async function waitForJob(
  t: TestApp,
  taskId: string,
  until: (types: string[]) => boolean = (types) => types.some((x) => TERMINAL.includes(x)),
  timeoutMs = 15_000,
): Promise<SupplierJobEvent[]> {
  const started = Date.now();
  for (;;) {
    const events = await jobEvents(t, taskId);
    if (until(events.map((e) => e.type))) return events;
    if (Date.now() - started > timeoutMs) throw new Error(`job ${taskId} did not get there in ${timeoutMs} ms; events: ${events.map((e) => e.type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const newTaskId = (): string => newId('task');
