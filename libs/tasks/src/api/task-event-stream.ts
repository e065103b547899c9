import type { Response } from 'express';
import { isFinished, type TaskFollower } from '../application/task-list/task-watch';
import type { StoredTask } from '../application/task-list/task-queries';
import { taskView } from '../application/task-views';

/** A comment line this often keeps proxies and clients from closing a quiet stream. */
export const KEEP_ALIVE_MS = 15_000;

/** The `id:` of a task state: how many events of the task it folds in (0 on documents older than that count). */
export const versionOf = (task: StoredTask): number => task.version ?? 0;

/** `Last-Event-ID` as a version, or -1 when absent or not one of ours (then everything is sent). */
export function lastEventVersion(header: string | undefined): number {
  return header !== undefined && /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : -1;
}

/**
 * Streams the followed task as server-sent events (GET /v1/tasks/{id}/events): an event
 * `task` with the task object now and at every change, each with `id:` its version; only
 * states newer than `after` (`Last-Event-ID`) are sent. A comment line every 15 s keeps the
 * connection alive. The stream ends after the finished state (a terminal status, settled), when
 * the client goes away, or when the service shuts down. When the client already holds the
 * finished state, the answer is 204 without a stream (an EventSource then stops reconnecting).
 */
export async function streamTask(res: Response, follower: TaskFollower, after: number, keepAliveMs = KEEP_ALIVE_MS): Promise<void> {
  if (isFinished(follower.current) && versionOf(follower.current) <= after) {
    res.status(204).end();
    return;
  }
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Accel-Buffering', 'no'); // proxies such as nginx pass each event on at once
  res.flushHeaders();
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
  try {
    for (let task: StoredTask | null = follower.current; task; task = isFinished(task) ? null : await follower.next(gone.signal)) {
      if (versionOf(task) > after) res.write(`id: ${versionOf(task)}\nevent: task\ndata: ${JSON.stringify(taskView(task))}\n\n`);
    }
  } finally {
    clearInterval(keepAlive);
    res.end();
  }
}
