import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ConcurrencyError } from '../errors';
import type { DomainEvent, EventMetadata, NewEvent, RecordedEvent } from './event';
import { CheckpointStore, EventStore, type AppendResult, type ExpectedRevision, type ReadAllOptions } from './event-store.port';
import { eventSchemas, type EventSchemas } from './upcasters';

interface PendingAppend {
  readonly stream: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

interface Row {
  position: number | bigint;
  id: string;
  stream: string;
  revision: number | bigint;
  type: string;
  data: string;
  metadata: string;
}

/**
 * Embedded event store: one SQLite file in WAL mode. Several processes (the server and the
 * admin CLI) may use it at once; appends take the write lock (`BEGIN IMMEDIATE`), so the
 * revision check and the insert are one atomic step across processes. Appends issued in the
 * same event-loop turn share one transaction (group commit), keeping full durability
 * (`synchronous = FULL`) without one fsync per append.
 */
export class SqliteEventStore extends EventStore {
  private readonly db: Database.Database;
  private readonly emitter = new EventEmitter();
  private readonly pending: PendingAppend[] = [];
  private readonly commitBatch: Database.Transaction<(batch: PendingAppend[], now: string, outcomes: Array<{ ok: AppendResult } | { err: unknown }>) => void>;
  private readonly stmts: {
    streamHead: Database.Statement<[string], { revision: number | bigint | null }>;
    insert: Database.Statement;
    readStream: Database.Statement<[string, bigint]>;
    readAll: Database.Statement<[bigint, number]>;
    head: Database.Statement<[], { position: number | bigint | null }>;
  };

  constructor(
    file: string,
    private readonly schemas: EventSchemas = eventSchemas,
  ) {
    super();
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.defaultSafeIntegers(true);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
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
    `);
    this.stmts = {
      streamHead: this.db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?'),
      insert: this.db.prepare(
        'INSERT INTO events (id, stream, revision, type, data, metadata) VALUES (@id, @stream, @revision, @type, @data, @metadata)',
      ),
      readStream: this.db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision'),
      readAll: this.db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: this.db.prepare('SELECT MAX(position) AS position FROM events'),
    };
    this.emitter.setMaxListeners(100);
    // A nested better-sqlite3 transaction is a savepoint: a failed append rolls back alone.
    const appendInSavepoint = this.db.transaction(this.appendOne.bind(this));
    this.commitBatch = this.db.transaction((batch: PendingAppend[], now: string, outcomes: Array<{ ok: AppendResult } | { err: unknown }>) => {
      for (const item of batch) {
        try {
          outcomes.push({ ok: appendInSavepoint(item.stream, item.events, item.expected, now) });
        } catch (err) {
          outcomes.push({ err }); // this append's savepoint is rolled back; the others commit
        }
      }
    });
  }

  /** The underlying connection, for the embedded checkpoint store. */
  get connection(): Database.Database {
    return this.db;
  }

  override appendToStream<E extends DomainEvent>(
    stream: string,
    events: readonly NewEvent<E>[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append of no events'));
    return new Promise<AppendResult>((resolve, reject) => {
      this.pending.push({ stream, events, expected: options.expectedRevision ?? 'any', resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /**
   * Group commit: the appends requested during one turn of the event loop are written in
   * one transaction (one fsync), each inside its own savepoint, so an append whose
   * expected revision fails is rolled back alone and the others still commit.
   */
  private flush(): void {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    const now = new Date().toISOString();
    const outcomes: Array<{ ok: AppendResult } | { err: unknown }> = [];
    try {
      this.commitBatch.immediate(batch, now, outcomes);
    } catch (err) {
      for (const item of batch) item.reject(err);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if ('ok' in outcome) item.resolve(outcome.ok);
      else item.reject(outcome.err);
    });
    this.emitter.emit('appended');
  }

  private appendOne(stream: string, events: readonly NewEvent[], expected: ExpectedRevision, now: string): AppendResult {
    const headRow = this.stmts.streamHead.get(stream);
    const current = headRow?.revision == null ? -1n : BigInt(headRow.revision);
    checkExpected(stream, expected, current);
    let revision = current;
    let position = -1n;
    for (const e of events) {
      revision += 1n;
      const metadata: EventMetadata = {
        schemaVersion: this.schemas.currentVersion(e.type),
        occurredAt: now,
        ...e.metadata,
      };
      const info = this.stmts.insert.run({
        id: e.id ?? randomUUID(),
        stream,
        revision,
        type: e.type,
        data: JSON.stringify(e.data),
        metadata: JSON.stringify(metadata),
      });
      position = BigInt(info.lastInsertRowid);
    }
    return { nextExpectedRevision: revision, position };
  }

  override async readStream<E extends DomainEvent>(stream: string, options: { fromRevision?: bigint } = {}): Promise<RecordedEvent<E>[]> {
    return this.stmts.readStream.all(stream, options.fromRevision ?? 0n).map((r) => this.toRecorded(r as Row)) as RecordedEvent<E>[];
  }

  override async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.stmts.readAll.all(options.after ?? -1n, options.maxCount ?? 1000).map((r) => this.toRecorded(r as Row));
  }

  override async headPosition(): Promise<bigint> {
    const row = this.stmts.head.get();
    return row?.position == null ? -1n : BigInt(row.position);
  }

  override onAppended(listener: () => void): () => void {
    this.emitter.on('appended', listener);
    return () => this.emitter.off('appended', listener);
  }

  override async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  override async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private toRecorded(r: Row): RecordedEvent {
    const metadata = JSON.parse(r.metadata) as EventMetadata;
    const lifted = this.schemas.lift(r.type, metadata.schemaVersion ?? 1, JSON.parse(r.data));
    return {
      id: r.id,
      streamName: r.stream,
      revision: BigInt(r.revision),
      position: BigInt(r.position),
      type: r.type,
      data: lifted.data,
      metadata: lifted.version === metadata.schemaVersion ? metadata : { ...metadata, schemaVersion: lifted.version },
    };
  }
}

export function checkExpected(stream: string, expected: ExpectedRevision, current: bigint): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === -1n) ||
    (expected === 'stream_exists' && current >= 0n) ||
    (typeof expected === 'bigint' && expected === current);
  if (!ok) throw new ConcurrencyError(stream, String(expected), current === -1n ? 'no_stream' : String(current));
}

/** Reactor checkpoints in the same SQLite file as the events. */
/**
 * Reactor checkpoints in a SQLite file (the events' file by default), on a connection of
 * their own with `synchronous = NORMAL`: a write survives a crash of the process without an
 * fsync of its own (the WAL reaches the disk with the next synced commit or checkpoint).
 * Losing the last checkpoints to a power cut only redelivers some events, which reactors
 * absorb (they are idempotent), while an fsync per reactor batch was the largest cost of
 * the event path.
 */
export class SqliteCheckpointStore extends CheckpointStore {
  private readonly get: Database.Statement<[string], { position: number | bigint }>;
  private readonly put: Database.Statement<[string, bigint]>;

  /** Over an existing connection (its durability settings apply); `open` makes a dedicated one. */
  constructor(private readonly db: Database.Database) {
    super();
    this.get = db.prepare('SELECT position FROM checkpoints WHERE name = ?');
    this.put = db.prepare(
      'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = excluded.position',
    );
  }

  /** Opens (creating when needed) the checkpoint table of `file` on a dedicated connection. */
  static open(file: string): SqliteCheckpointStore {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    db.defaultSafeIntegers(true);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec('CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL)');
    return new SqliteCheckpointStore(db);
  }

  override async load(name: string): Promise<bigint | undefined> {
    const row = this.get.get(name);
    return row ? BigInt(row.position) : undefined;
  }

  override async store(name: string, position: bigint): Promise<void> {
    this.put.run(name, position);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
