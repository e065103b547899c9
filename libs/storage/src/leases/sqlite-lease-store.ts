import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { LeaseStore } from '@gensvc/event-sourcing';
import { SqliteDatabase, type SqlValue, type Statement } from '../sqlite/sqlite';

const RENEW_CHUNK = 500;

/**
 * Leases in a SQLite file (embedded default: `DATA_DIR/leases.db`), shared by every process
 * on that data directory. Each claim is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE`
 * statement, atomic under SQLite's write lock. WAL with `synchronous = NORMAL`: a claim is
 * not worth an fsync, since a lost claim after a power cut only frees a slot early, and a
 * claim never outlives its time to live.
 */
export class SqliteLeaseStore extends LeaseStore {
  private readonly db: SqliteDatabase;
  private readonly claim: Statement<[{ key: string; owner: string; expires: number; now: number }]>;
  private readonly free: Statement<[string, string]>;
  private readonly read: Statement<[string], { owner: string; expires_at: number }>;

  constructor(
    file: string,
    private readonly now: () => number = Date.now,
  ) {
    super();
    mkdirSync(dirname(file), { recursive: true });
    this.db = new SqliteDatabase(file, { pragmas: ['journal_mode = WAL', 'synchronous = NORMAL'] });
    this.db.exec('CREATE TABLE IF NOT EXISTS leases (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID');
    this.claim = this.db.prepare(
      `INSERT INTO leases (key, owner, expires_at) VALUES (@key, @owner, @expires)
       ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE leases.expires_at <= @now OR leases.owner = excluded.owner`,
    );
    this.free = this.db.prepare('DELETE FROM leases WHERE key = ? AND owner = ?');
    this.read = this.db.prepare('SELECT owner, expires_at FROM leases WHERE key = ?');
  }

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    return this.claim.run({ key, owner, expires: now + ttlMs, now }).changes === 1;
  }

  /** One transaction; the keys go in chunks of 500 (SQLite's limit on parameters is higher). */
  async renew(keys: readonly string[], owner: string, ttlMs: number): Promise<Set<string>> {
    const held = new Set<string>();
    const expires = this.now() + ttlMs;
    this.db.transaction(() => {
      for (let i = 0; i < keys.length; i += RENEW_CHUNK) {
        const chunk = keys.slice(i, i + RENEW_CHUNK);
        const renewed = this.db
          .prepare<SqlValue[], { key: string }>(`UPDATE leases SET expires_at = ? WHERE owner = ? AND key IN (${chunk.map(() => '?').join(', ')}) RETURNING key`)
          .all(expires, owner, ...chunk);
        for (const r of renewed) held.add(r.key);
      }
    });
    return held;
  }

  async release(key: string, owner: string): Promise<void> {
    this.free.run(key, owner);
  }

  async holder(key: string): Promise<{ owner: string; expiresAt: number } | null> {
    const row = this.read.get(key);
    return row && row.expires_at > this.now() ? { owner: row.owner, expiresAt: row.expires_at } : null;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
