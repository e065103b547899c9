import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import type { StoredTask } from '../application/task-list/task-queries';
import type { TaskFollower } from '../application/task-list/task-watch';
import { lastEventVersion, streamTask } from './task-event-stream';

/** A task document in the state given. */
const doc = (version: number, patch: Partial<StoredTask> = {}): StoredTask =>
  ({
    _id: 'task_1',
    _pos: version * 10,
    version,
    task_id: 'task_1',
    bill_id: 'bill_1',
    account_id: 'acc_1',
    connection_id: 'key_1',
    status: 'queued',
    model: 'm',
    resolved_model: 'm-1',
    capability: 'text.generate',
    modality: 'text',
    title: null,
    quote_id: 'qt_1',
    price_version: '1',
    currency: 'CNY',
    max_amount: '0.010000',
    charged_amount: null,
    released_amount: null,
    settlement_status: 'reserved',
    cancellation: { status: 'none', requested_at: null, error_code: null },
    output: null,
    error: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    completed_at: null,
    settled_at: null,
    net_charged: null,
    ...patch,
  }) as StoredTask;

const done = (version: number) => doc(version, { status: 'succeeded', settlement_status: 'settled', charged_amount: '0.010000', net_charged: 10000 });

/** A follower that gives out the states `push`ed, in order. */
function follower(first: StoredTask) {
  let current = first;
  const queue: StoredTask[] = [];
  let wake: (() => void) | undefined;
  const f: TaskFollower = {
    get current() {
      return current;
    },
    async next(signal) {
      while (!queue.length) {
        if (signal.aborted) return null;
        await new Promise<void>((resolve) => {
          wake = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
      current = queue.shift()!;
      return current;
    },
    close: () => undefined,
  };
  return {
    f,
    push: (t: StoredTask) => {
      queue.push(t);
      wake?.();
    },
  };
}

/** The parts of an Express response the stream uses, recording what is written. */
function response() {
  const r = new EventEmitter() as EventEmitter & { statusCode: number; headers: Record<string, string>; written: string; ended: boolean };
  Object.assign(r, { statusCode: 0, headers: {}, written: '', ended: false });
  const res = Object.assign(r, {
    status: (code: number) => ((r.statusCode = code), res),
    setHeader: (k: string, v: string) => ((r.headers[k.toLowerCase()] = v), res),
    flushHeaders: () => undefined,
    write: (s: string) => ((r.written += s), true),
    end: () => ((r.ended = true), res),
  });
  return res;
}

describe('the task event stream', () => {
  afterEach(() => jest.useRealTimers());

  it('sends the state now and each change with its version as id, a comment every 15 s, and ends after the finished state', async () => {
    jest.useFakeTimers();
    const { f, push } = follower(doc(1));
    const res = response();
    const streaming = streamTask(res as unknown as Response, f, -1);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.written).toMatch(/^id: 1\nevent: task\ndata: \{"id":"task_1","status":"queued",.*\}\n\n$/);
    jest.advanceTimersByTime(15_000);
    expect(res.written.endsWith('\n\n: keep-alive\n\n')).toBe(true);
    push(doc(2, { status: 'running' }));
    push(done(4));
    await streaming;
    const events = res.written.split('\n\n').filter((b) => b.startsWith('id:'));
    expect(events.map((b) => b.split('\n')[0])).toEqual(['id: 1', 'id: 2', 'id: 4']);
    expect(JSON.parse(events[2].split('data: ')[1])).toMatchObject({ status: 'succeeded', charged_amount: '0.010000' });
    expect(res.ended).toBe(true);
    jest.advanceTimersByTime(60_000);
    expect(res.written.endsWith('\n\n')).toBe(true);
    expect(res.written.split(': keep-alive').length).toBe(2); // no comment after the end
  });

  it('sends only states newer than Last-Event-ID, and answers 204 when that is the finished state', async () => {
    const { f, push } = follower(doc(3, { status: 'running' }));
    const res = response();
    const streaming = streamTask(res as unknown as Response, f, 3);
    expect(res.written).toBe('');
    push(done(5));
    await streaming;
    expect(res.written).toMatch(/^id: 5\nevent: task\n/);

    const finished = response();
    await streamTask(finished as unknown as Response, follower(done(5)).f, 5);
    expect(finished.statusCode).toBe(204);
    expect(finished.written).toBe('');
    expect(finished.ended).toBe(true);
  });

  it('ends when the client goes away', async () => {
    const { f } = follower(doc(1));
    const res = response();
    const streaming = streamTask(res as unknown as Response, f, -1);
    res.emit('close');
    await streaming;
    expect(res.ended).toBe(true);
  });

  it('reads Last-Event-ID as a version, anything else as none', () => {
    expect(lastEventVersion('7')).toBe(7);
    expect(lastEventVersion(' 12 ')).toBe(12);
    for (const v of [undefined, '', 'abc', '-1', '1.5', '9'.repeat(20)]) expect(lastEventVersion(v)).toBe(-1);
  });
});
