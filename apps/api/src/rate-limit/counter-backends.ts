import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ReadStore } from '@gensvc/event-sourcing';
import { SqliteDatabase, type Statement } from '@gensvc/storage';
import { CounterBackend, type CounterDelta } from './counter-backend';

/**
 * Counters in `DATA_DIR/ratelimits.db`, shared by the processes of one machine. WAL with
 * `synchronous = OFF`: a flush is one short write transaction without an fsync (a power
 * cut may forget the last second of counts, which only ever lets a little more through).
 * It is a file of its own so the event store's writer never waits on it.
 */
export class SqliteCounterBackend extends CounterBackend {
  private readonly db: SqliteDatabase;
  private readonly upsert: Statement<[string, number, number, number], { n: number }>;
  private readonly purgeStmt: Statement<[number]>;

  constructor(file: string) {
    super();
    mkdirSync(dirname(file), { recursive: true });
    this.db = new SqliteDatabase(file, { pragmas: ['journal_mode = WAL', 'synchronous = OFF'] });
    this.db.exec('CREATE TABLE IF NOT EXISTS counters (k TEXT NOT NULL, w INTEGER NOT NULL, n INTEGER NOT NULL, exp INTEGER NOT NULL, PRIMARY KEY (k, w)) WITHOUT ROWID');
    this.upsert = this.db.prepare('INSERT INTO counters (k, w, n, exp) VALUES (?, ?, ?, ?) ON CONFLICT (k, w) DO UPDATE SET n = n + excluded.n RETURNING n');
    this.purgeStmt = this.db.prepare('DELETE FROM counters WHERE exp < ?');
  }

  async add(deltas: readonly CounterDelta[]): Promise<number[]> {
    return this.db.transaction(() => deltas.map((d) => this.upsert.get(d.key, d.windowStart, d.delta, d.expiresAt)!.n));
  }

  async purge(now: number): Promise<void> {
    this.purgeStmt.run(now);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

interface CounterDoc {
  _id: string;
  n: number;
  exp: number;
  [k: string]: unknown;
}

/** Counters in MongoDB (`rate_limit_counters`), shared by every process on the same database. */
export class ReadStoreCounterBackend extends CounterBackend {
  constructor(private readonly store: ReadStore) {
    super();
  }

  private get counters() {
    return this.store.collection<CounterDoc>('rate_limit_counters');
  }

  async add(deltas: readonly CounterDelta[]): Promise<number[]> {
    const ids = deltas.map((d) => `${d.key}|${d.windowStart}`);
    await Promise.all(
      deltas.map((d, i) => (d.delta ? this.counters.updateOne({ _id: ids[i] }, { $inc: { n: d.delta }, $setOnInsert: { exp: d.expiresAt } }, { upsert: true }) : undefined)),
    );
    const docs = await this.counters.find({ _id: { $in: ids } });
    const byId = new Map(docs.map((d) => [d._id, d.n]));
    return ids.map((id) => byId.get(id) ?? 0);
  }

  async purge(now: number): Promise<void> {
    await this.counters.deleteMany({ exp: { $lt: now } });
  }

  async close(): Promise<void> {}
}
