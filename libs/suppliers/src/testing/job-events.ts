import type { INestApplicationContext } from '@nestjs/common';
import { EventStore } from '@gensvc/event-sourcing';
import { newId } from '@gensvc/kernel';
import type { SupplierJobEvent } from '../contracts/supplier-gateway';
import { SupplierJobRunner } from '../application/submit-job/supplier-job-runner';

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

/** Polls `check` every 20 ms; fails naming `what` after `timeoutMs`. */
export async function pollUntil(check: () => boolean, what: () => string, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what()} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Resolves once the app's job runner has let the job go: no step of it running or waiting, no
 * look pending. After that the runner appends nothing to the job's stream unless something
 * schedules the job again: tests wait for it before they check what a job did not do.
 */
export async function waitForRunnerToLetGo(t: TestApp, taskId: string, timeoutMs = 15_000): Promise<void> {
  await runnerLetsGo(t.app.get(SupplierJobRunner, { strict: false }), taskId, timeoutMs);
}

/** `waitForRunnerToLetGo` for a runner a test built itself. */
export async function runnerLetsGo(runner: Pick<SupplierJobRunner, 'holds' | 'nextLookAt'>, taskId: string, timeoutMs = 15_000): Promise<void> {
  await pollUntil(() => !runner.holds(taskId), () => `the job runner still holds job ${taskId} (next look: ${runner.nextLookAt(taskId) ?? 'none'})`, timeoutMs);
}

/**
 * Resolves once the app's job runner sleeps on the job for at least `aheadMs`: its next look is
 * its deadline or the longest sleep, not a step due soon.
 */
export async function waitForJobAsleep(t: TestApp, taskId: string, aheadMs = 30_000, timeoutMs = 15_000): Promise<void> {
  const runner = t.app.get(SupplierJobRunner, { strict: false });
  const asleep = () => (runner.nextLookAt(taskId) ?? 0) >= Date.now() + aheadMs;
  await pollUntil(asleep, () => `job ${taskId} is not asleep (next look: ${runner.nextLookAt(taskId) ?? 'none'})`, timeoutMs);
}

export const newTaskId = (): string => newId('task');
