import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { ConcurrencyError } from '@gensvc/kernel';
import type { DomainEvent, EventMetadata, NewEvent, RecordedEvent } from '@gensvc/kernel';
import { EventTail } from './event-tail';
import { CheckpointStore, EventStore, type AppendOptions, type AppendResult, type ExpectedRevision, type ReadAllOptions } from '@gensvc/event-sourcing';
import {
  SqliteCommitter,
  openEventDatabase,
  type AppendRequest,
  type BatchResult,
  type FromWriter,
  type Synchronous,
  type ToWriter,
  type WriterData,
} from './sqlite-committer';
import { eventSchemas, type EventSchemas } from '@gensvc/kernel';
import { SqliteDatabase, type Statement } from '../sqlite/sqlite';

interface PendingAppend {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly expectedLastEventId?: string;
  readonly after?: readonly string[];
  readonly events: readonly NewEvent[];
  /** Each event's id and serialized data (serialized on append, so bad data fails that append alone). */
  readonly encoded: readonly { readonly id: string; readonly data: string }[];
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

/** An event's row as read (an array of the columns, cheaper to read in bulk than an object). */
type Row = [position: bigint, id: string, stream: string, revision: bigint, type: string, data: string, metadata: string];
const COLUMNS = 'position, id, stream, revision, type, data, metadata';

/** Commits of all the stores of this process (several may share one file, as in tests and tools). */
let commitsInProcess = 0;

export interface SqliteEventStoreOptions {
  /**
   * Where commits run: `worker` (default for files) keeps the fsync of each commit off the
   * caller's event loop; `inline` commits on the caller's thread (always for `:memory:`).
   */
  readonly commits?: 'worker' | 'inline';
  /** SQLite `synchronous` of the writing connection. Default FULL: a commit survives a power cut. */
  readonly synchronous?: Synchronous;
  /** How many of the newest events are kept parsed in memory for readers. Default 20,000. */
  readonly tailCapacity?: number;
}

/**
 * Embedded event store: one SQLite file in WAL mode. Several processes (the server and the
 * admin CLI) may use it at once; appends take the write lock (`BEGIN IMMEDIATE`), so the
 * revision check and the insert are one atomic step across processes.
 *
 * - Group commit: the appends requested while the previous commit runs (or, when idle, in
 *   one event-loop turn) share one transaction, with full durability (`synchronous = FULL`)
 *   and one fsync per batch. Commits run in a writer thread, so the server keeps serving
 *   while the disk syncs.
 * - The newest events stay parsed in memory (`EventTail`): subscriptions and command
 *   handlers read them from there instead of from SQLite. The tail only ever holds a
 *   complete range of the log (events other processes appended are read back before this
 *   process's next events join it), and a stream is served from it only when no other
 *   process has appended since, so every read is as fresh as a read of the file.
 */
export class SqliteEventStore extends EventStore {
  private readonly db: SqliteDatabase;
  private readonly emitter = new EventEmitter();
  private readonly tail: EventTail;
  private readonly committer: Committer;
  private pending: PendingAppend[] = [];
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  /** The file's newest position as looked up in this turn of the event loop (see dbHead). */
  private knownHead: bigint | undefined;
  /** `commitsInProcess` when `knownHead` was looked up: another store of this process may have committed since. */
  private knownAt = 0;
  private readonly forgetHead = () => {
    this.knownHead = undefined;
  };
  private readonly stmts: {
    readStream: Statement<[string, bigint], Row>;
    readAll: Statement<[bigint, number], Row>;
    range: Statement<[bigint, bigint, number], Row>;
    head: Statement<[], { position: bigint | null }>;
  };

  constructor(
    file: string,
    private readonly schemas: EventSchemas = eventSchemas,
    options: SqliteEventStoreOptions = {},
  ) {
    super();
    const memory = file === ':memory:';
    if (!memory) mkdirSync(dirname(file), { recursive: true });
    const synchronous = options.synchronous ?? 'FULL';
    this.db = openEventDatabase(file, synchronous);
    this.stmts = {
      readStream: this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision`, { arrays: true }),
      readAll: this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`, { arrays: true }),
      range: this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`, { arrays: true }),
      head: this.db.prepare('SELECT MAX(position) AS position FROM events'),
    };
    this.tail = new EventTail(this.dbHead(), options.tailCapacity);
    this.committer =
      memory || options.commits === 'inline' ? new InlineCommitter(new SqliteCommitter(this.db)) : new WorkerCommitter(file, synchronous);
    this.emitter.setMaxListeners(100);
  }

  /** The store's own connection (reads; also writes when commits are inline). */
  get connection(): SqliteDatabase {
    return this.db;
  }

  /** Appends are committed in call order (one queue, one writer) and check `expectedLastEventId` and `after`. */
  override get pipelinedAppends(): boolean {
    return true;
  }

  override appendToStream<E extends DomainEvent>(stream: string, events: readonly NewEvent<E>[], options: AppendOptions = {}): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append of no events'));
    if (!this.db.open) return Promise.reject(new Error('the event store is closed'));
    return new Promise<AppendResult>((resolve, reject) => {
      const encoded = events.map((e) => ({ id: e.id ?? randomUUID(), data: JSON.stringify(e.data) }));
      this.pending.push({ stream, expected: options.expectedRevision ?? 'any', expectedLastEventId: options.expectedLastEventId, after: options.after, events, encoded, resolve, reject });
      this.schedule();
    });
  }

  /** Flushes at the end of this event-loop turn, unless a commit is running (then after it). */
  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.pending.length) this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const now = new Date().toISOString();
    const requests: AppendRequest[] = batch.map(({ stream, expected, expectedLastEventId, after, events, encoded }) => ({
      stream,
      expected,
      ...(expectedLastEventId === undefined ? {} : { expectedLastEventId }),
      ...(after?.length ? { after } : {}),
      events: events.map((e, i) => ({
        id: encoded[i].id,
        type: e.type,
        data: encoded[i].data,
        metadata: JSON.stringify({ schemaVersion: this.schemas.currentVersion(e.type), occurredAt: now, ...e.metadata }),
      })),
    }));
    let result: BatchResult;
    try {
      result = await this.committer.commit(requests);
    } catch (err) {
      for (const item of batch) item.reject(err);
      return;
    }
    try {
      this.remember(requests, result);
    } catch {
      this.tail.reset(result.head); // the tail is only a cache: start it afresh
    }
    result.outcomes.forEach((outcome, i) => {
      const item = batch[i];
      if (outcome.ok) {
        item.resolve({ nextExpectedRevision: outcome.firstRevision + BigInt(item.events.length - 1), position: outcome.lastPosition });
      } else if ('conflict' in outcome) {
        item.reject(new ConcurrencyError(item.stream, outcome.conflict.expected, outcome.conflict.actual));
      } else {
        item.reject(Object.assign(new Error(outcome.error.message), { code: outcome.error.code }));
      }
    });
    this.emitter.emit('appended');
  }

  /** Adds a committed batch (and whatever other processes committed before it) to the tail. */
  private remember(requests: readonly AppendRequest[], result: BatchResult): void {
    commitsInProcess++;
    this.knownHead = undefined;
    const tail = this.tail;
    if (result.previousHead < tail.end) {
      tail.reset(result.head); // cannot happen with one log; start over rather than guess
      return;
    }
    if (result.previousHead > tail.end) {
      const limit = 10_000;
      const gap = this.stmts.range.all(tail.end, result.previousHead, limit + 1);
      if (gap.length > limit) tail.reset(result.previousHead);
      else tail.extend(gap.map((r) => this.toRecorded(r)), result.previousHead);
    }
    const ours: RecordedEvent[] = [];
    result.outcomes.forEach((outcome, i) => {
      if (!outcome.ok) return;
      const r = requests[i];
      if (outcome.lastPosition - outcome.firstPosition !== BigInt(r.events.length - 1)) throw new Error('positions of one append are not contiguous');
      r.events.forEach((e, k) =>
        ours.push(
          this.toRecorded([outcome.firstPosition + BigInt(k), e.id, r.stream, outcome.firstRevision + BigInt(k), e.type, e.data, e.metadata]),
        ),
      );
    });
    tail.extend(ours, result.head);
  }

  override async readStream<E extends DomainEvent>(stream: string, options: { fromRevision?: bigint } = {}): Promise<RecordedEvent<E>[]> {
    const from = options.fromRevision ?? 0n;
    const tail = this.tail;
    if (this.dbHead() === tail.end) {
      // nothing was committed beyond the tail: it answers if it knows the stream
      const cached = tail.readStream(stream, from);
      if (cached) return cached as RecordedEvent<E>[];
      if (tail.knownAbsent(stream)) return [];
    }
    const events = this.stmts.readStream.all(stream, from).map((r) => this.toRecorded(r)) as RecordedEvent<E>[];
    if (events.length === 0 && from === 0n) tail.noteAbsent(stream);
    return events;
  }

  override async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? -1n;
    const max = options.maxCount ?? 1000;
    const cached = this.tail.readAll(after, max);
    if (!cached) return this.fromFile(after, max);
    // the tail ends at its `end`; other processes (or a commit not yet remembered) may have more
    return cached.length < max && this.dbHead() !== this.tail.end ? cached.concat(this.fromFile(this.tail.end, max - cached.length)) : cached;
  }

  private fromFile(after: bigint, max: number): RecordedEvent[] {
    return this.stmts.readAll.all(after, max).map((r) => this.toRecorded(r));
  }

  override async headPosition(): Promise<bigint> {
    return this.dbHead();
  }

  override onAppended(listener: () => void): () => void {
    this.emitter.on('appended', listener);
    return () => this.emitter.off('appended', listener);
  }

  override async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  /** Waits for the appends already requested, then closes the writer and the connection. */
  override async close(): Promise<void> {
    while (this.flushing || this.scheduled || this.pending.length) {
      if (this.flushing) await this.flushing;
      else await new Promise((r) => setImmediate(r));
    }
    await this.committer.close();
    if (this.db.open) this.db.close();
  }

  /**
   * The newest position in the file. Looked up once per turn of the event loop (and again
   * after any store of this process committed): whatever another process commits meanwhile
   * can only become known to this one through input that arrives in a later turn, so the
   * reads of one turn may share one look.
   */
  private dbHead(): bigint {
    if (this.knownHead === undefined || this.knownAt !== commitsInProcess) {
      this.knownHead = this.stmts.head.get()?.position ?? -1n;
      this.knownAt = commitsInProcess;
      setImmediate(this.forgetHead);
    }
    return this.knownHead;
  }


  private toRecorded([position, id, stream, revision, type, data, meta]: Row): RecordedEvent {
    const metadata = JSON.parse(meta) as EventMetadata;
    const lifted = this.schemas.lift(type, metadata.schemaVersion ?? 1, JSON.parse(data));
    return {
      id,
      streamName: stream,
      revision,
      position,
      type,
      data: lifted.data,
      metadata: lifted.version === metadata.schemaVersion ? metadata : { ...metadata, schemaVersion: lifted.version },
    };
  }

}

interface Committer {
  commit(requests: readonly AppendRequest[]): Promise<BatchResult>;
  close(): Promise<void>;
}

class InlineCommitter implements Committer {
  constructor(private readonly committer: SqliteCommitter) {}

  async commit(requests: readonly AppendRequest[]): Promise<BatchResult> {
    return this.committer.commit(requests);
  }

  async close(): Promise<void> {}
}

/**
 * Loads `sqlite-committer` in a worker thread. When the store runs from its TypeScript
 * sources (tests), the worker transpiles that module on load.
 */
const WORKER_BOOT = `
const { workerData } = require('node:worker_threads');
if (workerData.typescript) {
  const ts = require(workerData.typescript);
  const fs = require('node:fs');
  require.extensions['.ts'] = (m, filename) => {
    const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
    m._compile(out.outputText, filename);
  };
}
require(workerData.module).serveCommits();
`;

/** Commits in a writer thread, one batch at a time; the thread holds the process open only while it works. */
class WorkerCommitter implements Committer {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(r: BatchResult): void; reject(err: unknown): void }>();

  constructor(
    private readonly file: string,
    private readonly synchronous: Synchronous,
  ) {}

  commit(requests: readonly AppendRequest[]): Promise<BatchResult> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<BatchResult>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, requests } satisfies ToWriter);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise((r) => worker.once('exit', r));
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  private start(): Worker {
    const ext = extname(__filename);
    const data: WriterData = {
      file: this.file,
      synchronous: this.synchronous,
      module: join(__dirname, `sqlite-committer${ext}`),
      ...(ext === '.ts' ? { typescript: require.resolve('typescript') } : {}),
    };
    const worker = new Worker(WORKER_BOOT, { eval: true, workerData: data });
    worker.unref();
    worker.on('message', (msg: FromWriter) => {
      const w = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      if (this.waiting.size === 0) worker.unref();
      if (!w) return;
      if (msg.result) w.resolve(msg.result);
      else w.reject(Object.assign(new Error(msg.error?.message ?? 'commit failed'), { code: msg.error?.code }));
    });
    const fail = (err: unknown) => {
      if (this.worker === worker) this.worker = undefined;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the event writer thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * Reactor checkpoints in a SQLite file (the events' file by default), on a connection of
 * their own with `synchronous = NORMAL`: a write survives a crash of the process without an
 * fsync of its own (the WAL reaches the disk with the next synced commit or checkpoint).
 * Losing the last checkpoints to a power cut only redelivers some events, which reactors
 * absorb (they are idempotent), while an fsync per reactor batch was the largest cost of
 * the event path.
 */
export class SqliteCheckpointStore extends CheckpointStore {
  private readonly get: Statement<[string], { position: number | bigint }>;
  private readonly put: Statement<[string, bigint]>;

  /** Over an existing connection (its durability settings apply); `open` makes a dedicated one. */
  constructor(private readonly db: SqliteDatabase) {
    super();
    this.get = db.prepare('SELECT position FROM checkpoints WHERE name = ?');
    this.put = db.prepare(
      'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = excluded.position',
    );
  }

  /** Opens (creating when needed) the checkpoint table of `file` on a dedicated connection. */
  static open(file: string): SqliteCheckpointStore {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new SqliteDatabase(file, { bigInts: true, pragmas: ['journal_mode = WAL', 'synchronous = NORMAL'] });
    db.exec('CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL)');
    return new SqliteCheckpointStore(db);
  }

  override async load(name: string): Promise<bigint | undefined> {
    this.checkOpen();
    const row = this.get.get(name);
    return row ? BigInt(row.position) : undefined;
  }

  override async store(name: string, position: bigint): Promise<void> {
    this.checkOpen();
    this.put.run(name, position);
  }

  private checkOpen(): void {
    if (!this.db.open) throw new Error('the checkpoint database is not open');
  }

  override async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
