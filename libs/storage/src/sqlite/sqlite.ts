import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementResultingChanges } from 'node:sqlite';

/*
 * The embedded stores' SQLite connections, on Node's built-in `node:sqlite` (`DatabaseSync`).
 * A thin layer: settings at open, a transaction helper that nests, statements typed by their
 * parameters and rows, and the result codes the stores look at. It imports nothing but Node,
 * so the event store's writer thread can load it by file path.
 *
 * Needs Node 22.16 or newer: the read store's search indexes are FTS5 tables, which Node's
 * SQLite has from 22.16 on (and `isTransaction`, `isOpen` with it).
 */

/**
 * `node:sqlite`, loaded once. Node 22 marks it experimental and prints a warning when it first
 * loads (Node 24 does not): that one warning is dropped here; any other passes through.
 */
const sqlite = ((): typeof import('node:sqlite') => {
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (typeof text === 'string' && text.startsWith('SQLite is an experimental feature')) return;
    return (emit as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
})();

export type SqlValue = SQLInputValue;
export type SqlRow = Record<string, SQLOutputValue>;

/**
 * A prepared statement (`node:sqlite`'s `StatementSync`), typed by its parameters (`P`: the
 * positional values, or one object of named values with bare keys, `{ key }` for `@key`) and
 * its rows (`R`). Rows are objects without a prototype. `iterate` holds the statement until the
 * loop ends (a `break` resets it).
 */
export interface Statement<P extends unknown[] = SqlValue[], R = SqlRow> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
  run(...params: P): StatementResultingChanges;
}

export interface SqliteOptions {
  /**
   * How long a statement waits for a lock another connection holds before it fails with
   * SQLITE_BUSY (`busy_timeout`). Set first, before the pragmas (switching to WAL takes a
   * lock too). Default 5000 ms.
   */
  readonly busyTimeoutMs?: number;
  /** Settings applied at open, in order, each as `PRAGMA <setting>` (`journal_mode = WAL`, `synchronous = FULL`, ...). */
  readonly pragmas?: readonly string[];
  /**
   * Statements prepared here read INTEGER columns as bigint, and report `changes` and
   * `lastInsertRowid` as bigint (event positions need 64 bits). Default: numbers (an integer
   * beyond 2^53 then fails to read instead of losing precision).
   */
  readonly bigInts?: boolean;
}

/**
 * A database file is the service's alone (CONTRACT §17): created 0600 before SQLite opens it,
 * so its `-wal`, `-shm` and `-journal` files, which SQLite creates with the database file's
 * mode, are 0600 too whatever the umask; files an earlier version left readable are tightened.
 */
function preparePrivateFile(file: string): void {
  if (file === '' || file === ':memory:' || file.startsWith('file:')) return;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      if (existsSync(path)) chmodSync(path, 0o600);
    } catch {
      /* not ours to change: leave it */
    }
  }
}

/**
 * One connection. `transaction(fn)` runs `fn` in `BEGIN IMMEDIATE` … `COMMIT` (rolled back
 * when it throws), or in a savepoint when a transaction is already open, so that a nested
 * call undoes only its own writes when it throws.
 */
export class SqliteDatabase {
  private readonly db: DatabaseSync;
  private readonly bigInts: boolean;
  private readonly control: {
    readonly begin: Statement<[]>;
    readonly commit: Statement<[]>;
    readonly rollback: Statement<[]>;
    readonly savepoint: Statement<[]>;
    readonly release: Statement<[]>;
    readonly rollbackTo: Statement<[]>;
  };

  constructor(
    readonly file: string,
    options: SqliteOptions = {},
  ) {
    preparePrivateFile(file);
    this.db = new sqlite.DatabaseSync(file);
    this.bigInts = options.bigInts ?? false;
    this.db.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    for (const p of options.pragmas ?? []) this.db.exec(`PRAGMA ${p}`);
    const ctl = (sql: string) => this.db.prepare(sql) as unknown as Statement<[]>;
    this.control = {
      begin: ctl('BEGIN IMMEDIATE'),
      commit: ctl('COMMIT'),
      rollback: ctl('ROLLBACK'),
      savepoint: ctl('SAVEPOINT nested'),
      release: ctl('RELEASE nested'),
      rollbackTo: ctl('ROLLBACK TO nested'),
    };
  }

  get open(): boolean {
    return this.db.isOpen;
  }

  /** Whether a transaction is open on this connection (SQLite's answer: it may have ended one itself after an error). */
  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  /**
   * `arrays`: rows as arrays of the columns in order instead of objects (about half the cost
   * per row for queries that return many rows of several columns).
   */
  prepare<P extends unknown[] = SqlValue[], R = SqlRow>(sql: string, options: { arrays?: boolean } = {}): Statement<P, R> {
    const s = this.db.prepare(sql);
    if (this.bigInts) s.setReadBigInts(true);
    if (options.arrays) s.setReturnArrays(true);
    return s as unknown as Statement<P, R>;
  }

  /** Runs SQL text (one or more statements, no parameters, no rows). */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** `BEGIN IMMEDIATE`: takes the write lock (waiting up to the connection's busy timeout). */
  begin(): void {
    this.control.begin.run();
  }

  commit(): void {
    this.control.commit.run();
  }

  /** Rolls back the open transaction, if any (SQLite may have ended it already after an error). */
  rollback(): void {
    if (this.db.isTransaction) this.control.rollback.run();
  }

  /**
   * Runs `fn` as one write transaction (`BEGIN IMMEDIATE`), or inside the open one as a
   * savepoint; commits (releases) when it returns, rolls back when it throws. `fn` is
   * synchronous: nothing else runs on the connection meanwhile.
   */
  transaction<T>(fn: () => T): T {
    if (this.inTransaction) {
      this.control.savepoint.run();
      try {
        const result = checkSync(fn());
        this.control.release.run();
        return result;
      } catch (err) {
        if (this.inTransaction) {
          this.control.rollbackTo.run();
          this.control.release.run();
        }
        throw err;
      }
    }
    this.begin();
    try {
      const result = checkSync(fn());
      this.commit();
      return result;
    } catch (err) {
      this.rollback();
      throw err;
    }
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

function checkSync<T>(result: T): T {
  if (result && typeof (result as { then?: unknown }).then === 'function') throw new TypeError('a transaction function cannot return a promise');
  return result;
}

const PRIMARY = [
  'OK', 'ERROR', 'INTERNAL', 'PERM', 'ABORT', 'BUSY', 'LOCKED', 'NOMEM', 'READONLY', 'INTERRUPT', 'IOERR', 'CORRUPT', 'NOTFOUND', 'FULL',
  'CANTOPEN', 'PROTOCOL', 'EMPTY', 'SCHEMA', 'TOOBIG', 'CONSTRAINT', 'MISMATCH', 'MISUSE', 'NOLFS', 'AUTH', 'FORMAT', 'RANGE', 'NOTADB',
  'NOTICE', 'WARNING',
];
const EXTENDED: Record<number, string> = {
  261: 'BUSY_RECOVERY',
  517: 'BUSY_SNAPSHOT',
  773: 'BUSY_TIMEOUT',
  275: 'CONSTRAINT_CHECK',
  787: 'CONSTRAINT_FOREIGNKEY',
  1299: 'CONSTRAINT_NOTNULL',
  1555: 'CONSTRAINT_PRIMARYKEY',
  1811: 'CONSTRAINT_TRIGGER',
  2067: 'CONSTRAINT_UNIQUE',
  2579: 'CONSTRAINT_ROWID',
};

/**
 * The SQLite result code of an error `node:sqlite` threw, by name (`SQLITE_BUSY`,
 * `SQLITE_CONSTRAINT_UNIQUE`; the primary code's name for extended codes not named here);
 * undefined for other errors. (`node:sqlite` gives the number as `errcode`; its `code` is
 * `ERR_SQLITE_ERROR` for all of them.)
 */
export function sqliteCode(err: unknown): string | undefined {
  const n = (err as { errcode?: unknown } | null)?.errcode;
  if (typeof n !== 'number') return undefined;
  const name = EXTENDED[n] ?? PRIMARY[n & 0xff];
  return name ? `SQLITE_${name}` : `SQLITE_${n}`;
}

/** Whether the error is SQLite's "database is locked" (another connection holds the lock). */
export function isBusy(err: unknown): boolean {
  return sqliteCode(err)?.startsWith('SQLITE_BUSY') ?? false;
}
