import { parentPort, workerData } from 'node:worker_threads';
import type { ExpectedRevision } from '@gensvc/event-sourcing';
import { SqliteDatabase, sqliteCode, type Statement } from '../sqlite/sqlite';

/*
 * The write side of the embedded event store: runs a batch of appends in one transaction.
 * It runs either on the caller's thread (in-memory databases, tools) or in a worker thread
 * of its own, so that the commit's fsync does not stall the server's event loop. This module
 * is loaded by the worker on its own (by file path, without the `@gensvc/*` aliases), so it
 * imports nothing at run time but the SQLite connection (`../sqlite/sqlite`, Node only) and
 * Node: the port's types only.
 */

/** Whether a stream whose last revision is `current` (-1n: no stream) meets `expected` (the port's `expectationMet`). */
function expectationMet(expected: ExpectedRevision, current: bigint): boolean {
  return (
    expected === 'any' ||
    (expected === 'no_stream' && current === -1n) ||
    (expected === 'stream_exists' && current >= 0n) ||
    (typeof expected === 'bigint' && expected === current)
  );
}

export interface AppendRequest {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  /** When set, the id the stream's last event must have (a pipelined append). */
  readonly expectedLastEventId?: string;
  /** When set, ids of events that must be stored already (a step queued after the one it follows). */
  readonly after?: readonly string[];
  /** Serialized events, ready to insert. */
  readonly events: readonly { readonly id: string; readonly type: string; readonly data: string; readonly metadata: string }[];
}

export type AppendOutcome =
  | { readonly ok: true; readonly firstRevision: bigint; readonly firstPosition: bigint; readonly lastPosition: bigint }
  | { readonly ok: false; readonly conflict: { readonly expected: string; readonly actual: string } }
  | { readonly ok: false; readonly error: { readonly message: string; readonly code?: string } };

export interface BatchResult {
  /** The newest position before this batch, read under the write lock. */
  readonly previousHead: bigint;
  /** The newest position after it (the batch's last event, or `previousHead`). */
  readonly head: bigint;
  readonly outcomes: readonly AppendOutcome[];
}

export type Synchronous = 'FULL' | 'NORMAL' | 'OFF';

export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    stream TEXT NOT NULL,
    revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    UNIQUE (stream, revision)
  );
  CREATE TABLE IF NOT EXISTS checkpoints (
    name TEXT PRIMARY KEY,
    position INTEGER NOT NULL
  );
`;

/** Opens a connection to the event file with the store's settings and schema; integers read as bigint. */
export function openEventDatabase(file: string, synchronous: Synchronous): SqliteDatabase {
  const db = new SqliteDatabase(file, { bigInts: true, pragmas: ['journal_mode = WAL', `synchronous = ${synchronous}`] });
  db.exec(SCHEMA);
  return db;
}

/** An error as a plain object for an outcome or a message: its SQLite result code by name when it has one. */
function describeError(err: unknown): { message: string; code?: string } {
  const e = err as { message?: string; code?: string } | null;
  return { message: String(e?.message ?? err), code: sqliteCode(err) ?? e?.code };
}

/**
 * Commits batches on one connection. Appends take the write lock (`BEGIN IMMEDIATE`), so
 * the revision check and the insert are one atomic step, also across processes. Each append
 * runs in its own savepoint: one whose expected revision fails is rolled back alone.
 */
export class SqliteCommitter {
  private readonly streamHead: Statement<[string], { revision: bigint; id: string }>;
  private readonly head: Statement<[], { position: bigint | null }>;
  private readonly stored: Statement<[string], { one: bigint }>;
  private readonly insert: Statement<[string, string, bigint, string, string, string]>;

  constructor(private readonly db: SqliteDatabase) {
    this.streamHead = db.prepare('SELECT revision, id FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1');
    this.head = db.prepare('SELECT MAX(position) AS position FROM events');
    this.stored = db.prepare('SELECT 1 AS one FROM events WHERE id = ?');
    this.insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  }

  commit(requests: readonly AppendRequest[]): BatchResult {
    const outcomes: AppendOutcome[] = [];
    const previousHead = this.db.transaction(() => {
      const previousHead = this.head.get()?.position ?? -1n;
      for (const r of requests) {
        try {
          outcomes.push(this.db.transaction(() => this.appendOne(r))); // a savepoint: a failing append is undone alone
        } catch (err) {
          outcomes.push({ ok: false, error: describeError(err) });
        }
      }
      return previousHead;
    });
    let head = previousHead;
    for (const o of outcomes) if (o.ok && o.lastPosition > head) head = o.lastPosition;
    return { previousHead, head, outcomes };
  }

  private appendOne(r: AppendRequest): AppendOutcome {
    const last = this.streamHead.get(r.stream);
    const current = last?.revision ?? -1n;
    if (!expectationMet(r.expected, current) || (r.expectedLastEventId !== undefined && r.expectedLastEventId !== last?.id)) {
      return { ok: false, conflict: { expected: String(r.expected), actual: current === -1n ? 'no_stream' : String(current) } };
    }
    const missing = r.after?.find((id) => this.stored.get(id) === undefined);
    if (missing !== undefined) return { ok: false, conflict: { expected: `event ${missing} stored`, actual: 'not stored' } };
    let revision = current;
    let firstPosition = -1n;
    let lastPosition = -1n;
    for (const e of r.events) {
      revision += 1n;
      lastPosition = BigInt(this.insert.run(e.id, r.stream, revision, e.type, e.data, e.metadata).lastInsertRowid);
      if (firstPosition === -1n) firstPosition = lastPosition;
    }
    return { ok: true, firstRevision: current + 1n, firstPosition, lastPosition };
  }
}

/** Messages between the store and its writer thread. */
export type ToWriter = { readonly id: number; readonly requests: readonly AppendRequest[] };
export type FromWriter = { readonly id: number; readonly result?: BatchResult; readonly error?: { message: string; code?: string } };

export interface WriterData {
  readonly file: string;
  readonly synchronous: Synchronous;
  /** This module's file, which the thread loads. */
  readonly module: string;
  /** TypeScript's path when `module` is a source file (tests): the thread transpiles it. */
  readonly typescript?: string;
}

/** Entry point of the writer thread: commits the batches it is sent, one at a time. */
export function serveCommits(): void {
  const data = workerData as WriterData;
  const port = parentPort!;
  const db = openEventDatabase(data.file, data.synchronous);
  const committer = new SqliteCommitter(db);
  port.on('message', (msg: ToWriter | 'close') => {
    if (msg === 'close') {
      db.close();
      port.close();
      return;
    }
    let reply: FromWriter;
    try {
      reply = { id: msg.id, result: committer.commit(msg.requests) };
    } catch (err) {
      reply = { id: msg.id, error: describeError(err) };
    }
    port.postMessage(reply);
  });
}
